/**
 * UPDATE_WEBHOOK_ENDPOINT while the dispatcher (another instance) disables the same endpoint,
 * on Postgres. The update reads the endpoint, then writes all of it back; had it read without
 * a lock, a disable committed in between would be undone by that write (the endpoint active
 * again, its disabled reason gone) and deliveries would resume to an endpoint that failed. The
 * store here pauses the update's transaction right after its read of the endpoint, while the
 * other instance disables it.
 */
import type { StoreTransaction } from '@keyhold/activities';
import { createPostgresStore, type SqlStore } from '@keyhold/store-postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// Test helpers of the SQL adapter: the Postgres target rules (skip loudly, fail in CI).
import {
  dropSchemas,
  POSTGRES_URL,
  postgresReachable,
  testSchema,
} from '../../../adapters/store-postgres/src/testing/targets.js';
import { generateApiKeyPair } from './api-key-signer.js';
import { createKeyhold } from './keyhold.js';

const withPostgres = await postgresReachable();

/** What runs, once, right after a transaction's next read of a webhook endpoint. */
interface AfterEndpointRead {
  next?: () => Promise<void>;
}

/** `inner`, whose transactions run `hook.next` after reading an endpoint (get or getForUpdate). */
function pausingStore(inner: SqlStore, hook: AfterEndpointRead): SqlStore {
  const endpoints = (repository: StoreTransaction['webhookEndpoints']) =>
    new Proxy(repository, {
      get(target, method) {
        const value = Reflect.get(target, method, target);
        if (method !== 'get' && method !== 'getForUpdate') {
          return typeof value === 'function' ? value.bind(target) : value;
        }
        return async (...args: [string, string]) => {
          const found = await value.apply(target, args);
          const next = hook.next;
          hook.next = undefined;
          await next?.();
          return found;
        };
      },
    });
  return new Proxy(inner, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (property !== 'transaction') {
        return typeof value === 'function' ? value.bind(target) : value;
      }
      return <T>(work: (tx: StoreTransaction) => Promise<T>) =>
        target.transaction((tx) =>
          work(
            new Proxy(tx, {
              get(t, name) {
                const member = Reflect.get(t, name, t);
                return name === 'webhookEndpoints' ? endpoints(member) : member;
              },
            }),
          ),
        );
    },
  });
}

describe.skipIf(!withPostgres)('an endpoint update beside its disabling (Postgres)', () => {
  const schema = testSchema('endpoint_lock');
  let served: SqlStore;
  let dispatcher: SqlStore;

  beforeAll(async () => {
    served = await createPostgresStore({ connectionString: POSTGRES_URL, schema });
    dispatcher = await createPostgresStore({ connectionString: POSTGRES_URL, schema });
  });
  afterAll(async () => {
    await served?.close();
    await dispatcher?.close();
    await dropSchemas([schema]);
  });

  it('a disable that comes after the update read the endpoint still holds after the update commits', async () => {
    const hook: AfterEndpointRead = {};
    const keyhold = createKeyhold({ store: pausingStore(served, hook) });
    const key = generateApiKeyPair();
    const { organizationId } = await keyhold.bootstrap({
      organizationName: 'endpoint lock',
      apiPublicKey: key.publicKey,
    });
    const client = keyhold.client({ organizationId, apiPrivateKey: key.privateKey });
    const { endpointId } = await client.run<{ endpointId: string }>(
      'ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT',
      {
        url: 'https://hooks.example.com/keyhold',
        name: 'primary',
        subscriptions: [{ eventType: 'ACTIVITY_UPDATES' }],
      },
    );

    let disabling: Promise<boolean> | undefined;
    hook.next = async () => {
      disabling = dispatcher.disableEndpoint(organizationId, endpointId, 'HTTP 410', Date.now());
      // Long enough for the disable to commit, unless it waits on the update's lock.
      await new Promise((resolve) => setTimeout(resolve, 400));
    };
    await client.run('ACTIVITY_TYPE_UPDATE_WEBHOOK_ENDPOINT', { endpointId, name: 'renamed' });
    expect(disabling, 'the update read the endpoint').toBeDefined();
    expect(await disabling).toBe(true);
    const after = await dispatcher.transaction((tx) =>
      tx.webhookEndpoints.get(organizationId, endpointId),
    );
    expect(after).toMatchObject({ name: 'renamed', isActive: false, disabledReason: 'HTTP 410' });
    await keyhold.close();
  });
});

import { type Store, StoreUnavailableError } from '@keyhold/activities';
import { MemoryStore } from '@keyhold/store-memory';
import { describe, expect, it } from 'vitest';
import { generateApiKeyPair } from './api-key-signer.js';
import { createKeyhold } from './keyhold.js';
import { KeyholdRequestError } from './keyhold-client.js';
import { silentLogger } from './logger.js';

/** A store that goes down on demand, as a database would, reporting it with `unavailable()`. */
function flakyStore(
  unavailable: () => Error = () => new StoreUnavailableError('connection refused'),
) {
  const inner = new MemoryStore();
  let down = false;
  const store: Store = {
    transaction: (work) => (down ? Promise.reject(unavailable()) : inner.transaction(work)),
    ping: async () => {
      if (down) throw unavailable();
    },
    close: () => inner.close(),
  };
  return {
    store,
    setDown: (value: boolean) => {
      down = value;
    },
  };
}

describe('an unavailable store', () => {
  it('answers 503 UNAVAILABLE with Retry-After, and readiness says so, then recovers', async () => {
    const { store, setDown } = flakyStore();
    const keyhold = createKeyhold({ store, logger: silentLogger });
    const key = generateApiKeyPair();
    const { organizationId } = await keyhold.bootstrap({
      organizationName: 'A',
      apiPublicKey: key.publicKey,
    });
    const client = keyhold.client({ organizationId, apiPrivateKey: key.privateKey });

    setDown(true);
    const error = await client.whoami().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KeyholdRequestError);
    expect((error as KeyholdRequestError).httpStatus).toBe(503);
    expect((error as KeyholdRequestError).status).toMatchObject({
      code: 14,
      message: 'service unavailable',
    });
    const ready = await keyhold.handle({
      method: 'GET',
      path: '/ready',
      headers: {},
      rawBody: new Uint8Array(),
    });
    expect(ready.status).toBe(503);
    expect(JSON.parse(ready.body)).toEqual({
      status: 'unavailable',
      errorCode: 'STORE_UNAVAILABLE',
      retryable: true,
    });

    setDown(false);
    expect((await client.whoami()).organizationId).toBe(organizationId);
  });

  it('is mapped by its code: a StoreUnavailableError of another copy of @keyhold/activities is a 503 too', async () => {
    // What an adapter built against its own install of @keyhold/activities throws: another
    // class, the same global brand and code. instanceof would make it a 500.
    class ForeignStoreUnavailableError extends Error {
      readonly code = 'STORE_UNAVAILABLE';
      get [Symbol.for('keyhold.port-error')]() {
        return this.code;
      }
    }
    const foreign = new ForeignStoreUnavailableError('store unavailable: connection refused');
    expect(foreign).not.toBeInstanceOf(StoreUnavailableError);
    expect(StoreUnavailableError.is(foreign)).toBe(true);
    const { store, setDown } = flakyStore(() => foreign);
    const keyhold = createKeyhold({ store, logger: silentLogger });
    const key = generateApiKeyPair();
    const { organizationId } = await keyhold.bootstrap({
      organizationName: 'A',
      apiPublicKey: key.publicKey,
    });
    const client = keyhold.client({ organizationId, apiPrivateKey: key.privateKey });
    setDown(true);
    const error = (await client.whoami().catch((e: unknown) => e)) as KeyholdRequestError;
    expect(error.httpStatus).toBe(503);
    expect(error.status).toMatchObject({
      code: 14,
      message: 'service unavailable',
      details: [{ errorCode: 'UNAVAILABLE', reason: 'store unavailable' }],
    });
  });
});

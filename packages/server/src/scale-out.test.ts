/**
 * Scale-out: two Keyhold servers (`startServer`, each with its own pool) on ONE Postgres
 * schema and the SAME master key behave as one service — what one writes the other reads,
 * one body submitted to both at once is one activity, bootstrap is idempotent when both
 * race it, and the whole conformance suite passes against a client that alternates between
 * them. Without a reachable Postgres the file is skipped with a loud warning (a failure in CI).
 */

import { type RunningServer, startServer } from '@keyhold/cli';
import {
  ConformanceClient,
  type ConformanceTarget,
  conformanceProperties,
  fingerprintOf,
  httpTarget,
  STAMP_HEADER,
  SUBMIT_PREFIX,
  verifyRawPayloadSignature,
} from '@keyhold/conformance';
import { createPostgresStore } from '@keyhold/store-postgres';
import { generateMasterKey } from '@keyhold/vault-software';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The Postgres helpers of the store-postgres tests (no package export: test-only code).
import {
  dropSchemas,
  POSTGRES_URL,
  postgresReachable,
  testSchema,
} from '../../../adapters/store-postgres/src/testing/targets.js';
import { generateApiKeyPair } from './api-key-signer.js';
import { silentLogger } from './logger.js';

const NUM_RUNS = Number(process.env.CONFORMANCE_RUNS ?? 20);
const SEED =
  process.env.CONFORMANCE_SEED === undefined ? undefined : Number(process.env.CONFORMANCE_SEED);

const withPostgres = await postgresReachable();

/** A target whose requests alternate between the given base URLs, one request each. */
function roundRobinTarget(
  baseUrls: readonly string[],
  organizationId: string,
  apiPrivateKey: string,
): ConformanceTarget {
  const targets = baseUrls.map((baseUrl) => httpTarget({ baseUrl, organizationId, apiPrivateKey }));
  let next = 0;
  const first = targets[0]!;
  return {
    name: `round robin over ${baseUrls.join(', ')}`,
    organizationId,
    apiPrivateKey,
    apiPublicKey: first.apiPublicKey,
    post(path, body, headers) {
      const target = targets[next++ % targets.length]!;
      return target.post(path, body, headers);
    },
  };
}

describe.skipIf(!withPostgres)('scale-out: two servers on one Postgres schema', () => {
  const schema = testSchema('scale_out');
  const masterKey = generateMasterKey();
  const key = generateApiKeyPair();
  const ORGANIZATION_NAME = 'Scale-out';
  let a: RunningServer;
  let b: RunningServer;
  let viaA: ConformanceClient;
  let viaB: ConformanceClient;

  /** One instance: a pool of its own on the shared schema, the shared master key. */
  const startInstance = async (): Promise<RunningServer> =>
    startServer({
      port: 0,
      store: await createPostgresStore({ connectionString: POSTGRES_URL, schema }),
      masterKey,
      logger: silentLogger,
      bootstrapApiPublicKey: key.publicKey,
      bootstrapOrganizationName: ORGANIZATION_NAME,
    });

  const clientOf = (server: RunningServer) =>
    new ConformanceClient(
      httpTarget({
        baseUrl: server.url,
        organizationId: server.organizationId!,
        apiPrivateKey: key.privateKey,
      }),
    );

  beforeAll(async () => {
    // Both start at once on an empty schema: they race the migrations and the bootstrap.
    const [first, second] = await Promise.allSettled([startInstance(), startInstance()]);
    // Keep what started, so afterAll closes it even when the other failed.
    if (first.status === 'fulfilled') a = first.value;
    if (second.status === 'fulfilled') b = second.value;
    if (first.status === 'rejected') throw first.reason;
    if (second.status === 'rejected') throw second.reason;
    viaA = clientOf(a);
    viaB = clientOf(b);
  });

  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await dropSchemas([schema]);
  });

  it('bootstrap is idempotent when both instances race it: one organization, one root user', async () => {
    expect(a.organizationId).toBeDefined();
    expect(b.organizationId).toBe(a.organizationId);
    expect(b.userId).toBe(a.userId);
    expect(b.keyhold.signerPublicKey).toBe(a.keyhold.signerPublicKey);
    const { users } = await viaB.query('list_users');
    expect(users.map((u: { userId: string }) => u.userId)).toEqual([a.userId]);
    for (const client of [viaA, viaB]) {
      const me = await client.query('whoami');
      expect(me).toMatchObject({ organizationId: a.organizationId, userId: a.userId });
    }
  });

  it('the per-user API-key limit holds when both instances add keys to one user at once', async () => {
    // A user of its own with one long-lived key; each instance then tries to add six more.
    const holder = generateApiKeyPair();
    const root = a.keyhold.client({
      organizationId: a.organizationId!,
      apiPrivateKey: key.privateKey,
    });
    const { userIds } = await root.run<{ userIds: string[] }>(
      'ACTIVITY_TYPE_CREATE_API_ONLY_USERS',
      {
        apiOnlyUsers: [
          {
            userName: `limit ${schema}`,
            userTags: [],
            apiKeys: [{ apiKeyName: 'first', publicKey: holder.publicKey }],
          },
        ],
      },
    );
    const userId = userIds[0]!;
    const sixKeys = (name: string) =>
      Array.from({ length: 6 }, (_, i) => ({
        apiKeyName: `${name} ${i}`,
        publicKey: generateApiKeyPair().publicKey,
        curveType: 'API_KEY_CURVE_P256',
      }));
    for (let round = 0; round < 3; round++) {
      const [viaFirst, viaSecond] = await Promise.all(
        [a, b].map((server, i) =>
          server.keyhold
            .client({ organizationId: a.organizationId!, apiPrivateKey: key.privateKey })
            .submit('ACTIVITY_TYPE_CREATE_API_KEYS_V2', {
              userId,
              apiKeys: sixKeys(`round ${round} via ${i}`),
            }),
        ),
      );
      const { apiKeys } = await viaA.query('get_api_keys', { userId });
      // 1 + 6 + 6 = 13 would break the limit of 10: exactly one of the two may complete.
      expect(apiKeys.length).toBeLessThanOrEqual(10);
      const completed = [viaFirst, viaSecond].filter(
        (activity) => activity?.status === 'ACTIVITY_STATUS_COMPLETED',
      );
      expect(apiKeys.length).toBe(1 + 6 * completed.length);
      if (round === 0) expect(completed).toHaveLength(1);
      // Back to one key for the next round.
      const extra = apiKeys
        .filter((k: { apiKeyName: string }) => k.apiKeyName !== 'first')
        .map((k: { apiKeyId: string }) => k.apiKeyId);
      if (extra.length > 0) {
        await root.run('ACTIVITY_TYPE_DELETE_API_KEYS', { userId, apiKeyIds: extra });
      }
    }
  });

  it('bootstrap races on fresh names, many times: both instances always agree', async () => {
    for (let round = 0; round < 10; round++) {
      const organizationName = `Race ${round} ${schema}`;
      const other = generateApiKeyPair();
      const input = { organizationName, apiPublicKey: other.publicKey };
      const [fromA, fromB] = await Promise.all([
        a.keyhold.bootstrap(input),
        b.keyhold.bootstrap(input),
      ]);
      expect(fromB.organizationId).toBe(fromA.organizationId);
      expect(fromB.userId).toBe(fromA.userId);
      expect(fromB.apiKeyId).toBe(fromA.apiKeyId);
      expect([fromA.created, fromB.created].filter(Boolean)).toHaveLength(1);
      const client = new ConformanceClient(
        httpTarget({
          baseUrl: round % 2 ? a.url : b.url,
          organizationId: fromA.organizationId,
          apiPrivateKey: other.privateKey,
        }),
      );
      const { users } = await client.query('list_users');
      expect(users).toHaveLength(1);
    }
  });

  it('state written through one instance is read through the other', async () => {
    // A wallet created via A signs via B (B unseals the seed A's vault sealed) …
    const wallet = await viaA.execute(
      'ACTIVITY_TYPE_CREATE_WALLET',
      'create_wallet',
      {
        walletName: `scale-out ${Date.now()}`,
        accounts: [
          {
            curve: 'CURVE_SECP256K1',
            pathFormat: 'PATH_FORMAT_BIP32',
            path: "m/44'/60'/0'/0/0",
            addressFormat: 'ADDRESS_FORMAT_ETHEREUM',
          },
        ],
      },
      'createWalletResult',
    );
    const address = wallet.addresses[0] as string;
    const digest = new Uint8Array(32).fill(7);
    const signed = await viaB.submit('ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2', 'sign_raw_payload', {
      signWith: address,
      payload: Buffer.from(digest).toString('hex'),
      encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
      hashFunction: 'HASH_FUNCTION_NO_OP',
    });
    expect(signed.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    verifyRawPayloadSignature({
      curve: 'CURVE_SECP256K1',
      addressFormat: 'ADDRESS_FORMAT_ETHEREUM',
      address,
      message: digest,
      hashFunction: 'HASH_FUNCTION_NO_OP',
      signature: signed.activity.result.signRawPayloadResult,
    });
    // … and A lists the wallet and reads the activity B stored.
    const { wallets } = await viaA.query('list_wallets');
    expect(wallets.map((w: { walletId: string }) => w.walletId)).toContain(wallet.walletId);
    const { activity } = await viaA.query('get_activity', { activityId: signed.activity.id });
    expect(activity).toEqual(signed.activity);

    // The other way round: a private key created via B signs via A.
    const created = await viaB.execute(
      'ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2',
      'create_private_keys',
      {
        privateKeys: [
          {
            privateKeyName: `scale-out key ${Date.now()}`,
            curve: 'CURVE_ED25519',
            privateKeyTags: [],
            addressFormats: ['ADDRESS_FORMAT_SOLANA'],
          },
        ],
      },
      'createPrivateKeysResultV2',
    );
    const solana = created.privateKeys[0].addresses[0].address as string;
    const message = new TextEncoder().encode('signed by the other instance');
    const viaASigned = await viaA.execute(
      'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2',
      'sign_raw_payload',
      {
        signWith: solana,
        payload: 'signed by the other instance',
        encoding: 'PAYLOAD_ENCODING_TEXT_UTF8',
        hashFunction: 'HASH_FUNCTION_NOT_APPLICABLE',
      },
      'signRawPayloadResult',
    );
    verifyRawPayloadSignature({
      curve: 'CURVE_ED25519',
      addressFormat: 'ADDRESS_FORMAT_SOLANA',
      address: solana,
      message,
      hashFunction: 'HASH_FUNCTION_NOT_APPLICABLE',
      signature: viaASigned,
    });
  });

  it('one stamped body sent to both instances at once is one activity, executed once', async () => {
    for (let round = 0; round < 5; round++) {
      const privateKeyName = `scale-out dedupe ${round} ${Date.now()}`;
      const body = JSON.stringify(
        viaA.envelope('ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2', {
          privateKeys: [
            { privateKeyName, curve: 'CURVE_SECP256K1', privateKeyTags: [], addressFormats: [] },
          ],
        }),
      );
      const stamp = await viaA.stamp(body);
      const path = `${SUBMIT_PREFIX}create_private_keys`;
      const copies = 8;
      const responses = await Promise.all(
        Array.from({ length: copies }, (_, i) =>
          (i % 2 ? viaB : viaA).post(path, body, { [STAMP_HEADER]: stamp }),
        ),
      );
      const activities = responses.map((response) => {
        expect(response.status, response.body).toBe(200);
        return JSON.parse(response.body).activity;
      });
      const ids = new Set(activities.map((activity) => activity.id));
      expect(ids.size).toBe(1);
      expect(activities[0].fingerprint).toBe(fingerprintOf(body));
      expect(activities[0].status).toBe('ACTIVITY_STATUS_COMPLETED');
      const { privateKeys } = await viaB.query('list_private_keys');
      const named = privateKeys.filter(
        (k: { privateKeyName: string }) => k.privateKeyName === privateKeyName,
      );
      expect(named).toHaveLength(1);
    }
  });

  describe('the conformance suite against both instances, alternating request by request', () => {
    let target: ConformanceTarget;
    beforeAll(() => {
      target = roundRobinTarget([a.url, b.url], a.organizationId!, key.privateKey);
    });
    for (const property of conformanceProperties) {
      it(property.name, () =>
        property.run(target, { numRuns: NUM_RUNS, ...(SEED === undefined ? {} : { seed: SEED }) }),
      );
    }
  });
});

/**
 * Speculative signing through a server with a worker pool (what `keyhold serve` runs): an API
 * key that signed with a key before has its next signature started before the activity's
 * transaction; the transaction still decides, and a refusal drops the started signature. Seen
 * from outside with `@turnkey/sdk-server` over HTTP; the vault and the store are the real ones,
 * each told to record when a signature is made and whether a transaction is open then.
 */

import type { Curve } from '@keyhold/protocol';
import { MemoryRateLimiter } from '@keyhold/ratelimit-memory';
import { MemoryStore } from '@keyhold/store-memory';
import { generateMasterKey, SoftwareKeyVault } from '@keyhold/vault-software';
import { PiscinaCryptoWorkPool } from '@keyhold/worker-pool-piscina';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createApiKeyUser,
  ethereumAccountAt,
  rejection,
  type SdkClient,
  sdkClient,
  stampedPost,
  startTurnkeyServer,
} from './__fixtures__/turnkey-server.js';
import { generateApiKeyPair } from './api-key-signer.js';

/** A memory store that counts the transactions open at any moment. */
class WatchedStore extends MemoryStore {
  open = 0;
  override transaction<T>(work: Parameters<MemoryStore['transaction']>[0]): Promise<T> {
    return super.transaction(async (tx) => {
      this.open++;
      try {
        return (await work(tx)) as T;
      } finally {
        this.open--;
      }
    });
  }
}

/** The software vault, recording each signature and whether a transaction was open. */
class RecordingVault extends SoftwareKeyVault {
  readonly signed: { inTransaction: boolean; curve: Curve }[] = [];
  constructor(
    masterKey: Uint8Array,
    workPool: PiscinaCryptoWorkPool,
    private readonly store: WatchedStore,
  ) {
    super({ masterKey, workPool });
  }
  override sign(key: string, curve: Curve, message: Uint8Array) {
    this.signed.push({ inTransaction: this.store.open > 0, curve });
    return super.sign(key, curve, message);
  }
}

const DIGEST = (byte: string) => `0x${byte.repeat(32)}`;
const signWith = (client: SdkClient, address: string, byte: string) =>
  client.signRawPayload({
    signWith: address,
    payload: DIGEST(byte),
    encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
    hashFunction: 'HASH_FUNCTION_NO_OP',
  });

/** The compressed public key a signature of `byte`×32 recovers to. */
function recovered(answer: { r: string; s: string; v: string }, byte: string): string {
  return secp256k1.Signature.fromBytes(Buffer.from(answer.r + answer.s, 'hex'), 'compact')
    .addRecoveryBit(Number.parseInt(answer.v, 16))
    .recoverPublicKey(Buffer.from(byte.repeat(32), 'hex'))
    .toHex(true);
}

/** A server with a worker pool, the recording vault, and a wallet of one Ethereum account. */
async function serve(options: Parameters<typeof startTurnkeyServer>[0] = {}) {
  const store = new WatchedStore();
  const pool = new PiscinaCryptoWorkPool({ threads: 1 });
  const vault = new RecordingVault(generateMasterKey(), pool, store);
  const started = await startTurnkeyServer({ store, vault, cryptoWorkPool: pool, ...options });
  const root = started.client;
  const wallet = await root.createWallet({ walletName: 'w', accounts: [ethereumAccountAt(0)] });
  const { accounts } = await root.getWalletAccounts({ walletId: wallet.walletId });
  return {
    ...started,
    vault,
    address: wallet.addresses[0]!,
    publicKey: accounts[0]!.publicKey!.replace(/^0x/, '').toLowerCase(),
  };
}

/** A new user with an API key, allowed to sign raw payloads by a policy; and its policy id. */
async function allowedSigner(t: Awaited<ReturnType<typeof serve>>, userName: string) {
  const key = generateApiKeyPair();
  const userId = await createApiKeyUser(t.client, userName, key);
  const allow = () =>
    t.client.createPolicy({
      policyName: `${userName} signs ${Math.random()}`,
      effect: 'EFFECT_ALLOW',
      consensus: `approvers.any(user, user.id == '${userId}')`,
      condition: "activity.type == 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2'",
      notes: '',
    });
  const { policyId } = await allow();
  return { client: sdkClient(t.server.url, t.organizationId, key), policyId, allow };
}

describe('speculative signing (a server with a worker pool)', () => {
  let t: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    t = await serve();
  }, 60_000);
  afterAll(async () => {
    await t?.server.close();
  });

  it('the first signature is made in the transaction, the next before it, and both are the key’s', async () => {
    const before = t.vault.signed.length;
    const first = await signWith(t.client, t.address, '11');
    const second = await signWith(t.client, t.address, '22');
    expect(t.vault.signed.slice(before).map((s) => s.inTransaction)).toEqual([true, false]);
    expect(recovered(first, '11')).toBe(t.publicKey);
    expect(recovered(second, '22')).toBe(t.publicKey);
  });

  it('a resubmitted body answers its activity and leaves the remembered key be', async () => {
    const body = {
      type: 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2',
      timestampMs: String(Date.now()),
      organizationId: t.organizationId,
      parameters: {
        signWith: t.address,
        payload: DIGEST('77'),
        encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
        hashFunction: 'HASH_FUNCTION_NO_OP',
      },
    };
    const path = '/public/v1/submit/sign_raw_payload';
    const first = await stampedPost(t.server.url, path, body, t.key);
    const again = await stampedPost(t.server.url, path, body, t.key);
    expect(again.json.activity.id).toBe(first.json.activity.id);
    expect(again.json.activity.result).toEqual(first.json.activity.result);
    const before = t.vault.signed.length;
    await signWith(t.client, t.address, '78');
    expect(t.vault.signed.slice(before).map((s) => s.inTransaction)).toEqual([false]);
  });

  it('a refused request drops its started signature; the next one of that API key signs in its transaction', async () => {
    const signer = await allowedSigner(t, 'signer');
    await signWith(signer.client, t.address, '33'); // remembered for this API key
    await t.client.deletePolicy({ policyId: signer.policyId });

    const before = t.vault.signed.length;
    const refused = await rejection(signWith(signer.client, t.address, '44'));
    expect(refused.message).toContain('no policy allows this request');
    // Started, then dropped: no activity, no signature in any answer.
    expect(t.vault.signed.slice(before).map((s) => s.inTransaction)).toEqual([false]);
    const { activities } = await t.client.getActivities({
      filterByType: ['ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2'],
    });
    const payloads = activities.map((a) => a.intent.signRawPayloadIntentV2?.payload);
    expect(payloads).toContain(DIGEST('33'));
    expect(payloads).not.toContain(DIGEST('44'));

    // Allowed again: the refusal forgot the key, so this one is signed in its transaction.
    await signer.allow();
    const again = await signWith(signer.client, t.address, '55');
    expect(recovered(again, '55')).toBe(t.publicKey);
    expect(t.vault.signed.slice(before + 1).map((s) => s.inTransaction)).toEqual([true]);
  });
});

describe('speculative signing with a rate limiter', () => {
  let t: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    t = await serve({
      rateLimiter: new MemoryRateLimiter(),
      // The activity lane (SIGN_RAW_PAYLOAD) of each user: 5 requests an hour.
      rateLimits: { activity: { user: { limit: 5, periodMs: 3_600_000 } } },
    });
  }, 60_000);
  afterAll(async () => {
    await t?.server.close();
  });

  it('is charged before a signature starts: a user over the limit starts none', async () => {
    const metered = await allowedSigner(t, 'metered');
    const before = t.vault.signed.length;
    for (const byte of ['61', '62', '63', '64', '65'])
      await signWith(metered.client, t.address, byte);
    const refused = await rejection(signWith(metered.client, t.address, '66'));
    expect(refused.message).toMatch(/429/);
    // Five signatures (the first in its transaction, four started early), none for the sixth.
    expect(t.vault.signed.slice(before).map((s) => s.inTransaction)).toEqual([
      true,
      false,
      false,
      false,
      false,
    ]);
  });
});

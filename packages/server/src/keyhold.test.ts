import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { hexToBytes } from '@noble/hashes/utils.js';
import { beforeEach, describe, expect, it } from 'vitest';
import { generateApiKeyPair } from './api-key-signer.js';
import { createKeyhold, type Keyhold } from './keyhold.js';
import { KeyholdActivityError, type KeyholdClient, KeyholdRequestError } from './keyhold-client.js';
import { silentLogger } from './logger.js';

const ETH_ACCOUNT = {
  curve: 'CURVE_SECP256K1',
  pathFormat: 'PATH_FORMAT_BIP32',
  path: "m/44'/60'/0'/0/0",
  addressFormat: 'ADDRESS_FORMAT_ETHEREUM',
};

describe('createKeyhold (embedded)', () => {
  let keyhold: Keyhold;
  let client: KeyholdClient;
  let organizationId: string;

  beforeEach(async () => {
    keyhold = createKeyhold({ logger: silentLogger });
    const key = generateApiKeyPair();
    ({ organizationId } = await keyhold.bootstrap({
      organizationName: 'Acme',
      apiPublicKey: key.publicKey,
    }));
    client = keyhold.client({ organizationId, apiPrivateKey: key.privateKey });
  });

  it('answers whoami for the bootstrap root user', async () => {
    const me = await client.whoami();
    expect(me.organizationId).toBe(organizationId);
    expect(me.organizationName).toBe('Acme');
    expect(me.username).toBe('root');
  });

  it('creates a wallet and signs with its Ethereum account', async () => {
    const { walletId, addresses, activity } = await client.createWallet({
      walletName: 'w',
      accounts: [ETH_ACCOUNT],
    });
    expect(activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(walletId).toMatch(/^[0-9a-f-]{36}$/);
    expect(addresses[0]).toMatch(/^0x[0-9a-fA-F]{40}$/);

    const digest = keccak_256(new TextEncoder().encode('hello'));
    const sig = await client.signRawPayload({
      signWith: addresses[0]!,
      payload: Buffer.from(digest).toString('hex'),
      encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
      hashFunction: 'HASH_FUNCTION_NO_OP',
    });
    expect(sig.r).toHaveLength(64);
    expect(sig.s).toHaveLength(64);
    expect(['00', '01']).toContain(sig.v);
    const recovered = secp256k1.Signature.fromBytes(hexToBytes(sig.r + sig.s), 'compact')
      .addRecoveryBit(Number(sig.v))
      .recoverPublicKey(digest)
      .toBytes(false);
    const address = `0x${Buffer.from(keccak_256(recovered.subarray(1)).subarray(12)).toString('hex')}`;
    expect(address).toBe(addresses[0]!.toLowerCase());
  });

  it('returns the same activity for the same body and refuses a re-used path', async () => {
    const { walletId } = await client.createWallet({ walletName: 'w', accounts: [ETH_ACCOUNT] });
    const failed = await client.submit('ACTIVITY_TYPE_CREATE_WALLET_ACCOUNTS', {
      walletId,
      accounts: [ETH_ACCOUNT],
    });
    expect(failed.status).toBe('ACTIVITY_STATUS_FAILED');
    expect(failed.failure?.message).toBe('invalid path');
  });

  it('refuses a bad hash function with the catalogue message and stores nothing', async () => {
    const before = await client.query<{ activities: unknown[] }>('list_activities');
    const error = await client
      .submit('ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2', {
        signWith: '0x0000000000000000000000000000000000000000',
        payload: '00',
        encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
        hashFunction: 'HASH_FUNCTION_MD5',
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KeyholdRequestError);
    expect((error as KeyholdRequestError).httpStatus).toBe(400);
    expect((error as KeyholdRequestError).status.message).toBe('invalid hash function');
    const after = await client.query<{ activities: unknown[] }>('list_activities');
    expect(after.activities).toHaveLength(before.activities.length);
  });

  it('throws KeyholdActivityError for a failed typed call', async () => {
    await expect(
      client.signRawPayload({
        signWith: '0x0000000000000000000000000000000000000000',
        payload: '00'.repeat(32),
        encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
        hashFunction: 'HASH_FUNCTION_NO_OP',
      }),
    ).rejects.toBeInstanceOf(KeyholdActivityError);
  });
});

describe('bootstrap', () => {
  it('is idempotent, also when two calls race', async () => {
    const keyhold = createKeyhold({ logger: silentLogger });
    const key = generateApiKeyPair();
    const [a, b] = await Promise.all([
      keyhold.bootstrap({ organizationName: 'Race', apiPublicKey: key.publicKey }),
      keyhold.bootstrap({ organizationName: 'Race', apiPublicKey: key.publicKey }),
    ]);
    expect(b.organizationId).toBe(a.organizationId);
    expect(b.userId).toBe(a.userId);
    expect([a.created, b.created].sort()).toEqual([false, true]);
  });

  it('refuses a second bootstrap of the same name with another key', async () => {
    const keyhold = createKeyhold({ logger: silentLogger });
    await keyhold.bootstrap({
      organizationName: 'Once',
      apiPublicKey: generateApiKeyPair().publicKey,
    });
    await expect(
      keyhold.bootstrap({ organizationName: 'Once', apiPublicKey: generateApiKeyPair().publicKey }),
    ).rejects.toThrow('already exists with other root credentials');
  });
});

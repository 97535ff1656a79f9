/**
 * SIGN_RAW_PAYLOAD V1 (by private-key id) and V2 (by `signWith`) and SIGN_RAW_PAYLOADS against
 * a handler context: the key each version names is the one the vault signs with.
 */
import type { RawSignature } from '@keyhold/keys';
import type { Curve } from '@keyhold/protocol';
import { describe, expect, it } from 'vitest';
import type { PrivateKeyRecord, WalletAccountRecord } from '../records.js';
import { handlerContext } from './__fixtures__/handler-context.js';
import { signRawPayloadHandler, signRawPayloadsHandler } from './sign-raw-payload.js';

const KEY_ID = '0c5e6b52-3a43-4c5e-9a1e-1f2b3c4d5e6f';
const ADDRESS = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';
const DIGEST = 'ab'.repeat(32);
const HOW = {
  encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
  hashFunction: 'HASH_FUNCTION_NO_OP',
} as const;

const privateKey = {
  privateKeyId: KEY_ID,
  curve: 'CURVE_SECP256K1',
  key: 'sealed-private-key',
  disabled: false,
} as PrivateKeyRecord;
const account = { curve: 'CURVE_SECP256K1', key: 'sealed-account-key' } as WalletAccountRecord;

/** A context whose vault records what it signed with, answering r = 1, s = 2. */
function signingContext(type: Parameters<typeof handlerContext>[0]['type']) {
  const signed: { key: string; curve: Curve; message: string }[] = [];
  const ctx = handlerContext({
    type,
    tx: {
      privateKeys: { get: async (_org, id) => (id === KEY_ID ? privateKey : undefined) },
      walletAccounts: {
        findByAddress: async (_org, address) => (address === ADDRESS ? account : undefined),
      },
    },
    vault: {
      sign: async (key, curve, message): Promise<RawSignature> => {
        signed.push({ key, curve, message: Buffer.from(message).toString('hex') });
        return { r: Uint8Array.of(1), s: Uint8Array.of(2), recovery: 1 };
      },
    },
  });
  return { ctx, signed };
}

const signature = { r: `${'0'.repeat(63)}1`, s: `${'0'.repeat(63)}2`, v: '01' };

describe('SIGN_RAW_PAYLOAD', () => {
  it('V1 signs with the private key its `privateKeyId` names', async () => {
    const { ctx, signed } = signingContext('ACTIVITY_TYPE_SIGN_RAW_PAYLOAD');
    const result = await signRawPayloadHandler.execute(ctx, {
      privateKeyId: KEY_ID,
      payload: DIGEST,
      ...HOW,
    });
    expect(result).toEqual(signature);
    expect(signed).toEqual([
      { key: 'sealed-private-key', curve: 'CURVE_SECP256K1', message: DIGEST },
    ]);
  });

  it('V2 signs with the wallet account its `signWith` names', async () => {
    const { ctx, signed } = signingContext('ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2');
    await signRawPayloadHandler.execute(ctx, { signWith: ADDRESS, payload: DIGEST, ...HOW });
    expect(signed.map((s) => s.key)).toEqual(['sealed-account-key']);
  });
});

describe('SIGN_RAW_PAYLOADS', () => {
  it('signs every payload, in order', async () => {
    const { ctx, signed } = signingContext('ACTIVITY_TYPE_SIGN_RAW_PAYLOADS');
    const other = 'cd'.repeat(32);
    const result = await signRawPayloadsHandler.execute(ctx, {
      signWith: KEY_ID,
      payloads: [DIGEST, other],
      ...HOW,
    });
    expect(result).toEqual({ signatures: [signature, signature] });
    expect(signed.map((s) => s.message)).toEqual([DIGEST, other]);
  });

  it('signs nothing when one payload is bad', async () => {
    const { ctx, signed } = signingContext('ACTIVITY_TYPE_SIGN_RAW_PAYLOADS');
    await expect(
      signRawPayloadsHandler.execute(ctx, { signWith: KEY_ID, payloads: [DIGEST, 'zz'], ...HOW }),
    ).rejects.toMatchObject({ name: 'KeyholdError' });
    expect(signed).toEqual([]);
  });
});

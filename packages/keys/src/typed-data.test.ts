import type { Curve, HashFunction } from '@keyhold/protocol';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import fc from 'fast-check';
import { getTypesForEIP712Domain, hashTypedData, serializeTypedData, verifyTypedData } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { formatSignature } from './signature-format.js';
import { hashTypedDataPayload, parseTypedData, prepareEip712Payload } from './typed-data.js';

const PRIVATE_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80' as const;
const account = privateKeyToAccount(PRIVATE_KEY);

// The EIP-712 example (eips.ethereum.org/EIPS/eip-712), with a uint256 and bytes32 added.
const MAIL = {
  domain: {
    name: 'Ether Mail',
    version: '1',
    chainId: 1,
    verifyingContract: '0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC',
  },
  types: {
    Person: [
      { name: 'name', type: 'string' },
      { name: 'wallet', type: 'address' },
    ],
    Mail: [
      { name: 'from', type: 'Person' },
      { name: 'to', type: 'Person[]' },
      { name: 'contents', type: 'string' },
      { name: 'amount', type: 'uint256' },
      { name: 'tag', type: 'bytes32' },
    ],
  },
  primaryType: 'Mail',
  message: {
    from: { name: 'Cow', wallet: '0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826' },
    to: [{ name: 'Bob', wallet: '0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB' }],
    contents: 'Hello, Bob!',
    amount: 123456789012345678901234567890n,
    tag: `0x${'ab'.repeat(32)}`,
  },
} as const;

/** What a walletClient.signTypedData through @turnkey/viem sends: EIP712Domain added, then serialized. */
const walletClientPayload = (data: typeof MAIL) =>
  serializeTypedData({
    ...data,
    types: { EIP712Domain: getTypesForEIP712Domain({ domain: data.domain }), ...data.types },
  } as never);

function signDigest(digest: Uint8Array) {
  const sig = secp256k1.sign(digest, hexToBytes(PRIVATE_KEY.slice(2)), {
    prehash: false,
    lowS: true,
    format: 'recovered',
  });
  return formatSignature({ r: sig.slice(1, 33), s: sig.slice(33), recovery: sig[0] as 0 | 1 });
}

const K1 = 'CURVE_SECP256K1';
const NO_OP = 'HASH_FUNCTION_NO_OP';

describe('PAYLOAD_ENCODING_EIP712', () => {
  it('hashes what @turnkey/viem sends to viem hashTypedData, and the signature verifies', async () => {
    const payload = walletClientPayload(MAIL);
    const digest = prepareEip712Payload({ payload, hashFunction: NO_OP, curve: K1 });
    expect(`0x${bytesToHex(digest)}`).toBe(hashTypedData(MAIL));
    const { r, s, v } = signDigest(digest);
    // @turnkey/viem's serializeSignature: r ‖ s ‖ (v == 0 ? 1b : 1c).
    const signature = `0x${r}${s}${v === '00' ? '1b' : '1c'}` as const;
    expect(await verifyTypedData({ address: account.address, ...MAIL, signature })).toBe(true);
    expect(signature).toBe(await account.signTypedData(MAIL));
  });

  it('infers the domain types when EIP712Domain is absent, as viem does', () => {
    const payload = JSON.stringify(MAIL, (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
    expect(`0x${bytesToHex(hashTypedDataPayload(payload))}`).toBe(hashTypedData(MAIL));
  });

  it('accepts HASH_FUNCTION_NOT_APPLICABLE too, and a P-256 key', () => {
    const payload = walletClientPayload(MAIL);
    const expected = hashTypedData(MAIL).slice(2);
    for (const [curve, hashFunction] of [
      [K1, 'HASH_FUNCTION_NOT_APPLICABLE'],
      ['CURVE_P256', NO_OP],
    ] as [Curve, HashFunction][]) {
      expect(bytesToHex(prepareEip712Payload({ payload, hashFunction, curve }))).toBe(expected);
    }
  });

  it('matches viem for random messages (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 40 }),
        fc.bigInt({ min: 0n, max: (1n << 256n) - 1n }),
        fc.integer({ min: 1, max: 2 ** 31 }),
        fc.uint8Array({ minLength: 20, maxLength: 20 }),
        (contents, amount, chainId, wallet) => {
          const data = {
            ...MAIL,
            domain: { ...MAIL.domain, chainId },
            message: {
              ...MAIL.message,
              contents,
              amount,
              from: { name: contents, wallet: `0x${bytesToHex(wallet)}` },
            },
          } as unknown as typeof MAIL;
          const digest = hashTypedDataPayload(walletClientPayload(data));
          expect(`0x${bytesToHex(digest)}`).toBe(hashTypedData(data));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('gives policies eth.eip_712', () => {
    const { view } = parseTypedData(walletClientPayload(MAIL));
    expect(view).toEqual({
      primary_type: 'Mail',
      domain: {
        name: 'Ether Mail',
        version: '1',
        chain_id: 1n,
        verifying_contract: '0xcccccccccccccccccccccccccccccccccccccccc',
      },
      message: {
        from: { name: 'Cow', wallet: '0xcd2a3d9f938e13cd947ec05abc7fe734df8dd826' },
        to: [{ name: 'Bob', wallet: '0xbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb' }],
        contents: 'Hello, Bob!',
        amount: 123456789012345678901234567890n,
        tag: `0x${'ab'.repeat(32)}`,
      },
    });
  });

  it('eth.eip_712 holds only what the digest covers', () => {
    // An undeclared message member and a domain field EIP712Domain leaves out are not hashed:
    // a policy reading them would judge data the signature does not bind.
    const json = JSON.parse(walletClientPayload(MAIL));
    json.message.beneficiary = '0x0000000000000000000000000000000000000001';
    json.types.EIP712Domain = [{ name: 'name', type: 'string' }];
    const { view } = parseTypedData(JSON.stringify(json));
    expect(view.domain).toEqual({ name: 'Ether Mail' });
    expect(view.message).not.toHaveProperty('beneficiary');
    expect(view.message.contents).toBe('Hello, Bob!');
  });

  function refusal(payload: string, hashFunction: string = NO_OP, curve: string = K1) {
    try {
      prepareEip712Payload({
        payload,
        hashFunction: hashFunction as HashFunction,
        curve: curve as Curve,
      });
    } catch (error) {
      return error as { key: string; context: { reason?: string } };
    }
    throw new Error('expected a refusal');
  }

  it.each([
    ['HASH_FUNCTION_SHA256', K1, 'INVALID_HASH_FUNCTION'],
    ['HASH_FUNCTION_KECCAK256', K1, 'INVALID_HASH_FUNCTION'],
    ['HASH_FUNCTION_MD5', K1, 'INVALID_HASH_FUNCTION'],
    [NO_OP, 'CURVE_ED25519', 'INVALID_CURVE'],
    ['HASH_FUNCTION_NOT_APPLICABLE', 'CURVE_ED25519', 'INVALID_CURVE'],
    [NO_OP, 'CURVE_P384', 'INVALID_CURVE'],
  ])('%s with %s → %s', (hashFunction, curve, key) => {
    expect(refusal(walletClientPayload(MAIL), hashFunction, curve).key).toBe(key);
  });

  const mail = (patch: Record<string, unknown>) =>
    JSON.stringify({ ...JSON.parse(walletClientPayload(MAIL)), ...patch });

  it.each([
    ['not JSON', 'hello', 'JSON'],
    ['a JSON array', '[]', 'object'],
    ['no types', mail({ types: undefined }), 'types'],
    ['a malformed type', mail({ types: { Mail: [{ name: 1 }] } }), 'types.Mail'],
    ['no primaryType', mail({ primaryType: undefined }), 'primaryType'],
    ['an unknown primaryType', mail({ primaryType: 'Letter' }), 'Letter'],
    ['no message', mail({ message: undefined }), 'message'],
    ['a JSON number above 2^53', mail({ message: { ...MAIL.message, amount: 2 ** 60 } }), '2^53'],
    [
      'a wrong address',
      mail({
        message: {
          ...JSON.parse(walletClientPayload(MAIL)).message,
          from: { name: 'x', wallet: '0x12' },
        },
      }),
      'invalid',
    ],
    [
      'a bytes32 of the wrong size',
      mail({ message: { ...JSON.parse(walletClientPayload(MAIL)).message, tag: '0x1234' } }),
      'invalid',
    ],
  ])('%s → INVALID_PAYLOAD', (_name, payload, reason) => {
    const error = refusal(payload);
    expect(error.key).toBe('INVALID_PAYLOAD');
    expect(error.context.reason).toContain(reason);
  });
});

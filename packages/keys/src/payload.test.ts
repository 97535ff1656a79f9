import type { Curve, HashFunction, PayloadEncoding } from '@keyhold/protocol';
import { bytesToHex } from '@noble/hashes/utils.js';
import { hashMessage, keccak256, sha256, stringToHex, toHex } from 'viem';
import { hashAuthorization } from 'viem/utils';
import { describe, expect, it } from 'vitest';
import { preparePayload } from './payload.js';

const HEX = 'PAYLOAD_ENCODING_HEXADECIMAL';
const UTF8 = 'PAYLOAD_ENCODING_TEXT_UTF8';
const EIP712 = 'PAYLOAD_ENCODING_EIP712';
const EIP7702 = 'PAYLOAD_ENCODING_EIP7702_AUTHORIZATION';
const NO_OP = 'HASH_FUNCTION_NO_OP';
const SHA256 = 'HASH_FUNCTION_SHA256';
const KECCAK = 'HASH_FUNCTION_KECCAK256';
const NA = 'HASH_FUNCTION_NOT_APPLICABLE';
const K1 = 'CURVE_SECP256K1';
const R1 = 'CURVE_P256';
const ED = 'CURVE_ED25519';

// A 32-byte payload, so NO_OP is legal on ECDSA curves. viem computes the expected digests.
const digestHex = `0x${'a5'.repeat(32)}` as const;
const text = 'héllo, wörld ✓';
const fromHex = {
  bytes: digestHex.slice(2),
  sha256: sha256(digestHex).slice(2),
  keccak: keccak256(digestHex).slice(2),
};
const fromText = {
  bytes: stringToHex(text).slice(2),
  sha256: sha256(stringToHex(text)).slice(2),
  keccak: keccak256(stringToHex(text)).slice(2),
};

type Row = [Curve, PayloadEncoding, HashFunction, string, string];
// [curve, encoding, hash function, payload, expected hex | error key]
const table: Row[] = [
  [K1, HEX, NO_OP, digestHex, fromHex.bytes],
  [K1, HEX, SHA256, digestHex, fromHex.sha256],
  [K1, HEX, KECCAK, digestHex, fromHex.keccak],
  [K1, HEX, NA, digestHex, 'INVALID_HASH_FUNCTION'],
  [K1, UTF8, NO_OP, text, 'INVALID_PAYLOAD'],
  [K1, UTF8, SHA256, text, fromText.sha256],
  [K1, UTF8, KECCAK, text, fromText.keccak],
  [K1, UTF8, NA, text, 'INVALID_HASH_FUNCTION'],
  [K1, EIP712, NO_OP, '{}', 'INVALID_PAYLOAD'],
  [K1, EIP712, SHA256, '{}', 'INVALID_HASH_FUNCTION'],
  [K1, EIP712, KECCAK, '{}', 'INVALID_HASH_FUNCTION'],
  [K1, EIP712, NA, '{}', 'INVALID_PAYLOAD'],
  [K1, EIP7702, NO_OP, '{}', 'INVALID_PAYLOAD'],
  [K1, EIP7702, SHA256, '{}', 'INVALID_HASH_FUNCTION'],
  [K1, EIP7702, KECCAK, '{}', 'INVALID_HASH_FUNCTION'],
  [K1, EIP7702, NA, '{}', 'INVALID_PAYLOAD'],

  [R1, HEX, NO_OP, digestHex, fromHex.bytes],
  [R1, HEX, SHA256, digestHex, fromHex.sha256],
  [R1, HEX, KECCAK, digestHex, fromHex.keccak],
  [R1, HEX, NA, digestHex, 'INVALID_HASH_FUNCTION'],
  [R1, UTF8, NO_OP, text, 'INVALID_PAYLOAD'],
  [R1, UTF8, SHA256, text, fromText.sha256],
  [R1, UTF8, KECCAK, text, fromText.keccak],
  [R1, UTF8, NA, text, 'INVALID_HASH_FUNCTION'],
  [R1, EIP712, NO_OP, '{}', 'INVALID_PAYLOAD'],
  [R1, EIP712, SHA256, '{}', 'INVALID_HASH_FUNCTION'],
  [R1, EIP712, KECCAK, '{}', 'INVALID_HASH_FUNCTION'],
  [R1, EIP712, NA, '{}', 'INVALID_PAYLOAD'],
  [R1, EIP7702, NO_OP, '{}', 'INVALID_CURVE'],
  [R1, EIP7702, SHA256, '{}', 'INVALID_CURVE'],
  [R1, EIP7702, KECCAK, '{}', 'INVALID_CURVE'],
  [R1, EIP7702, NA, '{}', 'INVALID_CURVE'],

  [ED, HEX, NO_OP, digestHex, 'INVALID_HASH_FUNCTION'],
  [ED, HEX, SHA256, digestHex, 'INVALID_HASH_FUNCTION'],
  [ED, HEX, KECCAK, digestHex, 'INVALID_HASH_FUNCTION'],
  [ED, HEX, NA, digestHex, fromHex.bytes],
  [ED, UTF8, NO_OP, text, 'INVALID_HASH_FUNCTION'],
  [ED, UTF8, SHA256, text, 'INVALID_HASH_FUNCTION'],
  [ED, UTF8, KECCAK, text, 'INVALID_HASH_FUNCTION'],
  [ED, UTF8, NA, text, fromText.bytes],
  [ED, EIP712, NO_OP, '{}', 'INVALID_CURVE'],
  [ED, EIP712, SHA256, '{}', 'INVALID_CURVE'],
  [ED, EIP712, KECCAK, '{}', 'INVALID_CURVE'],
  [ED, EIP712, NA, '{}', 'INVALID_CURVE'],
  [ED, EIP7702, NO_OP, '{}', 'INVALID_CURVE'],
  [ED, EIP7702, SHA256, '{}', 'INVALID_CURVE'],
  [ED, EIP7702, KECCAK, '{}', 'INVALID_CURVE'],
  [ED, EIP7702, NA, '{}', 'INVALID_CURVE'],
];

function attempt(
  curve: Curve,
  encoding: PayloadEncoding,
  hashFunction: HashFunction,
  payload: string,
) {
  try {
    return bytesToHex(preparePayload({ payload, encoding, hashFunction, curve }));
  } catch (error) {
    return (error as { key?: string }).key ?? `unexpected ${String(error)}`;
  }
}

describe('preparePayload: every encoding × hash function × curve', () => {
  it('covers all 48 combinations', () => {
    expect(new Set(table.map(([c, e, h]) => `${c}|${e}|${h}`)).size).toBe(48);
  });

  it.each(table)('%s %s %s', (curve, encoding, hashFunction, payload, expected) => {
    expect(attempt(curve, encoding, hashFunction, payload)).toBe(expected);
  });

  it('hashes EIP-712 and EIP-7702 payloads on the server (typed-data.test.ts, eip7702.test.ts)', () => {
    const authorization = {
      address: '0x63c0c19a282a1B52b07dD5a65b58948A07DAE32B',
      chainId: 1,
      nonce: 0,
    } as const;
    expect(attempt(K1, EIP7702, NO_OP, JSON.stringify(authorization))).toBe(
      hashAuthorization(authorization).slice(2),
    );
  });
});

describe('hexadecimal payloads', () => {
  const prepare = (payload: string, hashFunction: HashFunction = SHA256) =>
    attempt(K1, HEX, hashFunction, payload);

  it('accepts 0x, 0X or no prefix, and either case', () => {
    const expected = sha256('0xdeadbeef').slice(2);
    for (const payload of ['0xdeadbeef', 'deadbeef', '0XDEADBEEF', 'DeAdBeEf']) {
      expect(prepare(payload)).toBe(expected);
    }
  });

  it.each([
    ['an odd number of digits', '0xabc', 'odd number of digits'],
    ['a non-hex character', '0xzz', 'not a hex digit'],
    ['whitespace', 'dead beef', 'not a hex digit'],
    ['a 0x in the middle', 'ab0xcd', 'not a hex digit'],
    ['nothing after 0x', '0x', 'payload is empty'],
    ['the empty string', '', 'payload is empty'],
  ])('refuses %s with INVALID_PAYLOAD', (_name, payload, reason) => {
    expect(prepare(payload)).toBe('INVALID_PAYLOAD');
    expect(() =>
      preparePayload({ payload, encoding: HEX, hashFunction: SHA256, curve: K1 }),
    ).toThrow(expect.objectContaining({ context: { reason: expect.stringContaining(reason) } }));
  });

  it.each([31, 33, 64])('refuses NO_OP with a %i-byte payload, saying why', (size) => {
    const payload = toHex(new Uint8Array(size).fill(1));
    expect(() =>
      preparePayload({ payload, encoding: HEX, hashFunction: NO_OP, curve: R1 }),
    ).toThrow(
      expect.objectContaining({
        key: 'INVALID_PAYLOAD',
        context: { reason: expect.stringContaining(`32-byte digest; got ${size} bytes`) },
      }),
    );
  });

  it("accepts what viem's signMessage sends: hashMessage hex + NO_OP", () => {
    const digest = hashMessage('hello');
    expect(prepare(digest, NO_OP)).toBe(digest.slice(2));
  });
});

describe('text payloads', () => {
  it('signs the UTF-8 bytes (ed25519 gets them as is)', () => {
    expect(attempt(ED, UTF8, NA, 'ä')).toBe('c3a4');
    expect(attempt(ED, UTF8, NA, '0xdead')).toBe(stringToHex('0xdead').slice(2));
  });

  it('refuses the empty string', () => {
    expect(attempt(ED, UTF8, NA, '')).toBe('INVALID_PAYLOAD');
  });
});

describe('unknown values', () => {
  it('refuses an unknown encoding, hash function or curve', () => {
    expect(attempt(K1, 'PAYLOAD_ENCODING_BASE64' as PayloadEncoding, SHA256, 'aa')).toBe(
      'INVALID_PAYLOAD_ENCODING',
    );
    expect(attempt(K1, HEX, 'HASH_FUNCTION_MD5' as HashFunction, 'aa')).toBe(
      'INVALID_HASH_FUNCTION',
    );
    expect(attempt('CURVE_P384' as Curve, HEX, SHA256, 'aa')).toBe('INVALID_CURVE');
  });

  it('refuses a payload that is not a string', () => {
    expect(attempt(K1, HEX, SHA256, 42 as unknown as string)).toBe('INVALID_PAYLOAD');
    expect(attempt(K1, UTF8, SHA256, null as unknown as string)).toBe('INVALID_PAYLOAD');
  });
});

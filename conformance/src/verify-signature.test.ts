import { ed25519 } from '@noble/curves/ed25519.js';
import { p256 } from '@noble/curves/nist.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  digestOf,
  eip55,
  ethereumAddressOf,
  verifyRawPayloadSignature,
} from './verify-signature.js';

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
/** Test-only encoder (the suite only ever decodes). */
function base58Encode(bytes: Uint8Array): string {
  let value = BigInt(`0x${bytesToHex(bytes) || '0'}`);
  let out = '';
  while (value > 0n) {
    out = BASE58[Number(value % 58n)] + out;
    value /= 58n;
  }
  for (const b of bytes) {
    if (b !== 0) break;
    out = `1${out}`;
  }
  return out;
}

const split = (rs: Uint8Array) => ({
  r: bytesToHex(rs.subarray(0, 32)),
  s: bytesToHex(rs.subarray(32, 64)),
});
const flip = (hex: string) => `${hex.slice(0, 63)}${hex[63] === '0' ? '1' : '0'}`;

describe('verifyRawPayloadSignature', () => {
  it('checksums Ethereum addresses as EIP-55 does', () => {
    // The EIP-55 test vectors.
    for (const address of [
      '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
      '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
      '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
    ]) {
      expect(eip55(address.toLowerCase())).toBe(address);
    }
  });

  it('accepts secp256k1 signatures (Ethereum, compressed, uncompressed) and refuses altered ones', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 64 }),
        fc.constantFrom('HASH_FUNCTION_SHA256', 'HASH_FUNCTION_KECCAK256'),
        (message, hashFunction) => {
          const secret = secp256k1.utils.randomSecretKey();
          const digest = digestOf(message, hashFunction);
          const sig = secp256k1.sign(digest, secret, { prehash: false, format: 'recovered' });
          const signature = { ...split(sig.subarray(1)), v: sig[0] === 1 ? '01' : '00' };
          const uncompressed = secp256k1.getPublicKey(secret, false);
          const addresses = {
            ADDRESS_FORMAT_ETHEREUM: eip55(ethereumAddressOf(uncompressed)),
            ADDRESS_FORMAT_COMPRESSED: bytesToHex(secp256k1.getPublicKey(secret, true)),
            ADDRESS_FORMAT_UNCOMPRESSED: bytesToHex(uncompressed),
          };
          for (const [addressFormat, address] of Object.entries(addresses)) {
            const signed = {
              curve: 'CURVE_SECP256K1' as const,
              addressFormat,
              address,
              message,
              hashFunction,
              signature,
            };
            verifyRawPayloadSignature(signed);
            const wrongV = { ...signature, v: signature.v === '00' ? '01' : '00' };
            expect(() => verifyRawPayloadSignature({ ...signed, signature: wrongV })).toThrow();
            expect(() =>
              verifyRawPayloadSignature({
                ...signed,
                signature: { ...signature, s: flip(signature.s) },
              }),
            ).toThrow();
            expect(() =>
              verifyRawPayloadSignature({ ...signed, message: Uint8Array.from([...message, 0]) }),
            ).toThrow();
          }
        },
      ),
      { numRuns: 8 },
    );
  });

  it('accepts P-256 signatures over a NO_OP digest and refuses altered ones', () => {
    const secret = p256.utils.randomSecretKey();
    const digest = digestOf(utf8ToBytes('hello'), 'HASH_FUNCTION_SHA256');
    const signature = { ...split(p256.sign(digest, secret, { prehash: false })), v: '00' };
    const signed = {
      curve: 'CURVE_P256' as const,
      addressFormat: 'ADDRESS_FORMAT_COMPRESSED',
      address: bytesToHex(p256.getPublicKey(secret, true)),
      message: digest,
      hashFunction: 'HASH_FUNCTION_NO_OP',
      signature,
    };
    verifyRawPayloadSignature(signed);
    expect(() =>
      verifyRawPayloadSignature({ ...signed, signature: { ...signature, r: flip(signature.r) } }),
    ).toThrow();
    expect(() =>
      verifyRawPayloadSignature({ ...signed, hashFunction: 'HASH_FUNCTION_SHA256' }),
    ).toThrow();
  });

  it('accepts Ed25519 signatures for Solana and hex addresses, with v "00" only', () => {
    const secret = ed25519.utils.randomSecretKey();
    const publicKey = ed25519.getPublicKey(secret);
    const message = utf8ToBytes('a Solana message');
    const signature = { ...split(ed25519.sign(message, secret)), v: '00' };
    for (const [addressFormat, address] of [
      ['ADDRESS_FORMAT_SOLANA', base58Encode(publicKey)],
      ['ADDRESS_FORMAT_COMPRESSED', bytesToHex(publicKey)],
    ] as const) {
      const signed = {
        curve: 'CURVE_ED25519' as const,
        addressFormat,
        address,
        message,
        hashFunction: 'HASH_FUNCTION_NOT_APPLICABLE',
        signature,
      };
      verifyRawPayloadSignature(signed);
      expect(() =>
        verifyRawPayloadSignature({ ...signed, signature: { ...signature, v: '01' } }),
      ).toThrow();
      expect(() =>
        verifyRawPayloadSignature({ ...signed, signature: { ...signature, s: flip(signature.s) } }),
      ).toThrow();
    }
  });

  it('refuses malformed r, s and v', () => {
    const base = {
      curve: 'CURVE_SECP256K1' as const,
      addressFormat: 'ADDRESS_FORMAT_COMPRESSED',
      address: bytesToHex(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true)),
      message: new Uint8Array(32),
      hashFunction: 'HASH_FUNCTION_NO_OP',
    };
    const r = '11'.repeat(32);
    for (const signature of [
      { r: r.slice(2), s: r, v: '00' },
      { r, s: `0x${r.slice(2)}`, v: '00' },
      { r, s: r, v: '1b' },
      { r, s: r, v: '0' },
    ]) {
      expect(() => verifyRawPayloadSignature({ ...base, signature })).toThrow();
    }
  });
});

import { ed25519 } from '@noble/curves/ed25519.js';
import { p256 } from '@noble/curves/nist.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compressPublicKey,
  decompressPublicKey,
  isValidPrivateKey,
  publicKeyFromPrivateKey,
} from './public-key.js';

const SECP_N = 'fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141';
const P256_N = 'ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551';
const ecdsa = [
  ['CURVE_SECP256K1', secp256k1, SECP_N],
  ['CURVE_P256', p256, P256_N],
] as const;
const seed48 = fc.uint8Array({ minLength: 48, maxLength: 48 });

describe('publicKeyFromPrivateKey', () => {
  it('gives a compressed key for the ECDSA curves and 32 bytes for ed25519', () => {
    const one = hexToBytes(`${'00'.repeat(31)}01`);
    // The generator points.
    expect(bytesToHex(publicKeyFromPrivateKey('CURVE_SECP256K1', one))).toBe(
      '0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798',
    );
    expect(bytesToHex(publicKeyFromPrivateKey('CURVE_P256', one))).toBe(
      '036b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296',
    );
    // RFC 8032 §7.1 TEST 1.
    expect(
      bytesToHex(
        publicKeyFromPrivateKey(
          'CURVE_ED25519',
          hexToBytes('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60'),
        ),
      ),
    ).toBe('d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a');
  });

  it.each(ecdsa)('refuses 0, n and wrong lengths on %s', (curve, _impl, n) => {
    for (const bad of [
      new Uint8Array(32),
      hexToBytes(n),
      new Uint8Array(31).fill(1),
      new Uint8Array(33).fill(1),
    ]) {
      expect(isValidPrivateKey(curve, bad)).toBe(false);
      expect(() => publicKeyFromPrivateKey(curve, bad)).toThrow(
        expect.objectContaining({ key: 'INVALID_PRIVATE_KEY' }),
      );
    }
  });

  it('accepts any 32 bytes for ed25519 and refuses other lengths', () => {
    expect(isValidPrivateKey('CURVE_ED25519', new Uint8Array(32))).toBe(true);
    expect(isValidPrivateKey('CURVE_ED25519', new Uint8Array(64))).toBe(false);
  });

  it('refuses an unknown curve', () => {
    expect(() => publicKeyFromPrivateKey('CURVE_BLS' as 'CURVE_P256', new Uint8Array(32))).toThrow(
      expect.objectContaining({ key: 'INVALID_CURVE' }),
    );
  });
});

describe('compress / decompress', () => {
  it.each(ecdsa)('round-trips on %s', (curve, impl) => {
    fc.assert(
      fc.property(seed48, (seed) => {
        const priv = impl.utils.randomSecretKey(seed);
        const compressed = impl.getPublicKey(priv, true);
        const uncompressed = impl.getPublicKey(priv, false);
        expect(bytesToHex(decompressPublicKey(curve, compressed))).toBe(bytesToHex(uncompressed));
        expect(bytesToHex(compressPublicKey(curve, uncompressed))).toBe(bytesToHex(compressed));
        expect(bytesToHex(compressPublicKey(curve, compressed))).toBe(bytesToHex(compressed));
      }),
      { numRuns: 20 },
    );
  });

  it.each(ecdsa)('refuses a non-point on %s', (curve) => {
    for (const bad of [
      new Uint8Array(33),
      new Uint8Array(65),
      Uint8Array.of(2, ...new Uint8Array(31)),
      hexToBytes(`05${'11'.repeat(32)}`),
    ]) {
      expect(() => compressPublicKey(curve, bad)).toThrow(
        expect.objectContaining({ key: 'INVALID_PUBLIC_KEY' }),
      );
      expect(() => decompressPublicKey(curve, bad)).toThrow(
        expect.objectContaining({ key: 'INVALID_PUBLIC_KEY' }),
      );
    }
  });

  it('keeps an ed25519 key as is, refuses a non-point, has no uncompressed form', () => {
    const pub = ed25519.getPublicKey(new Uint8Array(32).fill(9));
    expect(bytesToHex(compressPublicKey('CURVE_ED25519', pub))).toBe(bytesToHex(pub));
    expect(() => compressPublicKey('CURVE_ED25519', new Uint8Array(33))).toThrow(
      expect.objectContaining({ key: 'INVALID_PUBLIC_KEY' }),
    );
    // y = 2 is not the y of any ed25519 point.
    const notAPoint = new Uint8Array(32);
    notAPoint[0] = 2;
    expect(() => compressPublicKey('CURVE_ED25519', notAPoint)).toThrow(
      expect.objectContaining({ key: 'INVALID_PUBLIC_KEY' }),
    );
    expect(() => decompressPublicKey('CURVE_ED25519', pub)).toThrow(
      expect.objectContaining({ key: 'INVALID_CURVE' }),
    );
  });
});

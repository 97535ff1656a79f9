import { p256 } from '@noble/curves/nist.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BAD_HSM_SIGNATURE_MESSAGE, toRecoverableLowS } from './ecdsa-signature.js';

/** Random digests, and the edges of z: zero, and above the group order (reduced mod n). */
const digest = fc.oneof(
  fc.uint8Array({ minLength: 32, maxLength: 32 }),
  fc.constant(new Uint8Array(32)),
  fc.constant(new Uint8Array(32).fill(0xff)),
);
const keySeed = fc.uint8Array({ minLength: 48, maxLength: 48 });

describe.each([
  ['CURVE_SECP256K1', secp256k1],
  ['CURVE_P256', p256],
] as const)('toRecoverableLowS on %s', (curve, ecdsa) => {
  const n = ecdsa.Point.Fn.ORDER;

  it('turns any valid r ‖ s (high or low S) into the low-S signature with the right recovery id', () => {
    fc.assert(
      fc.property(keySeed, digest, fc.boolean(), (seed, hash, high) => {
        const secret = ecdsa.utils.randomSecretKey(seed);
        const publicKey = ecdsa.getPublicKey(secret, true);
        const expected = ecdsa.Signature.fromBytes(
          ecdsa.sign(hash, secret, { prehash: false, lowS: true, format: 'recovered' }),
          'recovered',
        );
        // What an HSM may return: the same (r, s) or its high-S twin (r, n − s).
        const s = high ? n - expected.s : expected.s;
        const raw = new ecdsa.Signature(expected.r, s).toBytes('compact');
        const result = toRecoverableLowS(curve, hash, raw, publicKey);
        expect(bytesToHex(result.r) + bytesToHex(result.s)).toBe(expected.toHex('compact'));
        expect(result.recovery).toBe(expected.recovery);
        // Against the uncompressed public key too.
        const again = toRecoverableLowS(curve, hash, raw, ecdsa.getPublicKey(secret, false));
        expect(again.recovery).toBe(expected.recovery);
      }),
      { numRuns: 30 },
    );
  });

  it('refuses a signature that does not verify under the key', () => {
    const secret = ecdsa.utils.randomSecretKey();
    const hash = new Uint8Array(32).fill(5);
    const raw = ecdsa.sign(hash, secret, { prehash: false });
    const otherKey = ecdsa.getPublicKey(ecdsa.utils.randomSecretKey(), true);
    expect(() => toRecoverableLowS(curve, hash, raw, otherKey)).toThrow(BAD_HSM_SIGNATURE_MESSAGE);
    const wrongHash = new Uint8Array(32).fill(6);
    const publicKey = ecdsa.getPublicKey(secret, true);
    expect(() => toRecoverableLowS(curve, wrongHash, raw, publicKey)).toThrow(
      BAD_HSM_SIGNATURE_MESSAGE,
    );
  });

  it('refuses r or s out of range and the wrong length', () => {
    const publicKey = ecdsa.getPublicKey(ecdsa.utils.randomSecretKey(), true);
    const hash = new Uint8Array(32).fill(1);
    for (const raw of [new Uint8Array(64), new Uint8Array(64).fill(0xff), new Uint8Array(63)]) {
      expect(() => toRecoverableLowS(curve, hash, raw, publicKey)).toThrow(
        BAD_HSM_SIGNATURE_MESSAGE,
      );
    }
  });
});

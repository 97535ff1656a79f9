/**
 * Public keys per curve, in the one encoding Keyhold stores: SEC1 compressed (33 bytes) for
 * secp256k1 and P-256, the raw 32 bytes for Ed25519. Addresses that need the other SEC1 form
 * (Ethereum, `ADDRESS_FORMAT_UNCOMPRESSED`) decompress on demand. All arithmetic is
 * @noble/curves; this file only chooses the curve and turns bad input into KeyholdErrors.
 * @module
 */
import { type Curve, KeyholdError } from '@keyhold/protocol';
import { ed25519 } from '@noble/curves/ed25519.js';
import { assertCurve, type EcdsaCurve, ecdsaOf, isEcdsaCurve } from './curves.js';

/**
 * True when `privateKey` is a usable private key of `curve`: 32 bytes, and for ECDSA curves a
 * scalar in [1, n-1].
 * @example
 * isValidPrivateKey('CURVE_SECP256K1', new Uint8Array(32)); // false (zero)
 */
export function isValidPrivateKey(curve: Curve, privateKey: Uint8Array): boolean {
  assertCurve(curve);
  if (!(privateKey instanceof Uint8Array) || privateKey.length !== 32) return false;
  return isEcdsaCurve(curve) ? ecdsaOf(curve).utils.isValidSecretKey(privateKey) : true;
}

/**
 * The public key of a private key: compressed SEC1 for secp256k1 and P-256, 32 bytes for
 * Ed25519. Refuses an invalid private key with INVALID_PRIVATE_KEY.
 * @example
 * publicKeyFromPrivateKey('CURVE_P256', privateKey).length; // 33
 */
export function publicKeyFromPrivateKey(curve: Curve, privateKey: Uint8Array): Uint8Array {
  if (!isValidPrivateKey(curve, privateKey)) {
    throw new KeyholdError('INVALID_PRIVATE_KEY', { curve });
  }
  return isEcdsaCurve(curve)
    ? ecdsaOf(curve).getPublicKey(privateKey, true)
    : ed25519.getPublicKey(privateKey);
}

/**
 * The stored form of a public key: compressed (33 bytes) for ECDSA curves, whichever SEC1 form
 * it came in; the same 32 bytes for Ed25519. Refuses bytes that are not a point of the curve
 * with INVALID_PUBLIC_KEY.
 * @example
 * compressPublicKey('CURVE_SECP256K1', uncompressed65).length; // 33
 */
export function compressPublicKey(curve: Curve, publicKey: Uint8Array): Uint8Array {
  assertCurve(curve);
  return isEcdsaCurve(curve)
    ? ecdsaPoint(curve, publicKey).toBytes(true)
    : ed25519Point(publicKey).toBytes();
}

/**
 * The uncompressed SEC1 form (`04 ‖ x ‖ y`, 65 bytes) of an ECDSA public key. Ed25519 has no
 * such form: INVALID_CURVE.
 * @example
 * decompressPublicKey('CURVE_P256', compressed33)[0]; // 4
 */
export function decompressPublicKey(curve: Curve, publicKey: Uint8Array): Uint8Array {
  assertCurve(curve);
  if (!isEcdsaCurve(curve)) {
    throw new KeyholdError('INVALID_CURVE', {
      curve,
      reason: 'ed25519 public keys have no uncompressed form',
    });
  }
  return ecdsaPoint(curve, publicKey).toBytes(false);
}

function ecdsaPoint(curve: EcdsaCurve, publicKey: Uint8Array) {
  try {
    const point = ecdsaOf(curve).Point.fromBytes(publicKey);
    point.assertValidity();
    return point;
  } catch {
    throw new KeyholdError('INVALID_PUBLIC_KEY', { curve });
  }
}

function ed25519Point(publicKey: Uint8Array) {
  try {
    if (publicKey.length !== 32) throw new Error('length');
    return ed25519.Point.fromBytes(publicKey);
  } catch {
    throw new KeyholdError('INVALID_PUBLIC_KEY', { curve: 'CURVE_ED25519' });
  }
}

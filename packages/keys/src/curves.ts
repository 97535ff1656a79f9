/**
 * The three signing curves of the wire protocol, checked once at the edge. Functions in this
 * package take a `Curve`, but values arrive from JSON at run time, so every public entry point
 * calls `assertCurve` before it switches on one: an unknown string becomes INVALID_CURVE, not a
 * fall-through.
 * @module
 */
import { CURVES, type Curve, KeyholdError } from '@keyhold/protocol';
import { p256 } from '@noble/curves/nist.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';

/** The ECDSA curves: they sign a 32-byte digest and return a recovery id. */
export type EcdsaCurve = Extract<Curve, 'CURVE_SECP256K1' | 'CURVE_P256'>;

/**
 * Refuses anything that is not one of the protocol's curves.
 * @example
 * assertCurve('CURVE_ED25519'); // ok
 * assertCurve('CURVE_P384'); // throws KeyholdError INVALID_CURVE
 */
export function assertCurve(value: unknown): asserts value is Curve {
  if (!(CURVES as readonly unknown[]).includes(value)) {
    throw new KeyholdError('INVALID_CURVE', { curve: String(value).slice(0, 64) });
  }
}

/**
 * True for secp256k1 and P-256 (ECDSA), false for Ed25519 (EdDSA).
 * @example
 * isEcdsaCurve('CURVE_P256'); // true
 */
export function isEcdsaCurve(curve: Curve): curve is EcdsaCurve {
  return curve === 'CURVE_SECP256K1' || curve === 'CURVE_P256';
}

/**
 * The @noble ECDSA implementation of an ECDSA curve (internal to the package).
 * @example
 * ecdsaOf('CURVE_SECP256K1').getPublicKey(privateKey);
 */
export function ecdsaOf(curve: EcdsaCurve): typeof secp256k1 {
  return curve === 'CURVE_SECP256K1' ? secp256k1 : p256;
}

/**
 * The SignatureVerifier port: verifies API-key stamps. The domain ships a portable @noble
 * implementation (`nobleSignatureVerifier`); the Node server binds the OpenSSL one from
 * `@keyhold/crypto-node`, which is many times faster for P-256 and Ed25519.
 *
 * Semantics every implementation must keep:
 * - `verify`, P-256 and secp256k1: ECDSA over SHA-256(message), DER signature, high-S
 *   accepted (real clients send high-S about half the time).
 * - `verify`, Ed25519: a plain Ed25519 verification of `message` (64-byte signature).
 * - `verifyDigest`: ECDSA over a digest the caller computed (32 bytes, not hashed again), DER
 *   signature, high-S accepted. Stamps whose scheme hashes with something other than SHA-256
 *   (EIP-191 `personal_sign`: keccak-256) come this way; the stamp layer computes the digest.
 * @module
 */

/** The curves of API-key stamps. */
export type StampCurve = 'p256' | 'secp256k1' | 'ed25519';

/** The curves of ECDSA stamps. */
export type EcdsaStampCurve = Exclude<StampCurve, 'ed25519'>;

/** The SignatureVerifier port: verifies the signature of an API-key stamp. */
export interface SignatureVerifier {
  /**
   * @param publicKey compressed SEC1 (33 bytes) or Ed25519 (32 bytes)
   * @param signature DER (ECDSA) or 64 raw bytes (Ed25519)
   */
  verify(
    curve: StampCurve,
    publicKey: Uint8Array,
    message: Uint8Array,
    signature: Uint8Array,
  ): Promise<boolean>;

  /**
   * @param publicKey compressed SEC1 (33 bytes)
   * @param digest the 32-byte hash that was signed
   * @param signature DER
   */
  verifyDigest(
    curve: EcdsaStampCurve,
    publicKey: Uint8Array,
    digest: Uint8Array,
    signature: Uint8Array,
  ): Promise<boolean>;
}

/** The injection token of the SignatureVerifier port. */
export const SignatureVerifier: unique symbol = Symbol.for('keyhold.SignatureVerifier');

/**
 * The notarizer: the P-256 key that signs session JWTs (wire-compat §4), the key clients pass
 * to `@turnkey/crypto`'s `verifySessionJwtSignature` as `dangerouslyOverrideNotarizerPublicKey`.
 * A port, so the key may live in memory (derived from the master key) or in an HSM, which
 * signs a digest and never hands the key out.
 * @module
 */
import { p256 } from '@noble/curves/nist.js';
import { bytesToHex } from '@noble/hashes/utils.js';

/** Signs session JWTs. */
export interface SessionNotarizer {
  /** Lower-case uncompressed SEC1 hex (`04…`, 130 characters), as clients pin it. */
  readonly publicKey: string;
  /**
   * An ECDSA P-256 signature over `digest` (32 bytes, signed as given: no further hashing), as
   * r ‖ s (64 bytes).
   */
  signDigest(digest: Uint8Array): Promise<Uint8Array>;
}

/**
 * A notarizer holding its private key in memory (32-byte P-256 scalar).
 * @example
 * const notarizer = softwareNotarizer(p256.utils.randomSecretKey());
 * notarizer.publicKey; // '04…'
 */
export function softwareNotarizer(privateKey: Uint8Array): SessionNotarizer {
  if (!(privateKey instanceof Uint8Array) || !p256.utils.isValidSecretKey(privateKey)) {
    throw new TypeError('the notarizer key is not a P-256 private key');
  }
  const key = privateKey.slice();
  return {
    publicKey: bytesToHex(p256.getPublicKey(key, false)),
    async signDigest(digest) {
      if (!(digest instanceof Uint8Array) || digest.length !== 32) {
        throw new TypeError('a notarizer signs 32-byte digests');
      }
      return p256.sign(digest, key, { prehash: false });
    },
  };
}

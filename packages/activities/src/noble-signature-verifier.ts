/**
 * The portable SignatureVerifier, on @noble/curves. Runs anywhere JavaScript does; the Node
 * server prefers the OpenSSL adapter for speed, and the two are held to the same tests.
 * @module
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import { p256 } from '@noble/curves/nist.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import type { SignatureVerifier, StampCurve } from './ports/signature-verifier.js';

const ECDSA = { p256, secp256k1 } as const;

/** Verifies stamps with @noble/curves; never throws on malformed input, answers false. */
export const nobleSignatureVerifier: SignatureVerifier = {
  async verify(curve: StampCurve, publicKey, message, signature) {
    try {
      if (curve === 'ed25519') return ed25519.verify(signature, message, publicKey);
      return ECDSA[curve].verify(signature, message, publicKey, {
        prehash: true,
        lowS: false,
        format: 'der',
      });
    } catch {
      return false;
    }
  },

  async verifyDigest(curve, publicKey, digest, signature) {
    try {
      // A digest of another length would be truncated or padded by ECDSA; refuse it instead.
      if (digest.length !== 32) return false;
      return ECDSA[curve].verify(signature, digest, publicKey, {
        prehash: false,
        lowS: false,
        format: 'der',
      });
    } catch {
      return false;
    }
  },
};

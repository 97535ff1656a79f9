/**
 * From what an HSM returns for CKM_ECDSA — raw r ‖ s, either half of the S range — to what the
 * KeyVault port promises: low-S (s ≤ n/2, as Ethereum and Bitcoin require) and a recovery id.
 *
 * A PKCS#11 token does not report the parity of R, so the recovery id is found by recovering
 * the public key from (r, s, 0) and (r, s, 1) and keeping the one that gives the key's known
 * public key. That is also a full verification: a signature that recovers to neither is refused,
 * so a faulty or substituted key cannot produce a signature under another public key.
 * @module
 */
import type { EcdsaCurve, RawSignature } from '@keyhold/keys';
import { p256 } from '@noble/curves/nist.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';

/** The message of the error for an HSM signature that does not recover the public key. */
export const BAD_HSM_SIGNATURE_MESSAGE =
  'the HSM returned an ECDSA signature that does not verify under the key';

/**
 * Normalizes a raw r ‖ s signature to low-S and attaches the recovery id that recovers
 * `publicKey` (SEC1, either form) from `digest`.
 * @example
 * const raw = pkcs11.C_Sign(session, digest, Buffer.alloc(64)); // CKM_ECDSA
 * const { r, s, recovery } = toRecoverableLowS('CURVE_SECP256K1', digest, raw, publicKey);
 */
export function toRecoverableLowS(
  curve: EcdsaCurve,
  digest: Uint8Array,
  rs: Uint8Array,
  publicKey: Uint8Array,
): RawSignature {
  const ecdsa = curve === 'CURVE_SECP256K1' ? secp256k1 : p256;
  let signature: ReturnType<typeof ecdsa.Signature.fromBytes>;
  try {
    signature = ecdsa.Signature.fromBytes(rs, 'compact'); // checks 1 ≤ r, s < n
  } catch {
    throw new Error(BAD_HSM_SIGNATURE_MESSAGE);
  }
  if (signature.hasHighS()) {
    signature = new ecdsa.Signature(signature.r, ecdsa.Point.Fn.ORDER - signature.s);
  }
  const expected = ecdsa.Point.fromBytes(publicKey);
  for (const recovery of [0, 1] as const) {
    let recovered: ReturnType<typeof ecdsa.Point.fromBytes>;
    try {
      recovered = signature.addRecoveryBit(recovery).recoverPublicKey(digest);
    } catch {
      continue; // no point with that x and parity
    }
    if (recovered.equals(expected)) {
      const compact = signature.toBytes('compact');
      return { r: compact.slice(0, 32), s: compact.slice(32, 64), recovery };
    }
  }
  // Ids 2 and 3 (r ≥ n − … , probability ~2^-128) land here too: refuse rather than mis-encode.
  throw new Error(BAD_HSM_SIGNATURE_MESSAGE);
}

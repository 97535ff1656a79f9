/**
 * From what an HSM returns for CKM_ECDSA — raw r ‖ s, either half of the S range — to what the
 * KeyVault port promises: low-S (s ≤ n/2, as Ethereum and Bitcoin require) and a recovery id.
 *
 * A PKCS#11 token does not report the parity of R, so the nonce point R is recomputed from the
 * signature and the key's known public key, as verification does (R = s⁻¹·(z·G + r·Q)); its x
 * must equal r and its y parity is the recovery id. That is a full verification: a signature
 * whose R does not have x = r is refused, so a faulty or substituted key cannot produce a
 * signature under another public key.
 * @module
 */
import type { EcdsaCurve, RawSignature } from '@keyhold/keys';
import { p256 } from '@noble/curves/nist.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToNumberBE } from '@noble/curves/utils.js';

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
  // R = s⁻¹·(z·G + r·Q) is the nonce point of the (low-S) signature: its x must be r — that is
  // the verification — and its y parity is the recovery id. One double multiplication, where
  // trying both recovery ids would cost up to two (measured by `pnpm bench:vaults`).
  // Public data only, so the variable-time multiplications verification uses are fine; they
  // also accept z = 0 (an all-zero digest).
  const { Fn } = ecdsa.Point;
  const w = Fn.inv(signature.s);
  let nonce: { x: bigint; y: bigint } | undefined;
  try {
    const key = ecdsa.Point.fromBytes(publicKey);
    nonce = ecdsa.Point.BASE.multiplyUnsafe(Fn.mul(Fn.create(bytesToNumberBE(digest)), w))
      .add(key.multiplyUnsafe(Fn.mul(signature.r, w)))
      .toAffine();
  } catch {
    nonce = undefined; // R at infinity or an invalid key: refused below
  }
  if (nonce && nonce.x === signature.r) {
    const compact = signature.toBytes('compact');
    return { r: compact.slice(0, 32), s: compact.slice(32, 64), recovery: nonce.y & 1n ? 1 : 0 };
  }
  // Ids 2 and 3 (r ≥ n − … , probability ~2^-128) land here too: refuse rather than mis-encode.
  throw new Error(BAD_HSM_SIGNATURE_MESSAGE);
}

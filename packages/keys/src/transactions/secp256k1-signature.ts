/**
 * A secp256k1 signature from the vault, made fit for a chain: low-S (EIP-2, BIP-146), with the
 * recovery id checked against the key that was meant to sign. A vault may leave `recovery` out
 * (an HSM returns r ‖ s only) or return high S; both are repaired here, so every chain module
 * gets `{r, s, recovery}` it can serialize as is. A signature that does not verify under the key
 * is a fault, not a refusal: it means the vault signed with some other key.
 * @module
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToNumberBE } from '@noble/curves/utils.js';
import type { RawSignature } from '../key-vault.js';

/** Signs a 32-byte digest (the vault's `sign`, bound to one key). */
export type DigestSigner = (message: Uint8Array) => Promise<RawSignature>;

/** A low-S secp256k1 signature with its recovery id. */
export interface RecoverableSignature {
  readonly r: bigint;
  readonly s: bigint;
  readonly recovery: 0 | 1;
}

const N = secp256k1.Point.CURVE().n;

/**
 * Signs `digest` through `sign` and returns a low-S signature whose recovery id recovers
 * `publicKey` (any SEC1 form).
 * @example
 * const { r, s, recovery } = await signRecoverable(sign, digest, compressedKey);
 */
export async function signRecoverable(
  sign: DigestSigner,
  digest: Uint8Array,
  publicKey: Uint8Array,
): Promise<RecoverableSignature> {
  const raw = await sign(digest);
  const r = bytesToNumberBE(raw.r);
  let s = bytesToNumberBE(raw.s);
  let hint: 0 | 1 | undefined = raw.recovery;
  if (s > N >> 1n) {
    // (r, n - s) is the same signature with the other parity of R.
    s = N - s;
    if (hint !== undefined) hint = hint === 0 ? 1 : 0;
  }
  const expected = secp256k1.Point.fromBytes(publicKey);
  const candidates: (0 | 1)[] = hint === undefined ? [0, 1] : [hint, hint === 0 ? 1 : 0];
  for (const recovery of candidates) {
    try {
      const recovered = new secp256k1.Signature(r, s, recovery).recoverPublicKey(digest);
      if (recovered.equals(expected)) return { r, s, recovery };
    } catch {
      // not this recovery id
    }
  }
  throw new Error('the vault signature does not verify under the signing key');
}

/**
 * DER encoding of a signature (Bitcoin's `partialSig` body, before the sighash byte).
 * @example
 * derSignature({ r, s, recovery: 0 }); // 30 44 02 20 … 02 20 …
 */
export function derSignature(signature: RecoverableSignature): Uint8Array {
  return new secp256k1.Signature(signature.r, signature.s).toBytes('der');
}

/**
 * r ‖ s as 64 bytes (zero-padded).
 * @example
 * compactSignature(signature).length; // 64
 */
export function compactSignature(signature: RecoverableSignature): Uint8Array {
  return new secp256k1.Signature(signature.r, signature.s).toBytes('compact');
}

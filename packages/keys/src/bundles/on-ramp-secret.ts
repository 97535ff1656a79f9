/**
 * The envelope `@turnkey/crypto`'s `encryptOnRampSecret` makes for a fiat on-ramp provider's
 * secret or private API key: base58check (4-byte double-SHA256 checksum) of the compressed
 * ephemeral key (33 bytes) ‖ the HPKE ciphertext — the credential bundle's format
 * (wire-compat §3.4), sealed the other way: to the server's on-ramp encryption key, whose
 * compressed public half (`onRampEncryptionPublicKey`) is the override that helper takes.
 * @module
 */
import type { KeyholdError } from '@keyhold/protocol';
import { p256 } from '@noble/curves/nist.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { createBase58check } from '@scure/base';
import { bundleError } from './encoding.js';
import { HPKE_TAG_LENGTH, hpkeOpen } from './hpke.js';

const base58check = createBase58check(sha256);
const COMPRESSED_POINT_BYTES = 33;
/** A provider's key is short (a Coinbase private key in PEM is under 300 bytes): 4 KiB bounds it. */
export const MAX_ON_RAMP_SECRET_BYTES = 4096;

/**
 * The plaintext of an `encryptOnRampSecret` envelope sealed to the public key of `privateKey`.
 * Anything else — not base58check, a bad checksum, not a P-256 point, too long, sealed to
 * another key — is refused with `toError(field, reason)`, never carrying the value.
 * @example
 * const envelope = encryptOnRampSecret('sk_test_123', onRampEncryptionPublicKey); // @turnkey/crypto
 * new TextDecoder().decode(await openOnRampSecret({ envelope, privateKey })); // 'sk_test_123'
 */
export async function openOnRampSecret(input: {
  envelope: string;
  privateKey: Uint8Array;
  field?: string;
  toError?: (field: string, reason: string) => KeyholdError;
}): Promise<Uint8Array> {
  const field = input.field ?? 'envelope';
  const toError = input.toError ?? bundleError;
  // base58 grows by log(256)/log(58) ≈ 1.37: twice the byte bound is a safe character bound.
  if (
    typeof input.envelope !== 'string' ||
    input.envelope.length > 2 * (MAX_ON_RAMP_SECRET_BYTES + 64)
  ) {
    throw toError(field, 'expected a base58check envelope of at most 4 KiB');
  }
  let bytes: Uint8Array;
  try {
    bytes = base58check.decode(input.envelope);
  } catch {
    throw toError(field, 'not base58check, or its checksum does not match');
  }
  if (bytes.length < COMPRESSED_POINT_BYTES + HPKE_TAG_LENGTH) {
    throw toError(field, 'envelope too short');
  }
  let encappedPublic: Uint8Array;
  try {
    encappedPublic = p256.Point.fromBytes(bytes.subarray(0, COMPRESSED_POINT_BYTES)).toBytes(false);
  } catch {
    throw toError(field, 'the ephemeral sender key is not a point of the P-256 curve');
  }
  try {
    return await hpkeOpen(
      { encappedPublic, ciphertext: bytes.subarray(COMPRESSED_POINT_BYTES) },
      input.privateKey,
    );
  } catch {
    throw toError(field, 'the envelope does not decrypt with this server’s on-ramp encryption key');
  }
}

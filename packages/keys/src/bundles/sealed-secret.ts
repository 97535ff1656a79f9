/**
 * A small secret sealed for storage (an OAuth 2 client secret): AES-256-GCM under a key the
 * caller derives from the master key, with associated data that binds it to its record, so a
 * sealed value copied onto another record does not open. Stored as `v1.` + base64url(nonce ‖
 * ciphertext ‖ tag); never the plaintext.
 * @module
 */
import { gcm } from '@noble/ciphers/aes.js';
import { randomBytes, utf8ToBytes } from '@noble/hashes/utils.js';

const PREFIX = 'v1.';
const NONCE_BYTES = 12;

/**
 * `plaintext` sealed under `key` (32 bytes) for the record that `aad` names.
 * @example
 * const sealed = sealSecret({ key, plaintext: utf8ToBytes('s3cret'), aad: `${orgId}/${credentialId}` });
 */
export function sealSecret(input: { key: Uint8Array; plaintext: Uint8Array; aad: string }): string {
  const nonce = randomBytes(NONCE_BYTES);
  const sealed = gcm(input.key, nonce, utf8ToBytes(input.aad)).encrypt(input.plaintext);
  const out = new Uint8Array(NONCE_BYTES + sealed.length);
  out.set(nonce, 0);
  out.set(sealed, NONCE_BYTES);
  return PREFIX + Buffer.from(out).toString('base64url');
}

/**
 * The plaintext of a value `sealSecret` made with the same key and `aad`; throws otherwise
 * (another key, another record, a changed byte).
 * @example
 * const secret = openSealedSecret({ key, sealed: record.sealedClientSecret, aad: `${orgId}/${credentialId}` });
 */
export function openSealedSecret(input: {
  key: Uint8Array;
  sealed: string;
  aad: string;
}): Uint8Array {
  if (!input.sealed.startsWith(PREFIX)) throw new Error('sealed secret: unknown format');
  const bytes = new Uint8Array(Buffer.from(input.sealed.slice(PREFIX.length), 'base64url'));
  if (bytes.length < NONCE_BYTES + 16) throw new Error('sealed secret: too short');
  return gcm(input.key, bytes.subarray(0, NONCE_BYTES), utf8ToBytes(input.aad)).decrypt(
    bytes.subarray(NONCE_BYTES),
  );
}

/**
 * The quorum-key envelope `@turnkey/crypto`'s `encryptToEnclave` makes, and so
 * `encryptOauth2ClientSecret`: hex of the borsh struct `{nonce: [u8; 12],
 * ephemeralSenderPublic: [u8; 65], encryptedMessage: Vec<u8>}` (a u32 little-endian length
 * before the message). The AES-256-GCM key is the first 32 bytes of HMAC-SHA512 keyed with
 * `ephemeralSenderPublic ‖ receiverPublic ‖ x(ECDH)` over `qos_encryption_hmac_message`; the
 * associated data is `ephemeralSenderPublic ‖ 65 ‖ receiverPublic ‖ 65` (QOS's P-256
 * encryption). Keyhold opens it with the TLS-fetcher encryption key
 * (`tlsFetcherEncryptPublicKey`), the override those helpers take.
 * @module
 */

import type { KeyholdError } from '@keyhold/protocol';
import { gcm } from '@noble/ciphers/aes.js';
import { p256 } from '@noble/curves/nist.js';
import { hmac } from '@noble/hashes/hmac.js';
import { sha512 } from '@noble/hashes/sha2.js';
import { concatBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { bundleError, decodeHex } from './encoding.js';

const NONCE_BYTES = 12;
const POINT_BYTES = 65;
const HMAC_MESSAGE = utf8ToBytes('qos_encryption_hmac_message');
/** Secrets are short (a client secret, an API key): a larger envelope is refused unread. */
export const MAX_QUORUM_ENVELOPE_BYTES = 16 * 1024;

/**
 * The plaintext of a quorum-key envelope (hex) encrypted to the public key of `privateKey`.
 * Anything that is not such an envelope, or does not decrypt with this key, is refused with
 * `toError(field, reason)` (never carrying the value).
 * @example
 * const envelope = await encryptOauth2ClientSecret('s3cret', tlsFetcherEncryptPublicKey); // @turnkey/crypto
 * new TextDecoder().decode(openQuorumEnvelope({ envelope, privateKey })); // 's3cret'
 */
export function openQuorumEnvelope(input: {
  envelope: string;
  privateKey: Uint8Array;
  field?: string;
  toError?: (field: string, reason: string) => KeyholdError;
}): Uint8Array {
  const field = input.field ?? 'envelope';
  const toError = input.toError ?? bundleError;
  if (typeof input.envelope !== 'string' || input.envelope.length > 2 * MAX_QUORUM_ENVELOPE_BYTES) {
    throw toError(field, 'expected a hex envelope of at most 16 KiB');
  }
  const bytes = decodeHex(input.envelope, field, toError);
  const headerBytes = NONCE_BYTES + POINT_BYTES + 4;
  if (bytes.length < headerBytes + 16) throw toError(field, 'envelope too short');
  const nonce = bytes.subarray(0, NONCE_BYTES);
  const senderPublic = bytes.subarray(NONCE_BYTES, NONCE_BYTES + POINT_BYTES);
  const length = new DataView(
    bytes.buffer,
    bytes.byteOffset + NONCE_BYTES + POINT_BYTES,
    4,
  ).getUint32(0, true);
  const ciphertext = bytes.subarray(headerBytes);
  if (ciphertext.length !== length) throw toError(field, 'envelope length does not match');
  const receiverPublic = p256.getPublicKey(input.privateKey, false);
  let shared: Uint8Array;
  try {
    shared = p256.getSharedSecret(input.privateKey, senderPublic, false).subarray(1, 33);
  } catch {
    throw toError(field, 'the ephemeral sender key is not a point of the P-256 curve');
  }
  const mac = hmac(sha512, concatBytes(senderPublic, receiverPublic, shared), HMAC_MESSAGE);
  const aad = concatBytes(
    senderPublic,
    Uint8Array.of(POINT_BYTES),
    receiverPublic,
    Uint8Array.of(POINT_BYTES),
  );
  try {
    return gcm(mac.subarray(0, 32), nonce, aad).decrypt(ciphertext);
  } catch {
    throw toError(field, 'the envelope does not decrypt with this server’s encryption key');
  } finally {
    mac.fill(0);
    shared.fill(0);
  }
}

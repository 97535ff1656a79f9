/**
 * The at-rest format of the software vault: AES-256-GCM (node:crypto, OpenSSL) under the master
 * key, with a fresh random 12-byte nonce per secret and the secret's purpose as additional
 * authenticated data. Binding the purpose means a sealed seed cannot be passed where a key is
 * expected, nor a secp256k1 key used as an Ed25519 one: decryption fails instead.
 *
 *   sealed = "ksw1." + base64url(nonce[12] ‖ ciphertext ‖ tag[16])
 *
 * Any failure to open (wrong master key, wrong purpose, a flipped bit, a foreign string) is the
 * same plain Error with no detail: it is an internal fault, and the message must never carry
 * secret bytes or hint at which check failed.
 * @module
 */
import { createCipheriv, createDecipheriv, type KeyObject, randomBytes } from 'node:crypto';

/** The version prefix of every sealed secret of this vault. */
export const SEALED_PREFIX = 'ksw1.';

const NONCE_LENGTH = 12;
const TAG_LENGTH = 16;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** The one error every failed open throws. */
export const OPEN_FAILED_MESSAGE = 'sealed secret could not be opened';

/**
 * Encrypts `plaintext` for `purpose` under `key` (an AES-256 secret KeyObject).
 * @example
 * const sealed = seal(key, 'keyhold/seed/v1', plaintext); // 'ksw1.…'
 */
export function seal(key: KeyObject, purpose: string, plaintext: Uint8Array): string {
  const nonce = randomBytes(NONCE_LENGTH);
  const cipher = createCipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_LENGTH });
  cipher.setAAD(Buffer.from(purpose, 'utf8'));
  const body = Buffer.concat([
    nonce,
    cipher.update(plaintext),
    cipher.final(),
    cipher.getAuthTag(),
  ]);
  return SEALED_PREFIX + body.toString('base64url');
}

/**
 * Decrypts a sealed secret for `purpose`, or throws `Error('sealed secret could not be
 * opened')`. The caller owns the returned bytes and should zero them after use.
 * @example
 * const plaintext = open(key, 'keyhold/seed/v1', sealed);
 */
export function open(key: KeyObject, purpose: string, sealed: string): Uint8Array {
  try {
    if (typeof sealed !== 'string' || !sealed.startsWith(SEALED_PREFIX)) throw new Error();
    const encoded = sealed.slice(SEALED_PREFIX.length);
    if (!BASE64URL.test(encoded)) throw new Error();
    const body = Buffer.from(encoded, 'base64url');
    if (body.length < NONCE_LENGTH + TAG_LENGTH) throw new Error();
    const nonce = body.subarray(0, NONCE_LENGTH);
    const tag = body.subarray(body.length - TAG_LENGTH);
    const decipher = createDecipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_LENGTH });
    decipher.setAAD(Buffer.from(purpose, 'utf8'));
    decipher.setAuthTag(tag);
    const head = decipher.update(body.subarray(NONCE_LENGTH, body.length - TAG_LENGTH));
    const tail = decipher.final();
    const plaintext = new Uint8Array(head.length + tail.length);
    plaintext.set(head);
    plaintext.set(tail, head.length);
    head.fill(0);
    return plaintext;
  } catch {
    throw new Error(OPEN_FAILED_MESSAGE);
  }
}

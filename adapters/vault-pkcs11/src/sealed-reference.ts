/**
 * The strings this vault hands to the Store. None of them carries plaintext secret material:
 *
 *   kp11.key.<curve>.<CKA_ID hex>          a private key generated inside the token (a reference)
 *   kp11.wrapped.<curve>.<base64url body>  a private key encrypted by the token's wrapping key
 *   kp11.seed.<base64url body>             a wallet seed encrypted by the token's wrapping key
 *
 *   body = iv[12] ‖ AES-256-GCM ciphertext ‖ tag[16]    (computed inside the HSM)
 *   <curve> = secp256k1 | p256 | ed25519
 *
 * Parsing is strict (canonical base64url, lower-case hex of the exact length); anything else is
 * the one plain `Error('sealed secret could not be opened')`, which never says which check
 * failed and never echoes the input.
 * @module
 */
import type { Curve } from '@keyhold/protocol';

/** The version prefix of every string this vault produces. */
export const SEALED_PREFIX = 'kp11.';

/** The one error every failed open throws. */
export const OPEN_FAILED_MESSAGE = 'sealed secret could not be opened';

/** Bytes of the CKA_ID of an HSM-born key. */
export const KEY_ID_LENGTH = 16;
/** Bytes of the AES-GCM IV. */
export const IV_LENGTH = 12;
/** Bytes of the AES-GCM tag. */
export const TAG_LENGTH = 16;

/** A parsed sealed string. */
export type SealedReference =
  | { readonly kind: 'key'; readonly curve: Curve; readonly id: Buffer }
  | { readonly kind: 'wrapped'; readonly curve: Curve; readonly body: Buffer }
  | { readonly kind: 'seed'; readonly body: Buffer };

const SHORT_NAMES = {
  CURVE_SECP256K1: 'secp256k1',
  CURVE_P256: 'p256',
  CURVE_ED25519: 'ed25519',
} as const satisfies Record<Curve, string>;

const CURVE_OF: Record<string, Curve> = {
  secp256k1: 'CURVE_SECP256K1',
  p256: 'CURVE_P256',
  ed25519: 'CURVE_ED25519',
};

const KEY_RE = /^kp11\.key\.(secp256k1|p256|ed25519)\.([0-9a-f]+)$/;
const WRAPPED_RE = /^kp11\.wrapped\.(secp256k1|p256|ed25519)\.([A-Za-z0-9_-]+)$/;
const SEED_RE = /^kp11\.seed\.([A-Za-z0-9_-]+)$/;

/** Throws the one open error. */
export function openFailed(): never {
  throw new Error(OPEN_FAILED_MESSAGE);
}

/**
 * The reference string of an HSM-born key.
 * @example
 * formatKeyReference('CURVE_P256', id); // 'kp11.key.p256.0f1e…'
 */
export function formatKeyReference(curve: Curve, id: Uint8Array): string {
  return `${SEALED_PREFIX}key.${SHORT_NAMES[curve]}.${Buffer.from(id).toString('hex')}`;
}

/**
 * The sealed string of a wrapped private key.
 * @example
 * formatWrappedKey('CURVE_ED25519', body); // 'kp11.wrapped.ed25519.…'
 */
export function formatWrappedKey(curve: Curve, body: Uint8Array): string {
  return `${SEALED_PREFIX}wrapped.${SHORT_NAMES[curve]}.${Buffer.from(body).toString('base64url')}`;
}

/**
 * The sealed string of a wrapped seed.
 * @example
 * formatSeed(body); // 'kp11.seed.…'
 */
export function formatSeed(body: Uint8Array): string {
  return `${SEALED_PREFIX}seed.${Buffer.from(body).toString('base64url')}`;
}

/**
 * Parses a sealed string, or throws `Error('sealed secret could not be opened')`.
 * @example
 * parseSealed('kp11.seed.…').kind; // 'seed'
 */
export function parseSealed(sealed: unknown): SealedReference {
  if (typeof sealed !== 'string' || !sealed.startsWith(SEALED_PREFIX)) openFailed();
  let match = KEY_RE.exec(sealed);
  if (match) {
    const [, curve, hex] = match as unknown as [string, string, string];
    if (hex.length !== KEY_ID_LENGTH * 2) openFailed();
    return { kind: 'key', curve: CURVE_OF[curve]!, id: Buffer.from(hex, 'hex') };
  }
  match = WRAPPED_RE.exec(sealed);
  if (match) {
    const [, curve, encoded] = match as unknown as [string, string, string];
    return { kind: 'wrapped', curve: CURVE_OF[curve]!, body: decodeBody(encoded) };
  }
  match = SEED_RE.exec(sealed);
  if (match) return { kind: 'seed', body: decodeBody(match[1]!) };
  return openFailed();
}

function decodeBody(encoded: string): Buffer {
  const body = Buffer.from(encoded, 'base64url');
  // Canonical only: the same bytes have exactly one accepted spelling.
  if (body.toString('base64url') !== encoded) openFailed();
  if (body.length <= IV_LENGTH + TAG_LENGTH) openFailed();
  return body;
}

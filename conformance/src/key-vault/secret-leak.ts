/**
 * "Sealed output never contains the secret": the encodings a secret could leak in. A sealed
 * string is text, so the secret is looked for as lower- and upper-case hex, base64 and
 * base64url; the base64 forms in each of the three alignments a secret can have inside a
 * longer encoded buffer (only the characters that depend on the secret alone are kept).
 * @module
 */
import assert from 'node:assert/strict';
import { bytesToHex } from '@noble/hashes/utils.js';

/**
 * The strings that would show `secret` inside an encoded text.
 * @example
 * secretEncodings(new Uint8Array([1, 2, 3])); // ['010203', '010203' upper, 'AQID', …]
 */
export function secretEncodings(secret: Uint8Array): string[] {
  const hex = bytesToHex(secret);
  const found = new Set([hex, hex.toUpperCase()]);
  for (let shift = 0; shift < 3; shift++) {
    const shifted = new Uint8Array(shift + secret.length);
    shifted.set(secret, shift);
    const base64 = Buffer.from(shifted).toString('base64').replace(/=+$/, '');
    // Character i carries bits [6i, 6i + 6): keep those inside the secret's bits.
    const first = Math.ceil((8 * shift) / 6);
    const end = Math.floor((8 * (shift + secret.length)) / 6);
    const inner = base64.slice(first, end);
    found.add(inner);
    found.add(inner.replaceAll('+', '-').replaceAll('/', '_'));
  }
  return [...found];
}

/**
 * Asserts that `sealed` is a string containing none of the encodings of `secret` (nor, for a
 * text secret such as a mnemonic, the text itself).
 * @example
 * assertSecretNotIn((await vault.importKey('CURVE_P256', privateKey)).key, privateKey, 'importKey');
 */
export function assertSecretNotIn(
  sealed: unknown,
  secret: Uint8Array | string,
  what: string,
): void {
  assert.equal(typeof sealed, 'string', `${what}: a sealed secret must be a string`);
  const needles =
    typeof secret === 'string' ? [secret, secret.toUpperCase()] : secretEncodings(secret);
  for (const needle of needles) {
    assert.ok(
      !(sealed as string).includes(needle),
      `${what}: the sealed string contains the secret (${needle.slice(0, 12)}…)`,
    );
  }
}

/**
 * BIP32 path strings (`m/44'/60'/0'/0/0`) parsed into child indices, strictly. A path names
 * which key of a wallet signs, so a lenient parser is a security bug: `m/44'/60'//0` or
 * `m/2147483648` must be refused, not silently reinterpreted. Ed25519 (SLIP-10) has no
 * non-hardened derivation, so every segment of an Ed25519 path must be hardened.
 * @module
 */
import { type Curve, KeyholdError } from '@keyhold/protocol';

/** 2^31: indices at or above it are hardened. */
export const HARDENED_OFFSET = 0x8000_0000;

/** The longest path string accepted (characters). */
export const MAX_PATH_LENGTH = 255;

/** The deepest path accepted: BIP32 serializes depth in one byte. */
export const MAX_PATH_DEPTH = 255;

const SEGMENT = /^(0|[1-9][0-9]{0,9})(['hH]?)$/;

/**
 * Parses a BIP32 path into child indices (hardened ones offset by 2^31). `'`, `h` and `H`
 * all mark a hardened segment; `m` alone is the master key (no indices). Refuses, with
 * INVALID_PATH: a missing `m` root, empty segments, leading zeros, signs or spaces, an index
 * ≥ 2^31, more than 255 characters or segments, and (when `curve` is Ed25519) any
 * non-hardened segment.
 * @example
 * parseDerivationPath("m/44'/60'/0'/0/0");
 * // [2147483692, 2147483708, 2147483648, 0, 0]
 * parseDerivationPath("m/44'/501'/0'/0", 'CURVE_ED25519'); // throws INVALID_PATH
 */
export function parseDerivationPath(path: string, curve?: Curve): number[] {
  if (typeof path !== 'string') refuse(String(path), 'path must be a string');
  if (path.length > MAX_PATH_LENGTH) {
    refuse(path, `path is longer than ${MAX_PATH_LENGTH} characters`);
  }
  const [root, ...segments] = path.split('/');
  if (root !== 'm') refuse(path, "path must start with 'm'");
  if (segments.length > MAX_PATH_DEPTH) refuse(path, `path is deeper than ${MAX_PATH_DEPTH}`);
  return segments.map((segment, position) => {
    const match = SEGMENT.exec(segment);
    if (!match) refuse(path, `segment ${position + 1} is not a BIP32 index`);
    const value = Number(match[1]);
    if (value >= HARDENED_OFFSET) refuse(path, `segment ${position + 1} is 2^31 or more`);
    const hardened = match[2] !== '';
    if (!hardened && curve === 'CURVE_ED25519') {
      refuse(path, `segment ${position + 1} must be hardened for ed25519 (SLIP-10)`);
    }
    return hardened ? value + HARDENED_OFFSET : value;
  });
}

/**
 * True when `index` is a hardened child index (≥ 2^31).
 * @example
 * isHardenedIndex(HARDENED_OFFSET + 44); // true
 */
export function isHardenedIndex(index: number): boolean {
  return index >= HARDENED_OFFSET;
}

/**
 * Formats child indices as a path string, hardened segments with `'`.
 * @example
 * formatDerivationPath([HARDENED_OFFSET + 44, HARDENED_OFFSET + 60, HARDENED_OFFSET, 0, 0]);
 * // "m/44'/60'/0'/0/0"
 */
export function formatDerivationPath(indices: readonly number[]): string {
  const segments = indices.map((index) => {
    if (!Number.isInteger(index) || index < 0 || index >= 2 * HARDENED_OFFSET) {
      throw new RangeError(`not a BIP32 child index: ${index}`);
    }
    return isHardenedIndex(index) ? `${index - HARDENED_OFFSET}'` : `${index}`;
  });
  return ['m', ...segments].join('/');
}

function refuse(path: string, reason: string): never {
  const shown = path.length > MAX_PATH_LENGTH ? `${path.slice(0, MAX_PATH_LENGTH)}…` : path;
  throw new KeyholdError('INVALID_PATH', { path: shown, reason });
}

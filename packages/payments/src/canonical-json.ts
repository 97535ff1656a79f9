/**
 * A JSON text that is the same for equal values whatever the order of their members: the
 * payload digest the idempotency check compares.
 * @module
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

/** `value` as JSON with every object's members in code-point order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * `sha256:` and the hex SHA-256 of `value`'s canonical JSON.
 * @example
 * canonicalDigest({ b: 1, a: 2 }) === canonicalDigest({ a: 2, b: 1 }); // true
 */
export function canonicalDigest(value: unknown): string {
  return `sha256:${bytesToHex(sha256(utf8ToBytes(canonical(value))))}`;
}

/**
 * Strict decoding of the untrusted parts of a bundle (hex strings, P-256 points, JSON), each
 * failure turned into a KeyholdError whose context names the field and the reason and never
 * carries the value: a bundle or a key is secret material or close to it.
 * @module
 */
import { KeyholdError } from '@keyhold/protocol';
import { p256 } from '@noble/curves/nist.js';
import { hexToBytes } from '@noble/hashes/utils.js';

/**
 * The refusal of a malformed or undecryptable bundle. Every such refusal goes through here so
 * that one line changes when the catalogue gains bundle-specific entries (proposed:
 * MALFORMED_BUNDLE, "malformed encrypted bundle"; BUNDLE_DECRYPTION_FAILED, "failed to decrypt
 * bundle"). Until then it is REQUEST_INVALID with `{field, reason}`.
 */
export function bundleError(field: string, reason: string): KeyholdError {
  return new KeyholdError('REQUEST_INVALID', { field, reason });
}

const HEX = /^[0-9a-fA-F]*$/u;

/**
 * The bytes of a hex string (an optional `0x` prefix, either case). `field` names the value in
 * the error; `toError` chooses the catalogue entry.
 */
export function decodeHex(
  value: unknown,
  field: string,
  toError: (field: string, reason: string) => KeyholdError = bundleError,
): Uint8Array {
  if (typeof value !== 'string') throw toError(field, 'expected a hex string');
  const digits = value.startsWith('0x') || value.startsWith('0X') ? value.slice(2) : value;
  if (digits.length % 2 !== 0 || !HEX.test(digits)) {
    throw toError(field, 'expected an even number of hex digits');
  }
  return hexToBytes(digits);
}

/**
 * The uncompressed SEC1 form (65 bytes, `04‖x‖y`) of a P-256 public key given compressed (33)
 * or uncompressed (65); refuses anything that is not a point of the curve.
 */
export function uncompressedP256(
  bytes: Uint8Array,
  field: string,
  toError: (field: string, reason: string) => KeyholdError = bundleError,
): Uint8Array {
  if (bytes.length !== 33 && bytes.length !== 65) {
    throw toError(field, 'expected a P-256 public key, compressed (33 bytes) or uncompressed (65)');
  }
  try {
    const point = p256.Point.fromBytes(bytes);
    point.assertValidity();
    return point.toBytes(false);
  } catch {
    throw toError(field, 'not a point of the P-256 curve');
  }
}

/** INVALID_PUBLIC_KEY for a target key the client sent ("invalid public key"). */
export function invalidPublicKey(field: string, reason: string): KeyholdError {
  return new KeyholdError('INVALID_PUBLIC_KEY', { field, curve: 'CURVE_P256', reason });
}

/** A JSON object parsed from a string, or a bundle error. */
export function parseJsonObject(value: unknown, field: string): Record<string, unknown> {
  if (typeof value !== 'string') throw bundleError(field, 'expected a JSON string');
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw bundleError(field, 'not valid JSON');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw bundleError(field, 'expected a JSON object');
  }
  return parsed as Record<string, unknown>;
}

/** Refuses an identifier the client checks for truthiness: a fault of the caller, not input. */
export function assertIdentifier(value: unknown, name: string): asserts value is string {
  if (typeof value !== 'string' || value.length === 0) {
    throw new TypeError(`${name} must be a non-empty string`);
  }
}

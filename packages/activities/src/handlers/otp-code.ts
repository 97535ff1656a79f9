/**
 * One-time codes: how they are made, normalized and kept. A code is numeric or Crockford
 * base32 (the alphabet without I, L, O, U), 6 to 9 characters, drawn uniformly from a CSPRNG.
 * It is stored only as an HMAC-SHA256 under a key derived from the TLS-fetcher key (HKDF, its
 * own label), bound to the OTP's id, and compared in constant time.
 * @module
 */

import { timingSafeEqual } from 'node:crypto';
import { KeyholdError } from '@keyhold/protocol';
import { hkdf } from '@noble/hashes/hkdf.js';
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, randomBytes, utf8ToBytes } from '@noble/hashes/utils.js';

/** Crockford's base32 alphabet. */
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** A code's length when the request names none (Turnkey's default). */
export const DEFAULT_OTP_LENGTH = 9;
/** A code's lifetime when the request names none, and the most it may ask for (seconds). */
export const DEFAULT_OTP_SECONDS = 300;
export const MAX_OTP_SECONDS = 600;
/** A verification token's lifetime by default, and at most (seconds). */
export const DEFAULT_VERIFICATION_TOKEN_SECONDS = 3600;
export const MAX_VERIFICATION_TOKEN_SECONDS = 86_400;
/** Wrong codes after which a code is burned. */
export const MAX_OTP_ATTEMPTS = 3;

/**
 * The length a request asks for, checked (6–9).
 * @throws KeyholdError INVALID_OTP_LENGTH
 */
export function otpLength(requested: number | undefined): number {
  const length = requested ?? DEFAULT_OTP_LENGTH;
  if (!Number.isInteger(length) || length < 6 || length > 9) {
    throw new KeyholdError('INVALID_OTP_LENGTH', { otpLength: requested });
  }
  return length;
}

/**
 * A lifetime in seconds a request asks for, checked against [1, max].
 * @throws KeyholdError of `error`
 */
export function boundedSeconds(
  requested: string | undefined,
  fallback: number,
  max: number,
  error: 'INVALID_OTP_EXPIRATION' | 'INVALID_VERIFICATION_TOKEN_EXPIRATION',
): number {
  if (requested === undefined) return fallback;
  const seconds = Number(requested);
  if (!Number.isSafeInteger(seconds) || seconds < 1 || seconds > max) {
    throw new KeyholdError(error, { expirationSeconds: requested });
  }
  return seconds;
}

/** A fresh code: numeric, or Crockford base32 when `alphanumeric`. */
export function generateOtpCode(length: number, alphanumeric: boolean): string {
  let code = '';
  while (code.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (code.length === length) break;
      if (alphanumeric) code += CROCKFORD[byte & 31];
      // 250 = 25 × 10: bytes above it are dropped so every digit is equally likely.
      else if (byte < 250) code += String(byte % 10);
    }
  }
  return code;
}

/**
 * A code as a user typed it, in the form it was made: trimmed, upper case, and Crockford's
 * look-alikes read as digits (O as 0, I and L as 1).
 */
export function normalizeOtpCode(code: string): string {
  return code.trim().toUpperCase().replace(/O/g, '0').replace(/[IL]/g, '1');
}

/** The key codes are MACed under, derived from the TLS-fetcher key. */
export function otpMacKey(tlsFetcherKey: Uint8Array): Uint8Array {
  return hkdf(
    sha256,
    tlsFetcherKey,
    utf8ToBytes('keyhold'),
    utf8ToBytes('keyhold/otp-code-mac/v1'),
    32,
  );
}

/** The stored form of a code: hex HMAC-SHA256 over `otpId:code`. */
export function otpCodeMac(key: Uint8Array, otpId: string, code: string): string {
  return bytesToHex(hmac(sha256, key, utf8ToBytes(`${otpId}:${normalizeOtpCode(code)}`)));
}

/** Whether `code` is the code whose MAC is `storedMac`, in constant time. */
export function otpCodeMatches(
  key: Uint8Array,
  otpId: string,
  code: string,
  storedMac: string,
): boolean {
  const candidate = Buffer.from(otpCodeMac(key, otpId, code), 'hex');
  const stored = Buffer.from(storedMac, 'hex');
  return candidate.length === stored.length && timingSafeEqual(candidate, stored);
}

/** Marks a code's MAC where an activity's stored parameters would hold the code. */
const STORED_CODE_PREFIX = 'hmac-sha256:';

/**
 * A code as an activity's stored parameters keep it: its MAC, marked. A marked value submitted
 * as a code is itself MACed, so the stored form is never accepted from the wire.
 * @example
 * storedOtpCode(key, otpId, '123456'); // 'hmac-sha256:9f…'
 */
export function storedOtpCode(key: Uint8Array, otpId: string, code: string): string {
  return `${STORED_CODE_PREFIX}${otpCodeMac(key, otpId, code)}`;
}

/**
 * Whether a stored parameter (see `storedOtpCode`; a bare code from a record kept before the
 * stored form existed) is the code whose MAC is `storedMac`, in constant time.
 * @example
 * storedOtpCodeMatches(key, otpId, storedOtpCode(key, otpId, code), otp.codeMac); // true
 */
export function storedOtpCodeMatches(
  key: Uint8Array,
  otpId: string,
  stored: string,
  storedMac: string,
): boolean {
  if (!stored.startsWith(STORED_CODE_PREFIX)) return otpCodeMatches(key, otpId, stored, storedMac);
  const candidate = Buffer.from(stored.slice(STORED_CODE_PREFIX.length), 'hex');
  const expected = Buffer.from(storedMac, 'hex');
  return candidate.length === expected.length && timingSafeEqual(candidate, expected);
}

/**
 * A contact as it is compared and stored: an email address lower-cased, a phone number
 * without spaces, dashes, dots or parentheses.
 * @throws KeyholdError INVALID_CONTACT for an address without `@` or a number that is not one
 */
export function normalizeContact(otpType: string, contact: string): string {
  const trimmed = contact.trim();
  if (otpType === 'OTP_TYPE_EMAIL') {
    if (!/^[^\s@]+@[^\s@]+$/.test(trimmed)) {
      throw new KeyholdError('INVALID_CONTACT', { reason: 'not an email address' });
    }
    return trimmed.toLowerCase();
  }
  const number = trimmed.replace(/[\s().-]/g, '');
  if (!/^\+?[0-9]{5,16}$/.test(number)) {
    throw new KeyholdError('INVALID_CONTACT', { reason: 'not a phone number' });
  }
  return number;
}

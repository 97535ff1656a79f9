/**
 * One-time codes (fast-check): every code has the asked length and alphabet; a code matches
 * its own MAC — as typed, in any case, with Crockford's look-alikes — and no other code's, nor
 * the same code under another OTP id or another key; lengths and lifetimes outside the rules
 * are the catalogue's refusals.
 */
import { isKeyholdError } from '@keyhold/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  boundedSeconds,
  generateOtpCode,
  normalizeContact,
  normalizeOtpCode,
  otpCodeMac,
  otpCodeMatches,
  otpLength,
  otpMacKey,
  storedOtpCode,
  storedOtpCodeMatches,
} from './otp-code.js';

const errorOf = (f: () => unknown) => {
  try {
    f();
  } catch (error) {
    return isKeyholdError(error) ? error.key : String(error);
  }
  return undefined;
};

const key = otpMacKey(new Uint8Array(32).fill(7));

describe('one-time codes', () => {
  it('property: a code has the length and alphabet asked for', () => {
    fc.assert(
      fc.property(fc.integer({ min: 6, max: 9 }), fc.boolean(), (length, alphanumeric) => {
        const code = generateOtpCode(length, alphanumeric);
        expect(code).toHaveLength(length);
        expect(code).toMatch(alphanumeric ? /^[0-9A-HJKMNP-TV-Z]+$/ : /^[0-9]+$/);
      }),
      { numRuns: 200 },
    );
  });

  it('property: a code matches its MAC as typed, and nothing else does', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 6, max: 9 }),
        fc.uuid(),
        fc.uuid(),
        fc.string({ minLength: 1, maxLength: 12 }),
        (length, otpId, otherId, guess) => {
          const code = generateOtpCode(length, true);
          const mac = otpCodeMac(key, otpId, code);
          expect(mac).toMatch(/^[0-9a-f]{64}$/);
          expect(otpCodeMatches(key, otpId, code, mac)).toBe(true);
          expect(otpCodeMatches(key, otpId, ` ${code.toLowerCase()} `, mac)).toBe(true);
          if (normalizeOtpCode(guess) !== code) {
            expect(otpCodeMatches(key, otpId, guess, mac)).toBe(false);
          }
          if (otherId !== otpId) expect(otpCodeMatches(key, otherId, code, mac)).toBe(false);
          const otherKey = otpMacKey(new Uint8Array(32).fill(8));
          expect(otpCodeMatches(otherKey, otpId, code, mac)).toBe(false);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('property: the stored form of a code is its MAC, matches, and is never taken for one', () => {
    fc.assert(
      fc.property(fc.integer({ min: 6, max: 9 }), fc.uuid(), (length, otpId) => {
        const code = generateOtpCode(length, true);
        const mac = otpCodeMac(key, otpId, code);
        const stored = storedOtpCode(key, otpId, code);
        expect(stored).toBe(`hmac-sha256:${mac}`);
        expect(storedOtpCodeMatches(key, otpId, stored, mac)).toBe(true);
        // A record kept before the stored form: the bare code still matches.
        expect(storedOtpCodeMatches(key, otpId, code, mac)).toBe(true);
        // Whoever reads the MAC and submits it marked as a code gets it MACed again.
        expect(storedOtpCodeMatches(key, otpId, storedOtpCode(key, otpId, stored), mac)).toBe(
          false,
        );
        expect(storedOtpCodeMatches(key, otpId, `hmac-sha256:${'0'.repeat(64)}`, mac)).toBe(false);
      }),
      { numRuns: 100 },
    );
  });

  it("reads Crockford's look-alikes as digits", () => {
    expect(normalizeOtpCode(' o1l-i ')).toBe('011-1');
    expect(normalizeOtpCode('abc')).toBe('ABC');
  });

  it('refuses lengths outside 6–9 and lifetimes outside [1, max]', () => {
    expect(otpLength(undefined)).toBe(9);
    expect([5, 10, 6.5].map((n) => errorOf(() => otpLength(n)))).toEqual([
      'INVALID_OTP_LENGTH',
      'INVALID_OTP_LENGTH',
      'INVALID_OTP_LENGTH',
    ]);
    expect(boundedSeconds(undefined, 300, 600, 'INVALID_OTP_EXPIRATION')).toBe(300);
    expect(boundedSeconds('600', 300, 600, 'INVALID_OTP_EXPIRATION')).toBe(600);
    for (const bad of ['0', '601', '1e3']) {
      expect(errorOf(() => boundedSeconds(bad, 300, 600, 'INVALID_OTP_EXPIRATION'))).toBe(
        'INVALID_OTP_EXPIRATION',
      );
    }
  });

  it('normalizes contacts: emails lower-cased, phone numbers bare', () => {
    expect(normalizeContact('OTP_TYPE_EMAIL', ' Alice@Example.COM ')).toBe('alice@example.com');
    expect(normalizeContact('OTP_TYPE_SMS', '+1 (555) 555-0100')).toBe('+15555550100');
    expect(errorOf(() => normalizeContact('OTP_TYPE_EMAIL', 'alice'))).toBe('INVALID_CONTACT');
    expect(errorOf(() => normalizeContact('OTP_TYPE_SMS', 'call me'))).toBe('INVALID_CONTACT');
  });
});

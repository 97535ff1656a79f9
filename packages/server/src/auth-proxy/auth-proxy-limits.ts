/**
 * The auth proxy's rate limits: it is public and unstamped, so what it sends (mail, SMS) and
 * what it computes is metered by what a caller controls — its address and the contact it
 * names — through the RateLimiter port (memory or Redis, shared by all instances).
 * @module
 */
import type { RateLimiter, RateLimitRule } from '@keyhold/activities';
import { KeyholdError } from '@keyhold/protocol';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

/**
 * The limits, per bucket.
 * @example
 * const strict: AuthProxyLimits = { ...DEFAULT_AUTH_PROXY_LIMITS, otpPerContact: { limit: 1, periodMs: 60_000 } };
 */
export interface AuthProxyLimits {
  /** Codes sent to one contact of one organization (Turnkey's: 3 per 3 minutes). */
  otpPerContact: RateLimitRule;
  /** Codes one client address may have sent, to any contact. */
  otpPerAddress: RateLimitRule;
  /** Sign-ups (new sub-organizations) one client address may make. */
  signupsPerAddress: RateLimitRule;
  /** Every proxy request of one client address. */
  requestsPerAddress: RateLimitRule;
}

export const DEFAULT_AUTH_PROXY_LIMITS: AuthProxyLimits = {
  otpPerContact: { limit: 3, periodMs: 180_000 },
  otpPerAddress: { limit: 10, periodMs: 600_000 },
  signupsPerAddress: { limit: 10, periodMs: 3_600_000 },
  requestsPerAddress: { limit: 60, periodMs: 60_000 },
};

/** A bucket key that names no contact: the limiter (Redis) never holds an address in the clear. */
const hashed = (value: string) => bytesToHex(sha256(utf8ToBytes(value))).slice(0, 32);

/**
 * Takes from the buckets; refuses with `refusal` (and the wait) when one is empty.
 * @throws KeyholdError
 */
async function takeAll(
  limiter: RateLimiter,
  takes: readonly (readonly [string, RateLimitRule])[],
  refusal: 'MAX_OTPS_INITIATED' | 'AUTH_PROXY_RATE_LIMITED',
): Promise<void> {
  for (const [key, rule] of takes) {
    const decision = await limiter.take(key, rule);
    if (!decision.allowed) {
      throw new KeyholdError(refusal, {
        retryAfterSeconds: Math.ceil(decision.retryAfterMs / 1000),
      });
    }
  }
}

/**
 * Meters one bucket of a client address (in-process calls have none and are not metered here).
 * @throws KeyholdError AUTH_PROXY_RATE_LIMITED
 */
function meterAddress(
  limiter: RateLimiter,
  bucket: 'req' | 'signup',
  rule: RateLimitRule,
  address: string | undefined,
): Promise<void> {
  if (address === undefined) return Promise.resolve();
  return takeAll(
    limiter,
    [[`auth-proxy:${bucket}:ip:${address}`, rule]],
    'AUTH_PROXY_RATE_LIMITED',
  );
}

/**
 * Meters a proxy request by its client address (in-process calls have none and are not metered
 * here).
 * @throws KeyholdError AUTH_PROXY_RATE_LIMITED
 */
export function meterRequest(
  limiter: RateLimiter,
  limits: AuthProxyLimits,
  address: string | undefined,
): Promise<void> {
  return meterAddress(limiter, 'req', limits.requestsPerAddress, address);
}

/**
 * Meters a code about to be sent, per contact (in its organization) and per client address.
 * @throws KeyholdError MAX_OTPS_INITIATED (the text `@turnkey/core` matches)
 */
export function meterOtpSend(
  limiter: RateLimiter,
  limits: AuthProxyLimits,
  organizationId: string,
  contact: string,
  address: string | undefined,
): Promise<void> {
  const takes: [string, RateLimitRule][] = [
    [`auth-proxy:otp:contact:${hashed(`${organizationId}\n${contact}`)}`, limits.otpPerContact],
  ];
  if (address !== undefined) takes.push([`auth-proxy:otp:ip:${address}`, limits.otpPerAddress]);
  return takeAll(limiter, takes, 'MAX_OTPS_INITIATED');
}

/**
 * Meters a sign-up by its client address: a passkey or wallet sign-up needs no code, and each
 * makes a sub-organization.
 * @throws KeyholdError AUTH_PROXY_RATE_LIMITED
 */
export function meterSignup(
  limiter: RateLimiter,
  limits: AuthProxyLimits,
  address: string | undefined,
): Promise<void> {
  return meterAddress(limiter, 'signup', limits.signupsPerAddress, address);
}

/**
 * Which rule meters each lane in each scope. The defaults start from Turnkey's published
 * limit, 60 requests per second counted per IP address and per organization, applied to every
 * lane (numbers and bucket sizes are not in the spec), and the same again per user, so the
 * user scope changes nothing until an operator lowers it (to keep one user of a busy
 * organization from spending its whole budget). Operators override any of them.
 * @module
 */
import type { RateLimitRule } from '../ports/rate-limiter.js';
import { normalizeRule } from './gcra.js';
import { RATE_LIMIT_LANES, type RateLimitLane } from './lanes.js';
import { RATE_LIMIT_SCOPES, type RateLimitScope } from './scopes.js';

/**
 * A rule per lane and scope; `false` leaves that scope of that lane unmetered.
 * @example
 * const rule = DEFAULT_RATE_LIMITS.query.ip; // { limit: 60, periodMs: 1000, burst: 60 }
 */
export type RateLimitRules = {
  readonly [L in RateLimitLane]: { readonly [S in RateLimitScope]: RateLimitRule | false };
};

/**
 * Overrides of some rules; what is left out keeps its default.
 * @example
 * const overrides: RateLimitOverrides = { query: { ip: false }, activity: { organization: { limit: 20, periodMs: 1000 } } };
 */
export type RateLimitOverrides = {
  readonly [L in RateLimitLane]?: { readonly [S in RateLimitScope]?: RateLimitRule | false };
};

/**
 * 60 per second with a bucket of 60, per IP, per user and per organization, in every lane.
 * In the `chain_expensive` lane a unit is an account created or a payload signed, not a
 * request (see `activityCost`).
 * @example
 * DEFAULT_RATE_LIMITS.activity.organization; // { limit: 60, periodMs: 1000, burst: 60 }
 */
export const DEFAULT_RATE_LIMITS: RateLimitRules = (() => {
  const rule: RateLimitRule = { limit: 60, periodMs: 1000, burst: 60 };
  const lane = { ip: rule, user: rule, organization: rule };
  return { query: lane, activity: lane, chain_expensive: lane };
})();

/**
 * The defaults with `overrides` applied, every rule checked (a RangeError names the bad one).
 * @example
 * const rules = rateLimitRules({ chain_expensive: { organization: { limit: 10, periodMs: 1000 } } });
 */
export function rateLimitRules(
  overrides: RateLimitOverrides = {},
  base: RateLimitRules = DEFAULT_RATE_LIMITS,
): RateLimitRules {
  const out = {} as { [L in RateLimitLane]: { [S in RateLimitScope]: RateLimitRule | false } };
  for (const lane of RATE_LIMIT_LANES) {
    out[lane] = { ...base[lane] };
    for (const scope of RATE_LIMIT_SCOPES) {
      const rule = overrides[lane]?.[scope];
      if (rule === undefined) continue;
      if (rule !== false) {
        try {
          normalizeRule(rule);
        } catch (error) {
          throw new RangeError(`${lane}.${scope}: ${(error as Error).message}`);
        }
      }
      out[lane][scope] = rule;
    }
  }
  return out;
}

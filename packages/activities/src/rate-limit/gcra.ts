/**
 * GCRA (the generic cell rate algorithm), the reference model of the RateLimiter port. A
 * bucket's state is its theoretical arrival time (TAT): the instant the bucket will be full
 * again. A take of `cost` pushes the TAT `cost × emission` later, and is admitted while the
 * TAT stays within `burst × emission` of now. A take larger than the bucket (`cost > burst`,
 * e.g. a request creating 100 accounts against a bucket of 60) is admitted only from a full
 * bucket and leaves it in debt beyond its size: the key then waits exactly as long as the
 * tokens it took take to refill, so weighted requests are metered at their full cost and are
 * never refused for their size alone. O(1) work, no timers — which is why the memory
 * adapter and the Redis Lua script compute the same thing, and the contract compares both
 * with this function.
 *
 * The TAT is held as `at + debtMs` (the last admitted take's instant, and how far beyond it
 * the TAT lay), never as one epoch-millisecond double: adding a fractional emission interval
 * to a number near 1.7e12 rounds the same way every time, and a burst of a thousand takes in
 * one instant would drift a tenth of a millisecond. Small debts add exactly enough.
 * @module
 */
import type { RateLimitDecision, RateLimitRule } from '../ports/rate-limiter.js';

/**
 * Slack for floating-point noise, in milliseconds: comparisons and roundings allow 1 µs, so
 * a take is never refused (or told to wait a millisecond more) for a rounding error. The price
 * is that a take 1 µs early is admitted. The Redis script uses the same value.
 * @example
 * redis.evalsha(sha, 1, key, String(emissionMs), String(burst), String(cost), String(GCRA_SLACK_MS), '');
 */
export const GCRA_SLACK_MS = 1e-3;

/**
 * A rule with its defaults filled in and its emission interval computed.
 * @example
 * const { burst, emissionMs }: NormalizedRule = normalizeRule({ limit: 4, periodMs: 1000 });
 */
export interface NormalizedRule {
  limit: number;
  periodMs: number;
  burst: number;
  /** Milliseconds per token: `periodMs / limit`. */
  emissionMs: number;
}

/**
 * Checks a rule and a cost, and fills in the defaults. Throws a RangeError for a rule that
 * means nothing (zero limit, non-integers) or a cost that is not a whole number of tokens.
 * A cost above the burst is valid: it is admitted from a full bucket (see `gcra`).
 * @example
 * normalizeRule({ limit: 60, periodMs: 1000 }, 1); // { limit: 60, periodMs: 1000, burst: 60, emissionMs: 16.67 }
 */
export function normalizeRule(rule: RateLimitRule, cost = 1): NormalizedRule {
  const { limit, periodMs } = rule;
  const burst = rule.burst ?? limit;
  if (!Number.isSafeInteger(limit) || limit < 1)
    throw new RangeError(`rate limit: limit must be an integer ≥ 1, got ${limit}`);
  if (!Number.isFinite(periodMs) || periodMs <= 0)
    throw new RangeError(`rate limit: periodMs must be a positive number, got ${periodMs}`);
  if (!Number.isSafeInteger(burst) || burst < 1)
    throw new RangeError(`rate limit: burst must be an integer ≥ 1, got ${burst}`);
  if (!Number.isSafeInteger(cost) || cost < 1)
    throw new RangeError(`rate limit: cost must be an integer ≥ 1, got ${cost}`);
  return { limit, periodMs, burst, emissionMs: periodMs / limit };
}

/**
 * A bucket's state: its TAT is `at + debtMs`.
 * @example
 * const state: GcraState = { at: Date.now(), debtMs: 250 }; // full again in 250 ms
 */
export interface GcraState {
  /** When the last admitted take happened (epoch ms). */
  at: number;
  /** How long after `at` the bucket was to be full again. */
  debtMs: number;
}

/**
 * The outcome of one take: the decision, and the key's state afterwards.
 * @example
 * const { decision, state }: GcraStep = gcra(states.get(key), rule, 1, now);
 * if (decision.allowed) states.set(key, state);
 */
export interface GcraStep {
  decision: RateLimitDecision;
  /** The new state; `undefined` when the key held none and the take was refused. */
  state: GcraState | undefined;
}

const ceilMs = (ms: number) => Math.max(0, Math.ceil(ms - GCRA_SLACK_MS));
const tokens = (ms: number, emissionMs: number) =>
  Math.max(0, Math.floor((ms + GCRA_SLACK_MS) / emissionMs));

/**
 * One take against a key in `state` (undefined for a key never seen, or forgotten), at
 * `nowMs`. Pure: the caller stores the returned state. A take of at most `burst` tokens waits
 * until the bucket holds them; a larger one waits until the bucket is full, then drives it
 * into debt (`remaining` 0, `resetMs` beyond the bucket's size).
 * @example
 * const rule = { limit: 2, periodMs: 1000 };
 * const first = gcra(undefined, rule, 1, 0); // allowed, remaining 1
 * gcra(first.state, rule, 2, 0).decision.retryAfterMs; // 500
 * gcra(undefined, rule, 5, 0).decision.resetMs; // 2500: admitted from a full bucket, in debt
 */
export function gcra(
  state: GcraState | undefined,
  rule: RateLimitRule,
  cost: number,
  nowMs: number,
): GcraStep {
  const { burst, emissionMs } = normalizeRule(rule, cost);
  const toleranceMs = burst * emissionMs;
  // Time until the bucket is full; a TAT in the past is a full bucket.
  const debt = state === undefined ? 0 : Math.max(0, state.debtMs - (nowMs - state.at));
  const next = debt + cost * emissionMs;
  // No wait could make room for more than the bucket holds: such a take waits for a full
  // bucket instead, so its wait is the current debt.
  const waitMs = cost > burst ? debt : next - toleranceMs;
  if (waitMs > GCRA_SLACK_MS) {
    return {
      state,
      decision: {
        allowed: false,
        limit: burst,
        remaining: tokens(toleranceMs - debt, emissionMs),
        resetMs: ceilMs(debt),
        retryAfterMs: Math.max(1, ceilMs(waitMs)),
      },
    };
  }
  return {
    state: { at: nowMs, debtMs: next },
    decision: {
      allowed: true,
      limit: burst,
      remaining: tokens(toleranceMs - next, emissionMs),
      resetMs: ceilMs(next),
      retryAfterMs: 0,
    },
  };
}

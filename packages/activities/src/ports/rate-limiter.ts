/**
 * The RateLimiter port: one bucket per key, taken from atomically. Keyhold asks it twice per
 * request (see `rate-limit/request-admission.ts`): for the client address before anything
 * else, so a flood costs one bucket lookup per request, and for the user and organization
 * once the stamp has verified, with the request's cost.
 *
 * Semantics (GCRA, the reference model is `gcra()` in `rate-limit/gcra.ts`): a rule
 * `{limit, periodMs, burst}` refills `limit` tokens every `periodMs`, evenly, into a bucket of
 * `burst` tokens (default `limit`); a take of `cost` tokens is admitted when the bucket holds
 * them, and a refused take consumes nothing. A take of more than `burst` tokens is admitted
 * only from a full bucket and leaves it in debt (the key waits `cost × periodMs / limit` from
 * then before the bucket is full again). So a quiet key admits `burst` at once, and in any
 * window of `periodMs` no key admits more than `limit + max(burst, largest cost)`.
 * @module
 */
import { PortError, portErrorCodeOf } from './port-error.js';

/**
 * How fast a bucket refills and how much it holds.
 * @example
 * const turnkeyLike: RateLimitRule = { limit: 60, periodMs: 1000 }; // 60/s, a bucket of 60
 */
export interface RateLimitRule {
  /** Tokens added per `periodMs`, evenly spread (one every `periodMs / limit`). Integer ≥ 1. */
  limit: number;
  /** The period `limit` applies to, in milliseconds. */
  periodMs: number;
  /** The bucket's size: how many tokens a quiet key may take at once. Default `limit`. */
  burst?: number;
}

/**
 * The answer to one take. Times are whole milliseconds, rounded up.
 * @example
 * const refused: RateLimitDecision = { allowed: false, limit: 60, remaining: 0, resetMs: 1000, retryAfterMs: 17 };
 */
export interface RateLimitDecision {
  allowed: boolean;
  /** The bucket's size (the rule's `burst`): the most a quiet key may take at once. */
  limit: number;
  /** Tokens left after this take (if refused: tokens available now, fewer than the cost). */
  remaining: number;
  /** Time until the bucket is full again. */
  resetMs: number;
  /** Refused: time until the same take would be admitted. Admitted: 0. */
  retryAfterMs: number;
}

/**
 * Buckets keyed by opaque strings. Implementations must be atomic per key: concurrent takes
 * never admit more than one sequential order of them would.
 * @example
 * const decision = await limiter.take('query:ip:203.0.113.7', { limit: 60, periodMs: 1000 });
 * if (!decision.allowed) reply429(decision.retryAfterMs);
 */
export interface RateLimiter {
  /**
   * Takes `cost` tokens (default 1, an integer ≥ 1; above the rule's burst it waits for a
   * full bucket) from the bucket `key`. Rejects with RateLimiterUnavailableError when the
   * backend cannot answer, and with a RangeError for a rule or cost that means nothing.
   */
  take(key: string, rule: RateLimitRule, cost?: number): Promise<RateLimitDecision>;
  /** Resolves when the backend answers; rejects with RateLimiterUnavailableError otherwise. */
  ping?(): Promise<void>;
  /** Releases connections. A closed limiter must not be used again. */
  close?(): Promise<void>;
}

/**
 * The inversify service identifier of the RateLimiter port.
 * @example
 * container.bind(RateLimiter).toConstantValue(new MemoryRateLimiter());
 */
export const RateLimiter: unique symbol = Symbol.for('keyhold.RateLimiter');

/**
 * The limiter's backend cannot be reached (Redis down, a timeout). Requests answer 503 with
 * `Retry-After: 1`: refusing is safer than admitting an unmetered flood. Code
 * `RATE_LIMIT_BACKEND_UNAVAILABLE`; recognize it with `RateLimiterUnavailableError.is(error)`.
 * @example
 * throw new RateLimiterUnavailableError('connection refused');
 */
export class RateLimiterUnavailableError extends PortError {
  readonly code = 'RATE_LIMIT_BACKEND_UNAVAILABLE';

  constructor(readonly reason: string) {
    super(`rate limiter unavailable: ${reason}`);
    this.name = 'RateLimiterUnavailableError';
  }

  /** True for a RateLimiterUnavailableError of this copy of the package or any other. */
  static is(value: unknown): value is RateLimiterUnavailableError {
    return portErrorCodeOf(value) === 'RATE_LIMIT_BACKEND_UNAVAILABLE';
  }
}

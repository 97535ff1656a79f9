/**
 * When a failed delivery is tried again. Wire-compat §8 fixes what is retried (network errors
 * and 5xx) but not when; Turnkey does not publish its schedule. Keyhold's default is Svix's
 * server default (anchors C): after attempt 1 wait 5 s, then 5 min, 30 min, 2 h, 5 h, 10 h,
 * 10 h — **8 attempts in all over about 27.5 h** — each delay jittered by ±20 % so a recovering
 * endpoint is not hit by a synchronized burst. The schedule is configurable and the jitter's
 * randomness injectable (pass {@link seededRandom} for determinism).
 *
 * `Retry-After`: a 429 is terminal (wire-compat), so its `Retry-After` is never consulted. On
 * a retryable response (5xx, e.g. 503) a `Retry-After` is honoured as a lower bound on the
 * next delay, capped at the schedule's longest step so a hostile header cannot park a delivery
 * forever. It never adds attempts.
 * @module
 */

/** Delays between attempts and the jitter applied to them. */
export interface RetrySchedule {
  /** `delaysMs[i]` is the wait after failed attempt `i + 1`; attempts = length + 1. */
  readonly delaysMs: readonly number[];
  /** Each delay is scaled by a factor uniform in `[1 − jitter, 1 + jitter]`; 0 = none. */
  readonly jitter: number;
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/**
 * Svix's default: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h with ±20 % jitter (8 attempts).
 * @example
 * maxAttempts(DEFAULT_RETRY_SCHEDULE); // 8
 */
export const DEFAULT_RETRY_SCHEDULE: RetrySchedule = Object.freeze({
  delaysMs: Object.freeze([
    5 * SECOND,
    5 * MINUTE,
    30 * MINUTE,
    2 * HOUR,
    5 * HOUR,
    10 * HOUR,
    10 * HOUR,
  ]),
  jitter: 0.2,
});

/**
 * A validated schedule (delays non-negative finite, jitter in [0, 1)); missing fields default to
 * {@link DEFAULT_RETRY_SCHEDULE}'s.
 * @example
 * retrySchedule({ delaysMs: [1000, 10_000], jitter: 0 }); // 3 attempts, no jitter
 */
export function retrySchedule(options: Partial<RetrySchedule> = {}): RetrySchedule {
  const delaysMs = options.delaysMs ?? DEFAULT_RETRY_SCHEDULE.delaysMs;
  const jitter = options.jitter ?? DEFAULT_RETRY_SCHEDULE.jitter;
  if (!delaysMs.every((d) => Number.isFinite(d) && d >= 0)) {
    throw new RangeError('retry delays must be finite and non-negative');
  }
  if (!(jitter >= 0 && jitter < 1)) throw new RangeError('retry jitter must be in [0, 1)');
  return Object.freeze({ delaysMs: Object.freeze([...delaysMs]), jitter });
}

/**
 * The most attempts a delivery gets (the first one included).
 * @example
 * maxAttempts(retrySchedule({ delaysMs: [1000] })); // 2
 */
export function maxAttempts(schedule: RetrySchedule): number {
  return schedule.delaysMs.length + 1;
}

/**
 * The wait before the next attempt after `attemptsMade` attempts all failed retryably, or
 * `undefined` when none is left (the delivery is FAILED). `random` returns a number in
 * [0, 1) (default `Math.random`); `retryAfterMs` (from a 5xx) is a floor, capped at the
 * longest step.
 * @example
 * nextRetryDelayMs(retrySchedule({ jitter: 0 }), 1); // 5000
 * nextRetryDelayMs(DEFAULT_RETRY_SCHEDULE, 8); // undefined
 */
export function nextRetryDelayMs(
  schedule: RetrySchedule,
  attemptsMade: number,
  options: { readonly random?: () => number; readonly retryAfterMs?: number } = {},
): number | undefined {
  if (!Number.isInteger(attemptsMade) || attemptsMade < 1) {
    throw new RangeError('attemptsMade must be a positive integer');
  }
  const base = schedule.delaysMs[attemptsMade - 1];
  if (base === undefined) return undefined;
  let delay = base;
  if (schedule.jitter > 0) {
    const r = (options.random ?? Math.random)();
    delay = base * (1 - schedule.jitter + 2 * schedule.jitter * r);
  }
  const retryAfter = options.retryAfterMs;
  if (retryAfter !== undefined && Number.isFinite(retryAfter) && retryAfter > delay) {
    delay = Math.min(retryAfter, Math.max(delay, ...schedule.delaysMs));
  }
  return Math.round(delay);
}

/**
 * A deterministic [0, 1) generator (mulberry32) for jitter in tests and simulations.
 * @example
 * const random = seededRandom(42);
 * random() === seededRandom(42)(); // true
 */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_RETRY_SCHEDULE,
  maxAttempts,
  nextRetryDelayMs,
  retrySchedule,
  seededRandom,
} from './retry-schedule.js';

describe('retry schedule', () => {
  it('defaults to Svix’s: 5s, 5m, 30m, 2h, 5h, 10h, 10h — 8 attempts, ±20 %', () => {
    const s = retrySchedule({ jitter: 0 });
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => nextRetryDelayMs(s, n))).toEqual([
      5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000,
    ]);
    expect(nextRetryDelayMs(s, 8)).toBeUndefined();
    expect(maxAttempts(DEFAULT_RETRY_SCHEDULE)).toBe(8);
    expect(DEFAULT_RETRY_SCHEDULE.jitter).toBe(0.2);
    expect(Object.isFrozen(DEFAULT_RETRY_SCHEDULE.delaysMs)).toBe(true);
  });

  it('keeps jitter within ±jitter and is deterministic under a seeded random', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 7 }), fc.integer(), (n, seed) => {
        const base = DEFAULT_RETRY_SCHEDULE.delaysMs[n - 1]!;
        const a = nextRetryDelayMs(DEFAULT_RETRY_SCHEDULE, n, { random: seededRandom(seed) })!;
        expect(a).toBeGreaterThanOrEqual(Math.floor(base * 0.8));
        expect(a).toBeLessThanOrEqual(Math.ceil(base * 1.2));
        expect(nextRetryDelayMs(DEFAULT_RETRY_SCHEDULE, n, { random: seededRandom(seed) })).toBe(a);
      }),
    );
    expect(nextRetryDelayMs(DEFAULT_RETRY_SCHEDULE, 1, { random: () => 0 })).toBe(4_000);
    expect(nextRetryDelayMs(DEFAULT_RETRY_SCHEDULE, 1, { random: () => 0.5 })).toBe(5_000);
  });

  it('honours a 5xx Retry-After as a floor capped at the longest step', () => {
    const s = retrySchedule({ delaysMs: [1_000, 60_000], jitter: 0 });
    expect(nextRetryDelayMs(s, 1, { retryAfterMs: 30_000 })).toBe(30_000);
    expect(nextRetryDelayMs(s, 1, { retryAfterMs: 500 })).toBe(1_000);
    expect(nextRetryDelayMs(s, 1, { retryAfterMs: 10 ** 12 })).toBe(60_000);
    expect(nextRetryDelayMs(s, 3, { retryAfterMs: 5 })).toBeUndefined();
  });

  it('validates', () => {
    expect(() => retrySchedule({ delaysMs: [-1] })).toThrow(RangeError);
    expect(() => retrySchedule({ jitter: 1 })).toThrow(RangeError);
    expect(() => nextRetryDelayMs(DEFAULT_RETRY_SCHEDULE, 0)).toThrow(RangeError);
    expect(maxAttempts(retrySchedule({ delaysMs: [] }))).toBe(1);
  });

  it('seededRandom stays in [0, 1)', () => {
    const r = seededRandom(7);
    for (let i = 0; i < 1000; i++) {
      const x = r();
      expect(x >= 0 && x < 1).toBe(true);
    }
  });
});

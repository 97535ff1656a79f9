import { describe, expect, it } from 'vitest';
import { MemoryRateLimiter } from './memory-rate-limiter.js';

const rule = { limit: 2, periodMs: 1000 };

function clocked(maxKeys?: number) {
  let now = 1_000_000;
  const limiter = new MemoryRateLimiter({
    clock: { now: () => now },
    ...(maxKeys !== undefined ? { maxKeys } : {}),
  });
  return {
    limiter,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe('MemoryRateLimiter memory bounds', () => {
  it('drops idle keys as later takes pass them', async () => {
    const { limiter, advance } = clocked();
    for (let i = 0; i < 100; i++) await limiter.take(`k${i}`, rule);
    expect(limiter.size).toBe(100);
    advance(1000); // every bucket has refilled: all 100 keys are idle
    for (let i = 0; i < 60; i++) await limiter.take('busy', rule).catch(() => undefined);
    expect(limiter.size).toBeLessThanOrEqual(1);
  });

  it('never holds more than maxKeys, and keeps refusing a busy key it still holds', async () => {
    const { limiter } = clocked(10);
    await limiter.take('hot', rule, 2);
    for (let i = 0; i < 5; i++) await limiter.take(`cold${i}`, rule);
    expect((await limiter.take('hot', rule)).allowed).toBe(false);
    for (let i = 0; i < 1000; i++) {
      await limiter.take(`k${i}`, rule);
      expect(limiter.size).toBeLessThanOrEqual(10);
    }
  });

  it('sweeps idle keys before forgetting busy ones', async () => {
    const { limiter, advance } = clocked(10);
    const long = { limit: 1, periodMs: 60_000 };
    await limiter.take('hot', long); // busy for a minute
    for (let i = 0; i < 9; i++) await limiter.take(`idle${i}`, rule);
    advance(1000); // the nine are idle, 'hot' is not
    await limiter.take('new', rule); // full map: the sweep frees the nine
    expect(limiter.size).toBe(2);
    expect((await limiter.take('hot', long)).allowed).toBe(false);
  });

  it('refuses a maxKeys below 1', () => {
    expect(() => new MemoryRateLimiter({ maxKeys: 0 })).toThrow(RangeError);
  });

  it('uses the wall clock by default', async () => {
    const limiter = new MemoryRateLimiter();
    const first = await limiter.take('k', { limit: 1, periodMs: 60_000 });
    const second = await limiter.take('k', { limit: 1, periodMs: 60_000 });
    expect(first.allowed).toBe(true);
    expect(second.allowed).toBe(false);
    expect(second.retryAfterMs).toBeGreaterThan(59_000);
    await limiter.close();
    expect(limiter.size).toBe(0);
  });
});

/**
 * The Redis limiter with Redis's own clock: time from `TIME`, one budget shared by two
 * clients ("instances"), atomicity under parallel takes, and failing fast when Redis is
 * down or stops answering.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { RateLimiterUnavailableError } from '@keyhold/activities';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { failFastRedisOptions, RedisRateLimiter } from './redis-rate-limiter.js';
import {
  deleteKeys,
  redisReachable,
  startRedisProxy,
  TEST_REDIS_URL,
  testKeyPrefix,
} from './testing/test-redis.js';

const withRedis = await redisReachable();
const prefix = testKeyPrefix();
const opened: RedisRateLimiter[] = [];
const limiter = (options: Partial<ConstructorParameters<typeof RedisRateLimiter>[0]> = {}) => {
  const l = new RedisRateLimiter({ url: TEST_REDIS_URL, keyPrefix: prefix, ...options });
  opened.push(l);
  return l;
};
let keys = 0;
const key = () => `k${++keys}`;

afterAll(async () => {
  await Promise.all(opened.map((l) => l.close()));
  if (withRedis) await deleteKeys(prefix);
});

/** Awaits a promise that must reject; returns the error and how long it took. */
async function failure(promise: Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const started = performance.now();
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  return { error, ms: performance.now() - started };
}

describe.skipIf(!withRedis)('RedisRateLimiter on Redis time', () => {
  it('refills by Redis TIME', async () => {
    const l = limiter();
    const k = key();
    const rule = { limit: 2, periodMs: 2000, burst: 1 }; // one token a second
    expect((await l.take(k, rule)).allowed).toBe(true);
    const refused = await l.take(k, rule);
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfterMs).toBeGreaterThan(0);
    expect(refused.retryAfterMs).toBeLessThanOrEqual(1000);
    await sleep(refused.retryAfterMs + 50);
    expect((await l.take(k, rule)).allowed).toBe(true);
  });

  it('never reads the instance clock, so instances with skewed clocks agree', async () => {
    const a = limiter();
    const b = limiter();
    const k = key();
    const rule = { limit: 4, periodMs: 60_000 };
    await a.take(k, rule);
    const spy = vi.spyOn(Date, 'now').mockReturnValue(Date.now() + 3_600_000); // an hour ahead
    const perfSpy = vi.spyOn(performance, 'now').mockReturnValue(performance.now() + 3_600_000);
    try {
      const skewed = await b.take(k, rule);
      expect(skewed).toMatchObject({ allowed: true, remaining: 2 });
      expect(skewed.resetMs).toBeGreaterThan(29_000);
      expect(skewed.resetMs).toBeLessThanOrEqual(30_000);
    } finally {
      spy.mockRestore();
      perfSpy.mockRestore();
    }
  });

  it('two clients (two instances) draw from one budget', async () => {
    const a = limiter();
    const b = limiter();
    const k = key();
    const rule = { limit: 5, periodMs: 600_000 };
    for (let i = 0; i < 3; i++) expect((await a.take(k, rule)).allowed).toBe(true);
    expect(await b.take(k, rule)).toMatchObject({ allowed: true, remaining: 1 });
    expect(await b.take(k, rule)).toMatchObject({ allowed: true, remaining: 0 });
    expect((await b.take(k, rule)).allowed).toBe(false);
    expect((await a.take(k, rule)).allowed).toBe(false);
  });

  it('parallel takes from two clients never admit more than the bucket holds', async () => {
    const a = limiter();
    const b = limiter();
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 40 }),
        fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 1, maxLength: 120 }),
        async (burst, costs) => {
          const k = key();
          // A period so long that nothing refills while the takes run.
          const rule = { limit: 1, periodMs: 3_600_000, burst: Math.max(burst, 3) };
          const decisions = await Promise.all(
            costs.map((cost, i) => (i % 2 ? a : b).take(k, rule, cost)),
          );
          const admitted = decisions
            .map((d, i) => (d.allowed ? (costs[i] ?? 0) : 0))
            .reduce((x, y) => x + y, 0);
          expect(admitted).toBeLessThanOrEqual(rule.burst);
          // Every refusal saw fewer tokens than it asked for: nothing was refused needlessly.
          const total = costs.reduce((x, y) => x + y, 0);
          if (total <= rule.burst) expect(admitted).toBe(total);
          else expect(rule.burst - admitted).toBeLessThan(3);
        },
      ),
      { numRuns: 15 },
    );
  });

  it('200 parallel unit takes admit exactly the burst', async () => {
    const a = limiter();
    const b = limiter();
    const k = key();
    const rule = { limit: 50, periodMs: 3_600_000 };
    const decisions = await Promise.all(
      Array.from({ length: 200 }, (_, i) => (i % 2 ? a : b).take(k, rule)),
    );
    expect(decisions.filter((d) => d.allowed)).toHaveLength(50);
  });

  it('stores one key per bucket under the prefix, expiring when the bucket is full again', async () => {
    const l = limiter();
    const k = key();
    await l.take(k, { limit: 10, periodMs: 10_000 }, 3);
    const redis = new Redis(TEST_REDIS_URL);
    try {
      const ttl = await redis.pttl(prefix + k);
      expect(ttl).toBeGreaterThan(3000);
      expect(ttl).toBeLessThanOrEqual(4000);
      // "<at> <debtMs>": when the take happened (Redis time), and 3 tokens × 1000 ms of debt.
      const [at, debt] = String(await redis.get(prefix + k))
        .split(' ')
        .map(Number);
      expect(Math.abs((at ?? 0) - Date.now())).toBeLessThan(60_000);
      expect(debt).toBe(3000);
    } finally {
      redis.disconnect();
    }
  });

  it('reloads its script after SCRIPT FLUSH', async () => {
    const l = limiter();
    const k = key();
    await l.take(k, { limit: 5, periodMs: 60_000 });
    const redis = new Redis(TEST_REDIS_URL);
    try {
      await redis.script('FLUSH');
    } finally {
      redis.disconnect();
    }
    expect(await l.take(k, { limit: 5, periodMs: 60_000 })).toMatchObject({ remaining: 3 });
  });

  it('leaves a client it was given open', async () => {
    const redis = new Redis(TEST_REDIS_URL, failFastRedisOptions());
    try {
      const l = new RedisRateLimiter({ redis, keyPrefix: prefix });
      await l.ping();
      expect((await l.take(key(), { limit: 1, periodMs: 1000 })).allowed).toBe(true);
      await l.close();
      expect(await redis.ping()).toBe('PONG');
    } finally {
      redis.disconnect();
    }
  });

  it('checks rules before asking Redis', async () => {
    await expect(limiter().take(key(), { limit: 2, periodMs: 1000 }, 1.5)).rejects.toThrow(
      RangeError,
    );
    await expect(limiter().take(key(), { limit: 0, periodMs: 1000 })).rejects.toThrow(RangeError);
  });
});

describe('RedisRateLimiter when Redis is unreachable', () => {
  it('fails a take and a ping quickly with RateLimiterUnavailableError (nothing listening)', async () => {
    const l = limiter({ url: 'redis://127.0.0.1:1' });
    const first = await failure(l.take(key(), { limit: 1, periodMs: 1000 }));
    expect(first.error).toBeInstanceOf(RateLimiterUnavailableError);
    expect(first.ms).toBeLessThan(1500);
    const again = await failure(l.take(key(), { limit: 1, periodMs: 1000 }));
    expect(again.error).toBeInstanceOf(RateLimiterUnavailableError);
    expect(again.ms).toBeLessThan(1500);
    const ping = await failure(l.ping());
    expect(ping.error).toBeInstanceOf(RateLimiterUnavailableError);
    expect(ping.ms).toBeLessThan(3000);
  });

  it('needs a url or a client', () => {
    expect(() => new RedisRateLimiter({})).toThrow(TypeError);
  });
});

describe.skipIf(!withRedis)('RedisRateLimiter when Redis stops answering', () => {
  it('fails within the command timeout, then recovers when Redis answers again', async () => {
    const proxy = await startRedisProxy();
    try {
      const l = limiter({ url: proxy.url, commandTimeoutMs: 300 });
      const rule = { limit: 100, periodMs: 60_000 };
      const k = key();
      expect((await l.take(k, rule)).allowed).toBe(true);

      proxy.stall(true);
      const stalled = await failure(l.take(k, rule));
      expect(stalled.error).toBeInstanceOf(RateLimiterUnavailableError);
      expect(stalled.ms).toBeLessThan(1500);

      proxy.stall(false);
      expect((await l.take(k, rule)).allowed).toBe(true);
    } finally {
      await proxy.close();
    }
  });

  it('fails at once when the connection is cut', async () => {
    const proxy = await startRedisProxy();
    const l = limiter({ url: proxy.url });
    expect((await l.take(key(), { limit: 1, periodMs: 1000 })).allowed).toBe(true);
    await proxy.close();
    await sleep(50);
    const cut = await failure(l.take(key(), { limit: 1, periodMs: 1000 }));
    expect(cut.error).toBeInstanceOf(RateLimiterUnavailableError);
    expect(cut.ms).toBeLessThan(1000);
  });
});

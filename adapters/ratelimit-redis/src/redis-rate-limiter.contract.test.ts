/**
 * The RateLimiter contract (@keyhold/conformance/rate-limiter) against the Redis limiter. The contract
 * needs to control time, so here the script takes `now` from a manual clock instead of
 * Redis `TIME` (the real-time behaviour is in redis-rate-limiter.test.ts); then random
 * sequences from fast-check, every decision compared with the GCRA model.
 */
import {
  type RateLimiterContractTarget,
  rateLimiterContract,
  replayAgainstModel,
  ruleAndSteps,
} from '@keyhold/conformance/rate-limiter';
import fc from 'fast-check';
import { afterAll, describe, it } from 'vitest';
import { RedisRateLimiter } from './redis-rate-limiter.js';
import { deleteKeys, redisReachable, TEST_REDIS_URL, testKeyPrefix } from './testing/test-redis.js';

const withRedis = await redisReachable();
const prefix = testKeyPrefix();
const limiters: RedisRateLimiter[] = [];

function manualTarget(): RateLimiterContractTarget {
  let now = 1_750_000_000_000;
  const clock = { now: () => now };
  const limiter = new RedisRateLimiter({ url: TEST_REDIS_URL, keyPrefix: prefix, clock });
  limiters.push(limiter);
  return {
    limiter,
    now: clock.now,
    advance: (ms) => {
      now += ms;
    },
  };
}

afterAll(async () => {
  if (!withRedis) return;
  await Promise.all(limiters.map((l) => l.close()));
  await deleteKeys(prefix);
});

describe.skipIf(!withRedis)('RateLimiter contract: RedisRateLimiter', () => {
  const target = withRedis ? manualTarget() : undefined;
  if (target) for (const check of rateLimiterContract(target)) it(check.name, check.run);
});

describe.skipIf(!withRedis)('RedisRateLimiter agrees with the GCRA model', () => {
  it('on random rules and sequences (the Lua script rounds as the model does)', async () => {
    const target = manualTarget();
    await fc.assert(
      fc.asyncProperty(ruleAndSteps(40), ([rule, steps]) =>
        replayAgainstModel(target, rule, steps),
      ),
      { numRuns: 60 },
    );
  });

  it('on fractional emission intervals and microsecond clocks', async () => {
    const target = manualTarget();
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 97 }),
        fc.array(fc.double({ min: 0, max: 50, noNaN: true }), { minLength: 1, maxLength: 40 }),
        async (limit, waits) => {
          const steps = waits.map((w) => ({
            advanceMs: Math.round(w * 1000) / 1000,
            key: 0,
            cost: 1,
          }));
          await replayAgainstModel(target, { limit, periodMs: 1000, burst: 3 }, steps);
        },
      ),
      { numRuns: 40 },
    );
  });
});

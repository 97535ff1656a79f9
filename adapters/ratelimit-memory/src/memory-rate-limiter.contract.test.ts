/**
 * The RateLimiter contract (@keyhold/conformance/rate-limiter) against the memory limiter, on a manual
 * clock; then random sequences from fast-check, every decision compared with the GCRA model.
 */
import {
  type RateLimiterContractTarget,
  type RateLimitStep,
  rateLimiterContract,
  replayAgainstModel,
  ruleAndSteps,
} from '@keyhold/conformance/rate-limiter';
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { MemoryRateLimiter } from './memory-rate-limiter.js';

function manualTarget(maxKeys?: number): RateLimiterContractTarget {
  let now = 1_750_000_000_000;
  const clock = { now: () => now };
  return {
    limiter: new MemoryRateLimiter({ clock, ...(maxKeys ? { maxKeys } : {}) }),
    now: clock.now,
    advance: (ms) => {
      now += ms;
    },
  };
}

describe('RateLimiter contract: MemoryRateLimiter', () => {
  const target = manualTarget();
  for (const check of rateLimiterContract(target)) it(check.name, check.run);
});

describe('MemoryRateLimiter agrees with the GCRA model', () => {
  it('on random rules and sequences', async () => {
    await fc.assert(
      fc.asyncProperty(ruleAndSteps(60), ([rule, steps]) =>
        replayAgainstModel(manualTarget(), rule, steps),
      ),
      { numRuns: 200 },
    );
  });

  it('even when eviction keeps only two keys (forgetting idle keys changes nothing)', async () => {
    // Steps that wait out a whole bucket before switching keys: every evicted key is idle.
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({ key: fc.integer({ min: 0, max: 5 }), cost: fc.integer({ min: 1, max: 3 }) }),
          {
            maxLength: 40,
          },
        ),
        async (takes) => {
          const rule = { limit: 3, periodMs: 300 };
          const steps: RateLimitStep[] = takes.map((t) => ({ ...t, advanceMs: 301 }));
          await replayAgainstModel(manualTarget(2), rule, steps);
        },
      ),
      { numRuns: 50 },
    );
  });
});

/**
 * A fast-check arbitrary for the RateLimiter adapters' property tests: a rule and a sequence
 * of takes on a few keys, with waits around the emission interval (where GCRA's edges are),
 * for `replayAgainstModel`.
 * @module
 */

import type { RateLimitRule } from '@keyhold/activities';
import fc from 'fast-check';
import type { RateLimitStep } from './rate-limiter-contract.js';

/**
 * A rule and up to `maxSteps` takes against it.
 * @example
 * await fc.assert(
 *   fc.asyncProperty(ruleAndSteps(60), ([rule, steps]) => replayAgainstModel(target, rule, steps)),
 * );
 */
export const ruleAndSteps = (maxSteps: number): fc.Arbitrary<[RateLimitRule, RateLimitStep[]]> =>
  fc
    .record({
      limit: fc.integer({ min: 1, max: 20 }),
      periodMs: fc.integer({ min: 1, max: 5000 }),
      burst: fc.integer({ min: 1, max: 20 }),
    })
    .chain((rule) =>
      fc.tuple(
        fc.constant(rule),
        fc.array(
          fc.record<RateLimitStep>({
            advanceMs: fc.oneof(
              fc.constant(0),
              fc.integer({ min: 0, max: Math.ceil((2 * rule.periodMs) / rule.limit) }),
              fc.integer({ min: 0, max: 2 * rule.periodMs }),
            ),
            key: fc.integer({ min: 0, max: 2 }),
            // Weighted takes: mostly within the bucket, sometimes larger than it.
            cost: fc.oneof(
              { arbitrary: fc.integer({ min: 1, max: rule.burst }), weight: 4 },
              { arbitrary: fc.integer({ min: 1, max: 3 * rule.burst + 2 }), weight: 1 },
            ),
          }),
          { minLength: 1, maxLength: maxSteps },
        ),
      ),
    );

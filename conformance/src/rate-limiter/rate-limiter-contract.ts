/**
 * The RateLimiter contract: what every adapter must do, written once and run by each
 * adapter's tests against an injected clock (so it is deterministic even for Redis). It is
 * framework-free — each check is a name and an async function that throws on failure — so
 * any test runner, or a third-party adapter, can run it.
 * @module
 */

import {
  type GcraState,
  gcra,
  type RateLimitDecision,
  type RateLimiter,
  type RateLimitRule,
} from '@keyhold/activities';
import { seededRandom } from '@keyhold/webhooks';

/**
 * A limiter whose time the contract controls.
 * @example
 * let now = Date.now();
 * const target: RateLimiterContractTarget = {
 *   limiter: new MemoryRateLimiter({ clock: { now: () => now } }),
 *   now: () => now,
 *   advance: (ms) => { now += ms; },
 * };
 */
export interface RateLimiterContractTarget {
  /** The limiter under test; it must take its time from `now()`. */
  limiter: RateLimiter;
  /** The limiter's current time, epoch milliseconds. */
  now(): number;
  /** Moves the limiter's time forward. */
  advance(ms: number): void;
}

/**
 * One check: run it with any test runner.
 * @example
 * for (const check of rateLimiterContract(target)) it(check.name, check.run);
 */
export interface RateLimiterCheck {
  name: string;
  run(): Promise<void>;
}

/**
 * One step of a replayed sequence: wait, then take `cost` from key number `key`.
 * @example
 * const step: RateLimitStep = { advanceMs: 250, key: 0, cost: 1 };
 */
export interface RateLimitStep {
  advanceMs: number;
  key: number;
  cost: number;
}

class ContractFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ContractFailure';
  }
}

function expectDecision(
  actual: RateLimitDecision,
  expected: Partial<RateLimitDecision>,
  what: string,
): void {
  for (const [field, value] of Object.entries(expected)) {
    const got = actual[field as keyof RateLimitDecision];
    if (got !== value) {
      throw new ContractFailure(
        `${what}: expected ${field} ${value}, got ${got} (decision ${JSON.stringify(actual)})`,
      );
    }
  }
}

async function expectRangeError(promise: Promise<unknown>, what: string): Promise<void> {
  const outcome = await promise.then(
    () => 'resolved',
    (error: unknown) => error,
  );
  if (!(outcome instanceof RangeError))
    throw new ContractFailure(`${what}: expected a RangeError, got ${String(outcome)}`);
}

let runs = 0;
/** Keys unique to one check of one run, so runs sharing a backend never meet. */
const freshKeys = () => {
  runs += 1;
  const run = `contract:${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}:${runs}`;
  return (name: string) => `${run}:${name}`;
};

/**
 * Replays `steps` against the target and the GCRA model side by side; throws at the first
 * decision that differs. Drive it with a property-based generator for random sequences.
 * @example
 * await replayAgainstModel(target, { limit: 3, periodMs: 1000 }, [{ advanceMs: 0, key: 0, cost: 1 }]);
 */
export async function replayAgainstModel(
  target: RateLimiterContractTarget,
  rule: RateLimitRule,
  steps: readonly RateLimitStep[],
): Promise<void> {
  const key = freshKeys();
  const model = new Map<number, GcraState | undefined>();
  for (const [i, step] of steps.entries()) {
    if (step.advanceMs > 0) target.advance(step.advanceMs);
    const expected = gcra(model.get(step.key), rule, step.cost, target.now());
    model.set(step.key, expected.state);
    const actual = await target.limiter.take(key(`k${step.key}`), rule, step.cost);
    expectDecision(actual, expected.decision, `step ${i} ${JSON.stringify(step)}`);
  }
}

/**
 * The checks every RateLimiter adapter must pass.
 * @example
 * for (const check of rateLimiterContract(target)) it(check.name, check.run);
 */
export function rateLimiterContract(target: RateLimiterContractTarget): RateLimiterCheck[] {
  const take = (key: string, rule: RateLimitRule, cost?: number) =>
    target.limiter.take(key, rule, cost);
  const check = (name: string, run: (key: (name: string) => string) => Promise<void>) => ({
    name,
    run: () => run(freshKeys()),
  });

  return [
    check('a quiet key admits its whole burst at once, then refuses', async (key) => {
      const rule = { limit: 5, periodMs: 10_000 };
      for (let i = 1; i <= 5; i++) {
        expectDecision(
          await take(key('a'), rule),
          { allowed: true, limit: 5, remaining: 5 - i, resetMs: 2000 * i, retryAfterMs: 0 },
          `take ${i}`,
        );
      }
      expectDecision(
        await take(key('a'), rule),
        { allowed: false, limit: 5, remaining: 0, resetMs: 10_000, retryAfterMs: 2000 },
        'take 6',
      );
    }),

    check('burst sizes the bucket apart from the refill rate', async (key) => {
      const big = { limit: 2, periodMs: 10_000, burst: 6 };
      for (let i = 1; i <= 6; i++)
        expectDecision(
          await take(key('big'), big),
          { allowed: true, remaining: 6 - i },
          `big ${i}`,
        );
      expectDecision(
        await take(key('big'), big),
        { allowed: false, limit: 6, retryAfterMs: 5000 },
        'big 7',
      );
      const one = { limit: 10, periodMs: 1000, burst: 1 };
      expectDecision(await take(key('one'), one), { allowed: true, remaining: 0 }, 'one 1');
      expectDecision(await take(key('one'), one), { allowed: false, retryAfterMs: 100 }, 'one 2');
    }),

    check('tokens refill evenly over time', async (key) => {
      const rule = { limit: 4, periodMs: 8000 };
      for (let i = 0; i < 4; i++) await take(key('r'), rule);
      target.advance(1999);
      expectDecision(
        await take(key('r'), rule),
        { allowed: false, retryAfterMs: 1 },
        'one ms before a token',
      );
      target.advance(1);
      expectDecision(await take(key('r'), rule), { allowed: true, remaining: 0 }, 'on time');
      expectDecision(await take(key('r'), rule), { allowed: false, retryAfterMs: 2000 }, 'then');
      target.advance(8000);
      for (let i = 1; i <= 4; i++)
        expectDecision(await take(key('r'), rule), { allowed: true }, `refilled ${i}`);
      expectDecision(await take(key('r'), rule), { allowed: false }, 'refilled 5');
    }),

    check('keys are independent', async (key) => {
      const rule = { limit: 3, periodMs: 60_000 };
      for (let i = 0; i < 3; i++) await take(key('a'), rule);
      expectDecision(await take(key('a'), rule), { allowed: false }, 'a exhausted');
      for (let i = 1; i <= 3; i++)
        expectDecision(await take(key('b'), rule), { allowed: true, remaining: 3 - i }, `b ${i}`);
      expectDecision(await take(key('a'), rule), { allowed: false }, 'a still exhausted');
    }),

    check('a take may cost several tokens', async (key) => {
      const rule = { limit: 5, periodMs: 10_000 };
      expectDecision(await take(key('c'), rule, 3), { allowed: true, remaining: 2 }, 'cost 3');
      expectDecision(
        await take(key('c'), rule, 3),
        { allowed: false, remaining: 2, retryAfterMs: 2000 },
        'cost 3 with 2 left',
      );
      expectDecision(await take(key('c'), rule, 2), { allowed: true, remaining: 0 }, 'cost 2');
      target.advance(6000);
      expectDecision(await take(key('c'), rule, 3), { allowed: true, remaining: 0 }, 'refilled');
      await expectRangeError(take(key('c'), rule, 0), 'a cost of zero');
      await expectRangeError(take(key('c'), rule, 1.5), 'a fractional cost');
    }),

    check('a take of n tokens spends what n takes of one token spend', async (key) => {
      // Weighted admission meters a request by what it carries (e.g. accounts created): one
      // take of n must leave the bucket exactly as n unit takes at the same instant would.
      const random = seededRandom(0x77656967);
      for (let round = 0; round < 12; round++) {
        const burst = 1 + Math.floor(random() * 8);
        const rule = { limit: 1 + Math.floor(random() * 8), periodMs: 1000, burst };
        const spent = Math.floor(random() * burst);
        const n = 1 + Math.floor(random() * (burst - spent));
        for (const k of ['weighted', 'units'])
          for (let i = 0; i < spent; i++) await take(key(`${k}${round}`), rule);
        const weighted = await take(key(`weighted${round}`), rule, n);
        let unit: RateLimitDecision | undefined;
        for (let i = 0; i < n; i++) unit = await take(key(`units${round}`), rule);
        expectDecision(weighted, { ...unit }, `round ${round}: one take of ${n} after ${spent}`);
        target.advance(1 + Math.floor(random() * 300));
        const probes = await Promise.all([
          take(key(`weighted${round}`), rule, burst),
          take(key(`units${round}`), rule, burst),
        ]);
        expectDecision(probes[0], { ...probes[1] }, `round ${round}: the buckets afterwards`);
      }
    }),

    check(
      'a take larger than the bucket waits for a full bucket and leaves it in debt',
      async (key) => {
        // 2000 ms per token, a bucket of 5: a take of 8 owes 16 s of refill.
        const rule = { limit: 5, periodMs: 10_000 };
        expectDecision(
          await take(key('d'), rule, 8),
          { allowed: true, limit: 5, remaining: 0, resetMs: 16_000, retryAfterMs: 0 },
          'cost 8 from a full bucket',
        );
        expectDecision(
          await take(key('d'), rule),
          { allowed: false, remaining: 0, resetMs: 16_000, retryAfterMs: 8000 },
          'a unit take while in debt',
        );
        target.advance(8000);
        expectDecision(
          await take(key('d'), rule),
          { allowed: true, remaining: 0, resetMs: 10_000 },
          'once the debt is paid',
        );
        expectDecision(
          await take(key('d'), rule, 8),
          { allowed: false, retryAfterMs: 10_000 },
          'cost 8 from a bucket not yet full',
        );
        target.advance(6000);
        expectDecision(
          await take(key('d'), rule, 8),
          { allowed: false, remaining: 3, retryAfterMs: 4000 },
          'three tokens are not enough either',
        );
        target.advance(3999);
        expectDecision(
          await take(key('d'), rule, 8),
          { allowed: false, retryAfterMs: 1 },
          'a ms early',
        );
        target.advance(1);
        expectDecision(
          await take(key('d'), rule, 8),
          { allowed: true, resetMs: 16_000 },
          'full again',
        );
      },
    ),

    check('a refused take consumes nothing', async (key) => {
      const rule = { limit: 2, periodMs: 1000 };
      await take(key('n'), rule, 2);
      for (let i = 0; i < 10; i++)
        expectDecision(await take(key('n'), rule), { allowed: false, retryAfterMs: 500 }, `${i}`);
      target.advance(500);
      expectDecision(await take(key('n'), rule), { allowed: true }, 'after the wait');
    }),

    check('retryAfterMs is exact: a ms early is refused, on time is admitted', async (key) => {
      // 333.33… ms per token: the wait is rounded up, never down.
      const rule = { limit: 3, periodMs: 1000 };
      for (let i = 0; i < 3; i++) await take(key('e'), rule);
      for (let round = 0; round < 6; round++) {
        const refused = await take(key('e'), rule);
        expectDecision(refused, { allowed: false }, `round ${round}`);
        const wait = refused.retryAfterMs;
        if (wait < 333 || wait > 334)
          throw new ContractFailure(`round ${round}: retryAfterMs ${wait} is not 333 or 334`);
        target.advance(wait - 1);
        expectDecision(await take(key('e'), rule), { allowed: false }, `round ${round}, early`);
        target.advance(1);
        expectDecision(await take(key('e'), rule), { allowed: true }, `round ${round}, on time`);
      }
    }),

    check('resetMs is the time until the bucket is full again', async (key) => {
      const rule = { limit: 5, periodMs: 10_000 };
      for (let i = 0; i < 3; i++) await take(key('f'), rule);
      const third = await take(key('f'), rule);
      expectDecision(third, { resetMs: 8000, remaining: 1 }, 'four taken');
      target.advance(8000);
      expectDecision(await take(key('f'), rule), { allowed: true, remaining: 4 }, 'full again');
    }),

    check('impossible rules are refused', async (key) => {
      await expectRangeError(take(key('x'), { limit: 0, periodMs: 1000 }), 'limit 0');
      await expectRangeError(take(key('x'), { limit: 1, periodMs: 0 }), 'period 0');
      await expectRangeError(take(key('x'), { limit: 1, periodMs: 1000, burst: 0 }), 'burst 0');
    }),

    check('agrees with the GCRA model over a long mixed sequence', async () => {
      const random = seededRandom(0x6b6579);
      const rule = { limit: 7, periodMs: 3000, burst: 4 };
      const steps: RateLimitStep[] = Array.from({ length: 300 }, () => ({
        advanceMs: random() < 0.5 ? 0 : Math.floor(random() * 1500),
        key: Math.floor(random() * 3),
        // Mostly within the bucket, sometimes larger than it (up to 10 tokens).
        cost: random() < 0.8 ? 1 + Math.floor(random() * 3) : 1 + Math.floor(random() * 10),
      }));
      await replayAgainstModel(target, rule, steps);
    }),
  ];
}

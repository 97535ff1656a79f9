/**
 * Properties of the GCRA model, which both adapters are checked against: the window bound
 * (the inngest gcra.lua bug, tolerance = period × burst, breaks it), takes larger than the
 * bucket (admitted from a full bucket, owing their whole cost), refusals cost nothing,
 * retryAfter is exact and shrinks as time passes, and `remaining` counts real tokens.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type GcraState, gcra } from './gcra.js';

/** Rules down to 0.1 ms per token (10 000 per second per key). */
const rules = fc
  .record({
    limit: fc.integer({ min: 1, max: 100 }),
    periodMs: fc.integer({ min: 1, max: 10_000 }),
    burst: fc.integer({ min: 1, max: 100 }),
  })
  .map((rule) => ({ ...rule, periodMs: Math.max(rule.periodMs, Math.ceil(rule.limit / 10)) }));

/** Arrival gaps: bunched (0), around the emission interval, and long pauses. */
const gaps = (rule: { limit: number; periodMs: number }) =>
  fc.array(
    fc.oneof(
      fc.constant(0),
      fc.double({ min: 0, max: (2 * rule.periodMs) / rule.limit, noNaN: true }),
      fc.integer({ min: 0, max: 2 * rule.periodMs }),
    ),
    { minLength: 1, maxLength: 200 },
  );

const START = 1_750_000_000_000;

/** Take sizes: mostly a few tokens, sometimes more than the bucket holds. */
const costs = (rule: { burst: number }) =>
  fc.oneof(
    { arbitrary: fc.integer({ min: 1, max: 3 }), weight: 3 },
    { arbitrary: fc.integer({ min: 1, max: 3 * rule.burst + 2 }), weight: 1 },
  );

describe('GCRA model', () => {
  it('admits at most limit + max(burst, largest take) tokens in any window of one period', () => {
    fc.assert(
      fc.property(
        rules.chain((rule) =>
          fc.tuple(fc.constant(rule), gaps(rule), fc.array(costs(rule), { minLength: 1 })),
        ),
        ([rule, waits, costList]) => {
          let now = START;
          let tat: GcraState | undefined;
          const admitted: { at: number; cost: number }[] = [];
          for (const [i, wait] of waits.entries()) {
            now += wait;
            const cost = costList[i % costList.length] ?? 1;
            const step = gcra(tat, rule, cost, now);
            tat = step.state;
            if (step.decision.allowed) admitted.push({ at: now, cost });
          }
          for (const [i, first] of admitted.entries()) {
            let inWindow = 0;
            let largest = 0;
            for (const later of admitted.slice(i)) {
              if (later.at > first.at + rule.periodMs) break;
              inWindow += later.cost;
              largest = Math.max(largest, later.cost);
            }
            // Within the bucket this is the classic GCRA bound; a take larger than the bucket
            // (admitted only from a full one) may exceed it by what it alone carries.
            expect(inWindow).toBeLessThanOrEqual(rule.limit + Math.max(rule.burst, largest));
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a take larger than the bucket is admitted exactly when the bucket is full, and owes its whole cost', () => {
    fc.assert(
      fc.property(
        rules,
        fc.integer({ min: 1, max: 300 }),
        fc.integer({ min: 0, max: 100 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (rule, extra, used, fraction) => {
          const cost = rule.burst + extra;
          const emissionMs = rule.periodMs / rule.limit;
          let tat: GcraState | undefined;
          for (let i = 0; i < Math.min(used, rule.burst); i++)
            tat = gcra(tat, rule, 1, START).state;
          const full = Math.min(used, rule.burst) * emissionMs; // ms until the bucket is full
          const at = START + fraction * full;
          const step = gcra(tat, rule, cost, at);
          expect(step.decision.allowed).toBe(full - (at - START) <= 1e-3);
          if (!step.decision.allowed) {
            expect(step.state).toEqual(tat);
            expect(gcra(tat, rule, cost, at + step.decision.retryAfterMs).decision.allowed).toBe(
              true,
            );
            return;
          }
          expect(step.decision.remaining).toBe(0);
          // Nothing more until the debt beyond the bucket is paid: cost − burst + 1 tokens' time.
          const wait = (cost - rule.burst + 1) * emissionMs;
          const early = gcra(step.state, rule, 1, at + wait - Math.min(1, emissionMs / 2));
          expect(early.decision.allowed).toBe(false);
          expect(gcra(step.state, rule, 1, at + wait).decision.allowed).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a quiet key admits exactly burst unit takes at one instant', () => {
    fc.assert(
      fc.property(rules, (rule) => {
        let tat: GcraState | undefined;
        let admitted = 0;
        for (let i = 0; i < rule.burst + 5; i++) {
          const step = gcra(tat, rule, 1, START);
          tat = step.state;
          if (step.decision.allowed) admitted += 1;
        }
        expect(admitted).toBe(rule.burst);
      }),
    );
  });

  it('a refusal leaves the state unchanged', () => {
    fc.assert(
      fc.property(rules, fc.integer({ min: 0, max: 100 }), (rule, extra) => {
        let tat: GcraState | undefined;
        for (let i = 0; i < rule.burst; i++) tat = gcra(tat, rule, 1, START).state;
        const refused = gcra(tat, rule, 1, START + extra / 1000);
        if (!refused.decision.allowed) expect(refused.state).toEqual(tat);
      }),
    );
  });

  it('retryAfterMs is exact, and waiting d ms shrinks it by d', () => {
    fc.assert(
      fc.property(
        rules,
        fc.integer({ min: 1, max: 300 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (rule, cost, fraction) => {
          let tat: GcraState | undefined;
          for (let i = 0; i < rule.burst; i++) tat = gcra(tat, rule, 1, START).state;
          const refused = gcra(tat, rule, cost, START).decision;
          expect(refused.allowed).toBe(false);
          const wait = refused.retryAfterMs;
          expect(gcra(tat, rule, cost, START + wait).decision.allowed).toBe(true);
          if (wait > 1)
            expect(gcra(tat, rule, cost, START + wait - 1).decision.allowed).toBe(false);
          const d = Math.floor(fraction * (wait - 1));
          const later = gcra(tat, rule, cost, START + d).decision;
          expect(later.allowed).toBe(false);
          expect(later.retryAfterMs).toBeLessThanOrEqual(wait - d + 1);
          expect(later.retryAfterMs).toBeGreaterThanOrEqual(wait - d - 1);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('remaining is how many unit takes the next instant admits', () => {
    fc.assert(
      fc.property(
        rules.chain((rule) => fc.tuple(fc.constant(rule), gaps(rule))),
        ([rule, waits]) => {
          let now = START;
          let tat: GcraState | undefined;
          for (const wait of waits) {
            now += wait;
            const step = gcra(tat, rule, 1, now);
            tat = step.state;
            let probe = tat;
            let more = 0;
            while (more <= rule.burst) {
              const next = gcra(probe, rule, 1, now);
              if (!next.decision.allowed) break;
              probe = next.state;
              more += 1;
            }
            expect(step.decision.remaining).toBe(more);
          }
        },
      ),
      { numRuns: 100 },
    );
  });
});

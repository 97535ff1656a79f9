/**
 * Properties of the engine (Cedar's proven properties, checked with fast-check) and the
 * differential test against the reference evaluator in `__testing__/reference-evaluator.ts`.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  context,
  expr,
  type GeneratedContext,
  policySet,
  TEST_SCHEMA,
} from './__testing__/arbitraries.js';
import { evalNode, referenceEvaluate } from './__testing__/reference-evaluator.js';
import { strip } from './__testing__/strip.js';
import { checkExpression } from './checker.js';
import { compileExpression } from './compile.js';
import type { EvaluationContext } from './context.js';
import type { Env } from './env.js';
import { formatExpression } from './format.js';
import { parseExpression } from './parser.js';
import { PathFault, PathRegistry, type PathSpec, readPath } from './paths.js';
import type { PolicyInput } from './policy.js';
import { PolicyError } from './policy-error.js';
import { compilePolicySet, evaluate, type PolicyDecision } from './policy-set.js';
import { FAULT } from './runtime.js';

const schema = TEST_SCHEMA;

function decide(
  policies: readonly PolicyInput[],
  ctx: GeneratedContext,
  strictDenyErrors = false,
): PolicyDecision {
  const set = compilePolicySet(policies, { schema, strictDenyErrors });
  expect(set.compileErrors).toEqual([]);
  return evaluate(set, ctx as unknown as EvaluationContext);
}

const anyPolicies = policySet({ dynamic: true });
const anyContext = context({ wellTyped: false });

describe('properties of the decision', () => {
  it('deny wins: an explicit deny decides DENY, and adding an unconditional DENY always denies', () => {
    fc.assert(
      fc.property(anyPolicies, anyContext, (policies, ctx) => {
        const r = decide(policies, ctx);
        if (r.outcomes.some((o) => o.outcome === 'OUTCOME_DENY_EXPLICIT'))
          expect(r.decision).toBe('DENY');
        const withDeny = decide(
          [...policies, { policyId: 'deny-all', effect: 'EFFECT_DENY' }],
          ctx,
        );
        expect(withDeny.decision).toBe('DENY');
        expect(withDeny.decidingPolicyIds).toContain('deny-all');
      }),
      { numRuns: 150 },
    );
  });

  it('allow only when some policy allows and none denies; no applicable allow means no ALLOW', () => {
    fc.assert(
      fc.property(anyPolicies, anyContext, fc.boolean(), (policies, ctx, strict) => {
        const r = decide(policies, ctx, strict);
        const outcomes = r.outcomes.map((o) => o.outcome);
        if (!outcomes.includes('OUTCOME_ALLOW')) expect(r.decision).not.toBe('ALLOW');
        if (r.decision === 'ALLOW') {
          expect(outcomes).not.toContain('OUTCOME_DENY_EXPLICIT');
          for (const id of r.decidingPolicyIds) {
            expect(r.outcomes.find((o) => o.policyId === id)?.outcome).toBe('OUTCOME_ALLOW');
          }
        }
        if (r.decision === 'REQUIRES_CONSENSUS') {
          expect(outcomes).not.toContain('OUTCOME_ALLOW');
          expect(outcomes).toContain('OUTCOME_REQUIRES_CONSENSUS');
        }
        if (r.decision === 'DENY' && r.decidingPolicyIds.length === 0) {
          expect(outcomes).not.toContain('OUTCOME_ALLOW');
          expect(outcomes).not.toContain('OUTCOME_REQUIRES_CONSENSUS');
        }
      }),
      { numRuns: 150 },
    );
  });

  it('fails closed: an ERROR on a DENY policy never ends in ALLOW unless it is only missing data', () => {
    fc.assert(
      fc.property(anyPolicies, anyContext, fc.boolean(), (policies, ctx, strict) => {
        const r = decide(policies, ctx, strict);
        for (const [i, o] of r.outcomes.entries()) {
          if (o.outcome !== 'OUTCOME_ERROR' || policies[i]?.effect !== 'EFFECT_DENY') continue;
          const error = r.errors.find((e) => e.policyId === o.policyId);
          if (strict || error?.errorClass !== 'missing') {
            expect(r.decision).toBe('DENY');
            expect(r.decidingPolicyIds).toContain(o.policyId);
          }
        }
      }),
      { numRuns: 150 },
    );
  });

  it('the decision does not depend on the order of the policies or on duplicates', () => {
    const shuffledWithDuplicates = anyPolicies.chain((policies) =>
      fc.tuple(
        fc.constant(policies),
        fc.shuffledSubarray(policies, { minLength: policies.length, maxLength: policies.length }),
        fc.subarray(policies),
      ),
    );
    fc.assert(
      fc.property(shuffledWithDuplicates, anyContext, ([policies, shuffled, extra], ctx) => {
        const a = decide(policies, ctx);
        const b = decide([...shuffled, ...extra], ctx);
        expect(b.decision).toBe(a.decision);
        expect(new Set(b.decidingPolicyIds)).toEqual(new Set(a.decidingPolicyIds));
        const byId = new Map(a.outcomes.map((o) => [o.policyId, o.outcome]));
        for (const o of b.outcomes) expect(o.outcome).toBe(byId.get(o.policyId));
      }),
      { numRuns: 150 },
    );
  });
});

describe('differential: the compiled engine agrees with the reference evaluator', () => {
  it('on single generated expressions: the same value or the same error class', () => {
    const registry = new PathRegistry();
    const condition = expr('bool', 4, [], { dynamic: true });
    fc.assert(
      fc.property(condition, anyContext, (source, ctx) => {
        const checked = checkExpression(
          parseExpression(source, 'condition'),
          'condition',
          source,
          schema,
        );
        const scope = { field: 'condition' as const, registry, used: new Set<PathSpec>() };
        const compiled = compileExpression(checked, scope);
        const paths: unknown[] = [];
        const pathFaults: (PathFault | undefined)[] = [];
        for (const spec of scope.used) {
          const v = readPath(spec, ctx.condition);
          if (v instanceof PathFault) pathFaults[spec.index] = v;
          else paths[spec.index] = v;
        }
        const env: Env = {
          roots: ctx.condition,
          paths,
          pathFaults,
          vars: [],
          nowMs: ctx.now,
          fault: undefined,
          faultMessage: '',
          steps: 0,
          budget: Number.POSITIVE_INFINITY,
        };
        const value = compiled(env);
        const got = value === FAULT ? { ok: false, error: env.fault } : { ok: true, value };
        const want = evalNode(checked.root, {
          roots: ctx.condition,
          vars: new Map(),
          nowMs: ctx.now,
        });
        const wantBool =
          want.ok && typeof want.value !== 'boolean' ? { ok: false, error: 'type' } : want;
        expect(got).toEqual(wantBool);
      }),
      { numRuns: 1500 },
    );
  });

  it('on generated policy sets and contexts: outcomes, decision and deciding policies', () => {
    // Sometimes with copies of some policies under new ids: identical texts are evaluated once.
    const withCopies = fc
      .tuple(anyPolicies, fc.boolean())
      .chain(([ps, copy]) =>
        copy
          ? fc
              .subarray(ps)
              .map((extra) => [
                ...ps,
                ...extra.map((p) => ({ ...p, policyId: `${p.policyId}-copy` })),
              ])
          : fc.constant(ps),
      );
    fc.assert(
      fc.property(withCopies, anyContext, fc.boolean(), (policies, ctx, strict) => {
        const got = decide(policies, ctx, strict);
        const want = referenceEvaluate(policies, ctx, schema, strict);
        expect(got.outcomes).toEqual(want.outcomes);
        expect(got.decision).toBe(want.decision);
        expect(got.decidingPolicyIds).toEqual(want.decidingPolicyIds);
        const errorClasses = got.outcomes.map(
          (o) => got.errors.find((e) => e.policyId === o.policyId)?.errorClass,
        );
        expect(errorClasses).toEqual(want.errorClasses);
      }),
      { numRuns: 300 },
    );
  });

  it('on well-typed data too (where errors are rarer and values decide)', () => {
    fc.assert(
      fc.property(policySet({ dynamic: false }), context({ wellTyped: true }), (policies, ctx) => {
        const got = decide(policies, ctx);
        const want = referenceEvaluate(policies, ctx, schema);
        expect(got.outcomes).toEqual(want.outcomes);
        expect(got.decidingPolicyIds).toEqual(want.decidingPolicyIds);
      }),
      { numRuns: 150 },
    );
  });
});

describe('soundness of the checker', () => {
  it('checked policies without dynamic data never hit a type error on well-typed data', () => {
    fc.assert(
      fc.property(policySet({ dynamic: false }), context({ wellTyped: true }), (policies, ctx) => {
        const r = decide(policies, ctx);
        expect(r.errors.filter((e) => e.errorClass !== 'missing')).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });
});

describe('the parser', () => {
  it('round-trips: parse(format(parse(s))) = parse(s)', () => {
    fc.assert(
      fc.property(expr('bool', 4, [], { dynamic: true }), (source) => {
        const tree = parseExpression(source, 'condition');
        const printed = formatExpression(tree);
        expect(strip(parseExpression(printed, 'condition'))).toEqual(strip(tree));
        expect(formatExpression(parseExpression(printed, 'condition'))).toBe(printed);
      }),
      { numRuns: 300 },
    );
  });

  it('throws only PolicyError, with a position inside the text, on arbitrary input', () => {
    const tokens = fc.constantFrom(
      'activity',
      '.',
      'type',
      '==',
      "'x'",
      '(',
      ')',
      '[',
      ']',
      ',',
      '..',
      '&&',
      '||',
      '!',
      'in',
      '1',
      '-2',
      'approvers',
      'any',
      'all',
      'count',
      'u',
      'Timestamp',
      'CronSpan',
      "'0 9 * * *'",
      '<',
      '>=',
      'true',
      'wallets',
      "'",
      '"',
      '&',
      '{',
      '.5',
      'time',
      'now',
    );
    const text = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.array(tokens, { maxLength: 14 }).map((t) => t.join(' ')),
    );
    fc.assert(
      fc.property(
        text,
        fc.constantFrom('condition' as const, 'consensus' as const, 'time' as const),
        (source, field) => {
          try {
            checkExpression(parseExpression(source, field), field, source);
          } catch (e) {
            expect(e).toBeInstanceOf(PolicyError);
            const error = e as PolicyError;
            expect(error.kind).toBe(field);
            expect(error.position.offset).toBeGreaterThanOrEqual(0);
            expect(error.position.offset).toBeLessThanOrEqual(source.length);
          }
        },
      ),
      { numRuns: 1000 },
    );
  });
});

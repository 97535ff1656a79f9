/**
 * What a policy can make the server compute is bounded: at write time by the cost estimate
 * (cost.ts), at run time by the step budget every loop charges before it runs. Adversarial
 * shapes — the nested quantifiers an attacker used to freeze the server, long chains, deep
 * nesting, wide lists — are refused, stopped, or finish within the bound, and no accepted
 * text makes the parser, the checker or the compiler throw anything but PolicyError.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkExpression } from './checker.js';
import { COST_BUDGET, DECISION_BUDGET, DYNAMIC_LIST_BOUND, estimateCost } from './cost.js';
import { MAX_NESTING, MAX_SOURCE_LENGTH, parseExpression } from './parser.js';
import { checkPolicy } from './policy.js';
import { PolicyError } from './policy-error.js';
import { compilePolicySet, evaluate } from './policy-set.js';

const DIGITS = `[${Array.from({ length: 100 }, (_, i) => i % 10).join(', ')}]`;
/** `L.all(a, L.all(b, … true))` over 100-item literal lists, `levels` deep. */
function nestedAll(levels: number, list = DIGITS): string {
  const names = 'abcdefghij';
  let body = 'true';
  for (let i = levels - 1; i >= 0; i--) body = `${list}.all(${names[i]}, ${body})`;
  return body;
}

function deleteUsersContext(userIds: readonly string[]) {
  return {
    condition: {
      activity: {
        type: 'ACTIVITY_TYPE_DELETE_USERS',
        kind: 'DELETE_USERS',
        resource: 'USER',
        action: 'DELETE',
        params: { user_ids: userIds },
      },
    },
    consensus: { approvers: [], credentials: [] },
    now: 1_767_225_600_000,
  };
}

function refusal(condition: string): PolicyError {
  try {
    checkPolicy({ condition });
  } catch (e) {
    if (e instanceof PolicyError) return e;
    throw e;
  }
  throw new Error(`accepted: ${condition.slice(0, 80)}`);
}

describe('the write-time cost estimate', () => {
  it("refuses the attacker's five nested .all() over 100-item lists, saying why and where", () => {
    const condition = nestedAll(5);
    expect(condition.length).toBeGreaterThan(1500);
    const e = refusal(condition);
    expect(e.kind).toBe('condition');
    expect(e.detail).toMatch(/^too costly to evaluate: about 3\.0e10 steps per evaluation/);
    expect(e.detail).toContain('over the budget of 500,000');
    // The smallest part already over the budget: the third level from the inside.
    expect(e.detail).toContain('all() runs its predicate');
    const third = condition.indexOf(`${DIGITS}.all(c,`);
    expect(e.position.offset).toBe(third);
  });

  it('refuses four and three levels too, and accepts two', () => {
    expect(refusal(nestedAll(4)).detail).toMatch(/too costly/);
    expect(refusal(nestedAll(3)).detail).toMatch(/too costly/);
    expect(() => checkPolicy({ condition: nestedAll(2) })).not.toThrow();
  });

  it('counts dynamic lists at their assumed bound and literal sets as one lookup', () => {
    const dyn = (s: string) =>
      estimateCost(checkExpression(parseExpression(s, 'condition'), 'condition', s).root).steps;
    const one = dyn("activity.params.user_ids.any(u, u == 'x')");
    expect(one).toBeGreaterThan(DYNAMIC_LIST_BOUND);
    expect(one).toBeLessThan(DYNAMIC_LIST_BOUND * 5);
    const set = dyn("activity.type in ['A', 'B', 'C', 'D', 'E', 'F']");
    expect(set).toBeLessThan(12);
    // Three levels of dynamic data are over; two are within.
    const three =
      'activity.params.a.all(x, activity.params.b.all(y, activity.params.c.all(z, x == z)))';
    expect(refusal(three).detail).toMatch(/too costly/);
    expect(() =>
      checkPolicy({
        condition: 'activity.params.a.all(x, activity.params.b.any(y, x == y))',
      }),
    ).not.toThrow();
  });

  it("stays out of the way of the docs' policies", () => {
    const e = estimateCost(
      checkExpression(
        parseExpression(
          "solana.tx.instructions.all(i, i.accounts.all(a, a.account_key in ['k1', 'k2']))",
          'condition',
        ),
        'condition',
        "solana.tx.instructions.all(i, i.accounts.all(a, a.account_key in ['k1', 'k2']))",
      ).root,
    );
    expect(e.culprit).toBeUndefined();
    expect(e.steps).toBeLessThan(COST_BUDGET / 10);
  });
});

describe('the run-time step budget', () => {
  // Two levels over dynamic data pass the estimate (256 × 256); real data can be longer.
  const condition = 'activity.params.user_ids.all(a, activity.params.user_ids.any(b, a == b))';

  it('lets a condition within its budget decide', () => {
    const set = compilePolicySet([{ policyId: 'p', effect: 'EFFECT_DENY', condition }]);
    const ids = Array.from({ length: 100 }, (_, i) => `u${i}`);
    const r = evaluate(set, deleteUsersContext(ids));
    expect(r.outcomes[0]?.outcome).toBe('OUTCOME_DENY_EXPLICIT');
  });

  it('stops a condition that slipped past the estimate with "evaluation budget exceeded"', () => {
    checkPolicy({ condition }); // accepted when written
    const set = compilePolicySet([{ policyId: 'p', effect: 'EFFECT_DENY', condition }]);
    const ids = Array.from({ length: 20_000 }, (_, i) => `u${i}`); // 4 × 10^8 comparisons
    const started = performance.now();
    const r = evaluate(set, deleteUsersContext(ids));
    const ms = performance.now() - started;
    expect(r.outcomes[0]?.outcome).toBe('OUTCOME_ERROR');
    expect(r.errors[0]).toMatchObject({
      errorClass: 'budget',
      message: 'evaluation budget exceeded',
      countedAsDeny: true, // fail closed: a stopped DENY denies
    });
    expect(r.decision).toBe('DENY');
    // Unbounded, this is minutes of work; bounded, it is one budget (~10 ms here). The wide
    // margin is for a loaded machine, not a performance target (those live in `pnpm bench`).
    expect(ms).toBeLessThan(1000);
  });

  it('bounds a whole decision: once the shared budget is spent, loops stop; cheap policies still decide', () => {
    const heavy = Array.from({ length: 10 }, (_, i) => ({
      policyId: `heavy-${i}`,
      effect: 'EFFECT_DENY' as const,
      // Distinct texts: a text shared by several policies is evaluated once per decision.
      condition: `${condition} && activity.type != 'T${i}'`,
    }));
    const set = compilePolicySet([
      ...heavy,
      { policyId: 'cheap', effect: 'EFFECT_ALLOW', condition: "activity.kind == 'DELETE_USERS'" },
    ]);
    // 300 ids: each heavy policy charges ~361,500 steps, under its own budget, so the shared
    // budget (4 × 500,000) covers five of them and the sixth runs out.
    const ids = Array.from({ length: 300 }, (_, i) => `u${i}-${i}`);
    const r = evaluate(set, { ...deleteUsersContext(ids) });
    const outcome = (id: string) => r.outcomes.find((o) => o.policyId === id)?.outcome;
    expect(DECISION_BUDGET / COST_BUDGET).toBe(4);
    for (let i = 0; i < 5; i++) expect(outcome(`heavy-${i}`)).toBe('OUTCOME_DENY_EXPLICIT');
    for (let i = 5; i < 10; i++) expect(outcome(`heavy-${i}`)).toBe('OUTCOME_ERROR');
    expect(r.errors.map((e) => e.errorClass)).toEqual(Array(5).fill('budget'));
    expect(outcome('cheap')).toBe('OUTCOME_ALLOW');
  });

  it('never lets a policy block its own removal by being costly', () => {
    const set = compilePolicySet([
      { policyId: 'costly-deny', effect: 'EFFECT_DENY', condition },
      { policyId: 'allow-all', effect: 'EFFECT_ALLOW', condition: 'true' },
    ]);
    const ids = Array.from({ length: 5_000 }, (_, i) => `u${i}`);
    const blocked = evaluate(set, deleteUsersContext(ids));
    expect(blocked.decision).toBe('DENY');
    const removing = evaluate(set, {
      ...deleteUsersContext(ids),
      ownCostExempt: new Set(['costly-deny']),
    });
    expect(removing.errors[0]).toMatchObject({ policyId: 'costly-deny', errorClass: 'budget' });
    expect(removing.errors[0]?.countedAsDeny).toBe(false);
    expect(removing.decision).toBe('ALLOW');
    // A cheap DENY that forbids its own removal still holds: exemption is only from cost.
    const guard = compilePolicySet([
      { policyId: 'guard', effect: 'EFFECT_DENY', condition: "activity.kind == 'DELETE_USERS'" },
      { policyId: 'allow-all', effect: 'EFFECT_ALLOW', condition: 'true' },
    ]);
    const held = evaluate(guard, { ...deleteUsersContext([]), ownCostExempt: new Set(['guard']) });
    expect(held.decision).toBe('DENY');
  });
});

describe('no text the parser accepts makes the checker or compiler throw', () => {
  it('checks and evaluates || and && chains of thousands of terms', () => {
    for (const [op, n] of [
      ['||', 1_618],
      ['&&', 2_335],
      ['||', 12_000],
    ] as const) {
      const condition = Array.from({ length: n }, (_, i) => `activity.type == 'T${i}'`).join(
        ` ${op} `,
      );
      expect(condition.length).toBeLessThanOrEqual(MAX_SOURCE_LENGTH * 8);
      if (condition.length > MAX_SOURCE_LENGTH) {
        expect(() => checkPolicy({ condition })).toThrow(PolicyError);
        continue;
      }
      expect(() => checkPolicy({ condition })).not.toThrow();
      const set = compilePolicySet([{ policyId: 'p', effect: 'EFFECT_ALLOW', condition }]);
      const r = evaluate(set, deleteUsersContext([]));
      expect(r.outcomes[0]?.outcome).toBe(
        op === '||' ? 'OUTCOME_DENY_IMPLICIT' : 'OUTCOME_DENY_IMPLICIT',
      );
    }
  });

  it('refuses nesting past the limit with a PolicyError, in every shape', () => {
    const deep = MAX_NESTING + 5;
    const shapes = [
      `${'('.repeat(deep)}true${')'.repeat(deep)}`,
      `${'!'.repeat(deep)}true`,
      `${'['.repeat(deep)}1${']'.repeat(deep)}.count() > 0`,
      `activity${'.params'.repeat(deep)} == 1`,
      `${'(activity.params.a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t == 1 || '.repeat(deep)}true${')'.repeat(deep)}`,
    ];
    for (const condition of shapes) {
      let thrown: unknown;
      try {
        checkPolicy({ condition });
      } catch (e) {
        thrown = e;
      }
      expect(thrown).toBeInstanceOf(PolicyError);
    }
  });

  it('only ever throws PolicyError, and what it accepts evaluates within the budget (property)', () => {
    const leaf = fc.constantFrom(
      'true',
      "activity.type == 'X'",
      'activity.params.user_ids.count() > 1',
      "'u1' in activity.params.user_ids",
      "private_key.tags.contains('hot')",
      `${DIGITS}.any(q, q == 3)`,
    );
    const list = fc.constantFrom(DIGITS, 'activity.params.user_ids', '[1, 2, 3]', 'wallets');
    const { tree } = fc.letrec<{ tree: string }>((tie) => ({
      tree: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        leaf,
        fc
          .array(tie('tree'), { minLength: 2, maxLength: 6 })
          .chain((xs) => fc.constantFrom('&&', '||').map((op) => xs.join(` ${op} `))),
        fc.tuple(list, tie('tree')).map(([l, b]) => `${l}.all(v, ${b})`),
        fc.tuple(list, tie('tree')).map(([l, b]) => `${l}.any(w, ${b})`),
        fc.tuple(list, tie('tree')).map(([l, b]) => `${l}.filter(f, ${b}).count() > 0`),
        tie('tree').map((b) => `!(${b})`),
        tie('tree').map((b) => `(${b})`),
      ),
    }));
    const ids = Array.from({ length: 2_000 }, (_, i) => `u${i}`);
    fc.assert(
      fc.property(tree, (condition) => {
        let accepted = true;
        try {
          checkPolicy({ condition });
        } catch (e) {
          if (!(e instanceof PolicyError)) throw e;
          accepted = false;
        }
        if (!accepted) return;
        const set = compilePolicySet([{ policyId: 'p', effect: 'EFFECT_DENY', condition }]);
        const started = performance.now();
        const r = evaluate(set, deleteUsersContext(ids));
        const ms = performance.now() - started;
        // Whatever the data, one evaluation is bounded (a generous wall-clock margin: budget
        // errors show the meter stopped it, a decision shows it was cheap).
        expect(ms).toBeLessThan(500);
        expect(r.outcomes).toHaveLength(1);
      }),
      { numRuns: 300 },
    );
  });
});

import { describe, expect, it } from 'vitest';
import type { ConditionContext, EvaluationContext, PolicyUser } from './context.js';
import { combineVerdicts } from './decision.js';
import type { PolicyInput } from './policy.js';
import { PolicyError } from './policy-error.js';
import { compilePolicySet, evaluate } from './policy-set.js';

const alice: PolicyUser = {
  id: 'alice',
  tags: ['tag-ops'],
  email: 'alice@example.com',
  alias: 'Alice',
};
const bob: PolicyUser = { id: 'bob', tags: ['tag-ops', 'tag-sec'] };
const carol: PolicyUser = { id: 'carol', tags: [] };

const signWithKey: ConditionContext = {
  activity: {
    type: 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2',
    kind: 'SIGN_RAW_PAYLOAD',
    resource: 'PRIVATE_KEY',
    action: 'SIGN',
    params: { hash_function: 'HASH_FUNCTION_NO_OP', encoding: 'PAYLOAD_ENCODING_HEXADECIMAL' },
  },
  private_key: { id: 'key-1', tags: ['tag-keys'], imported: false, exported: false, label: 'hot' },
};

const createUsers: ConditionContext = {
  activity: {
    type: 'ACTIVITY_TYPE_CREATE_USERS_V3',
    kind: 'CREATE_USERS',
    resource: 'USER',
    action: 'CREATE',
    params: {},
  },
};

function ctx(
  condition: ConditionContext,
  approvers: PolicyUser[] = [alice],
  now: Date | number = Date.UTC(2026, 2, 3, 15),
): EvaluationContext {
  return { condition, consensus: { approvers, credentials: [] }, now };
}

function run(policies: PolicyInput[], context: EvaluationContext, strictDenyErrors = false) {
  return evaluate(compilePolicySet(policies, { strictDenyErrors }), context);
}

const allow = (policyId: string, fields: Partial<PolicyInput> = {}): PolicyInput => ({
  policyId,
  effect: 'EFFECT_ALLOW',
  ...fields,
});
const deny = (policyId: string, fields: Partial<PolicyInput> = {}): PolicyInput => ({
  policyId,
  effect: 'EFFECT_DENY',
  ...fields,
});

describe('evaluate: outcomes and the decision', () => {
  it('allows when an applicable ALLOW has its consensus', () => {
    const r = run(
      [
        allow('sign', {
          condition:
            "activity.resource == 'PRIVATE_KEY' && activity.action == 'SIGN' && private_key.tags.contains('tag-keys')",
          consensus: "approvers.any(user, user.id == 'alice')",
        }),
        allow('policies', {
          condition: "activity.resource == 'POLICY' && activity.action in ['CREATE','UPDATE']",
        }),
      ],
      ctx(signWithKey),
    );
    expect(r).toEqual({
      decision: 'ALLOW',
      decidingPolicyIds: ['sign'],
      outcomes: [
        { policyId: 'sign', outcome: 'OUTCOME_ALLOW' },
        { policyId: 'policies', outcome: 'OUTCOME_DENY_IMPLICIT' },
      ],
      errors: [],
    });
  });

  it('requires consensus until enough tagged approvers have voted', () => {
    const quorum = allow('quorum', {
      condition: "activity.action == 'SIGN'",
      consensus: "approvers.filter(user, user.tags.contains('tag-ops')).count() >= 2",
    });
    const first = run([quorum], ctx(signWithKey, [alice]));
    expect(first.decision).toBe('REQUIRES_CONSENSUS');
    expect(first.decidingPolicyIds).toEqual(['quorum']);
    expect(first.outcomes).toEqual([{ policyId: 'quorum', outcome: 'OUTCOME_REQUIRES_CONSENSUS' }]);
    expect(run([quorum], ctx(signWithKey, [alice, carol])).decision).toBe('REQUIRES_CONSENSUS');
    expect(run([quorum], ctx(signWithKey, [alice, bob])).decision).toBe('ALLOW');
  });

  it('denies explicitly when an applicable DENY matches, whatever allows it too', () => {
    const r = run(
      [
        allow('all-sign', { condition: "activity.action == 'SIGN'" }),
        deny('no-op-hash', {
          condition:
            "activity.type == 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2' && activity.params.hash_function == 'HASH_FUNCTION_NO_OP' && activity.params.encoding != 'PAYLOAD_ENCODING_EIP712'",
        }),
      ],
      ctx(signWithKey),
    );
    expect(r.decision).toBe('DENY');
    expect(r.decidingPolicyIds).toEqual(['no-op-hash']);
    expect(r.outcomes.map((o) => o.outcome)).toEqual(['OUTCOME_ALLOW', 'OUTCOME_DENY_EXPLICIT']);
  });

  it('applies a DENY only to the approvers its consensus names (docs: deny deletes for a tag)', () => {
    const policy = deny('no-deletes-for-sec', {
      consensus: "approvers.any(user, user.tags.contains('tag-sec'))",
      condition: "activity.action == 'DELETE'",
    });
    const del: ConditionContext = {
      activity: {
        type: 'ACTIVITY_TYPE_DELETE_USERS',
        kind: 'DELETE_USERS',
        resource: 'USER',
        action: 'DELETE',
        params: { user_ids: ['u1'] },
      },
    };
    const everyone = allow('everyone');
    expect(run([policy, everyone], ctx(del, [bob])).decision).toBe('DENY');
    const r = run([policy, everyone], ctx(del, [alice]));
    expect(r.decision).toBe('ALLOW');
    expect(r.outcomes[0]).toEqual({
      policyId: 'no-deletes-for-sec',
      outcome: 'OUTCOME_DENY_IMPLICIT',
    });
  });

  it('denies implicitly when nothing applies, with no deciding policy', () => {
    const r = run([allow('p', { condition: "activity.resource == 'WALLET'" })], ctx(signWithKey));
    expect(r.decision).toBe('DENY');
    expect(r.decidingPolicyIds).toEqual([]);
    expect(run([], ctx(signWithKey))).toEqual({
      decision: 'DENY',
      decidingPolicyIds: [],
      outcomes: [],
      errors: [],
    });
  });

  it('a policy with neither condition nor consensus always applies', () => {
    expect(run([allow('open')], ctx(createUsers)).decision).toBe('ALLOW');
    expect(run([allow('open'), deny('closed')], ctx(createUsers)).decidingPolicyIds).toEqual([
      'closed',
    ]);
  });

  it('evaluates the docs examples against realistic requests', () => {
    const deleteSelf = allow('self-delete', {
      consensus: "approvers.any(user, user.id == 'alice')",
      condition:
        "activity.type == 'ACTIVITY_TYPE_DELETE_USERS' && activity.params.user_ids.count() == 1 && 'alice' in activity.params.user_ids",
    });
    const deleting = (ids: string[]): ConditionContext => ({
      activity: {
        type: 'ACTIVITY_TYPE_DELETE_USERS',
        kind: 'DELETE_USERS',
        resource: 'USER',
        action: 'DELETE',
        params: { user_ids: ids },
      },
    });
    expect(run([deleteSelf], ctx(deleting(['alice']))).decision).toBe('ALLOW');
    expect(run([deleteSelf], ctx(deleting(['bob']))).decision).toBe('DENY');
    expect(run([deleteSelf], ctx(deleting(['alice', 'bob']))).decision).toBe('DENY');

    const usdc = '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48';
    const permit2 = allow('permit2', {
      condition: `eth.eip_712.domain.name == 'Permit2' && eth.eip_712.primary_type == 'PermitBatchTransferFrom' && eth.eip_712.message['permitted'].all(p, p['token'] == '${usdc}') && activity.type == 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2'`,
    });
    const typed = (tokens: string[]): ConditionContext => ({
      ...signWithKey,
      eth: {
        eip_712: {
          primary_type: 'PermitBatchTransferFrom',
          domain: { name: 'Permit2', version: '1', chain_id: 1n, verifying_contract: '0x0000' },
          message: {
            permitted: tokens.map((token) => ({ token, amount: 5n })),
            nonce: 1,
            deadline: 2,
          },
        },
      },
    });
    expect(run([permit2], ctx(typed([usdc, usdc]))).decision).toBe('ALLOW');
    expect(run([permit2], ctx(typed([usdc, '0xbad']))).decision).toBe('DENY');

    const erc20 = allow('erc20', {
      condition: "eth.tx.to == '0xc' && eth.tx.data[0..10] == '0xa9059cbb'",
    });
    const tx = (data: string): ConditionContext => ({
      ...signWithKey,
      eth: { tx: { to: '0xc', data, value: 0n } },
    });
    expect(run([erc20], ctx(tx(`0xa9059cbb${'00'.repeat(64)}`))).decision).toBe('ALLOW');
    expect(run([erc20], ctx(tx('0x095ea7b3'))).decision).toBe('DENY');
    // data too short for the slice: the clause errors (missing data) and the ALLOW grants nothing
    const short = run([erc20], ctx(tx('0x')));
    expect(short.outcomes[0]?.outcome).toBe('OUTCOME_ERROR');
    expect(short.errors[0]).toMatchObject({ field: 'condition', errorClass: 'missing' });

    const batch = allow('batch', {
      condition:
        "eth.tx.function_name == 'executeBatch' && eth.tx.contract_call_args['calls'].count() <= 2 && eth.tx.contract_call_args['calls'].all(call, call[0] == '0xc' && call[1] == 0)",
    });
    const calls = (list: unknown[]): ConditionContext => ({
      ...signWithKey,
      eth: { tx: { function_name: 'executeBatch', contract_call_args: { calls: list } } },
    });
    expect(
      run(
        [batch],
        ctx(
          calls([
            ['0xc', 0, '0x'],
            ['0xc', 0n, '0x12'],
          ]),
        ),
      ).decision,
    ).toBe('ALLOW');
    expect(run([batch], ctx(calls([['0xc', 1, '0x']]))).decision).toBe('DENY');

    const solana = allow('sol', {
      condition: "solana.tx.transfers.count == 1 && solana.tx.transfers[0].to == 'R1'",
    });
    const sol = (tos: string[]): ConditionContext => ({
      ...signWithKey,
      solana: { tx: { transfers: tos.map((to) => ({ from: 'S', to, amount: 10 })) } },
    });
    expect(run([solana], ctx(sol(['R1']))).decision).toBe('ALLOW');
    expect(run([solana], ctx(sol(['R1', 'R1']))).decision).toBe('DENY');
  });

  it('gates on time: outside the window a policy is TIME_INACTIVE and takes no part', () => {
    const march = allow('march', {
      condition: "activity.kind == 'SIGN_RAW_PAYLOAD'",
      time: "time.now >= Timestamp('2026-03-01T00:00:00Z') && time.now < Timestamp('2026-04-01T00:00:00Z')",
    });
    const denyAtNight = deny('night', { time: "CronSpan('0 22 * * *', '8h', 'America/New_York')" });
    const inMarch = run([march, denyAtNight], ctx(signWithKey, [alice], Date.UTC(2026, 2, 3, 15)));
    expect(inMarch.decision).toBe('ALLOW');
    expect(inMarch.outcomes[1]).toEqual({ policyId: 'night', outcome: 'OUTCOME_TIME_INACTIVE' });
    const atNight = run([march, denyAtNight], ctx(signWithKey, [alice], Date.UTC(2026, 2, 4, 4)));
    expect(atNight.decision).toBe('DENY');
    const april = run([march], ctx(signWithKey, [alice], new Date(Date.UTC(2026, 3, 1))));
    expect(april.outcomes[0]?.outcome).toBe('OUTCOME_TIME_INACTIVE');
    expect(april.decision).toBe('DENY');
  });

  it('reports REJECTED for allowing policies when evaluating a REJECT vote', () => {
    const r = evaluate(
      compilePolicySet([
        allow('a', { consensus: "approvers.any(u, u.id == 'alice')" }),
        allow('b', { consensus: 'approvers.count() >= 3' }),
        deny('c', { condition: "activity.action == 'DELETE'" }),
      ]),
      { ...ctx(signWithKey), rejected: true },
    );
    expect(r.outcomes.map((o) => o.outcome)).toEqual([
      'OUTCOME_REJECTED',
      'OUTCOME_REJECTED',
      'OUTCOME_DENY_IMPLICIT',
    ]);
    expect(r).toMatchObject({ decision: 'DENY', decidingPolicyIds: ['a', 'b'] });
  });

  it('refuses an invalid now', () => {
    expect(() => evaluate(compilePolicySet([]), { ...ctx(signWithKey), now: Number.NaN })).toThrow(
      RangeError,
    );
    expect(() =>
      evaluate(compilePolicySet([]), { ...ctx(signWithKey), now: new Date('x') }),
    ).toThrow(RangeError);
  });
});

describe('evaluate: errors (no short-circuit, fail closed)', () => {
  it('an erroring clause makes the whole policy ERROR, even when the other side would decide it', () => {
    // docs: `wallet.id == … || private_key.id == …` always errors — one of them is never there
    const r = run(
      [allow('either', { condition: "wallet.id == 'w1' || private_key.id == 'key-1'" })],
      ctx(signWithKey),
    );
    expect(r.outcomes).toEqual([{ policyId: 'either', outcome: 'OUTCOME_ERROR' }]);
    expect(r.decision).toBe('DENY');
    expect(r.errors).toEqual([
      {
        policyId: 'either',
        field: 'condition',
        errorClass: 'missing',
        message: 'wallet is not available for this request',
        countedAsDeny: false,
        keyword: 'wallet',
      },
    ]);
    // `false && <error>` is an error too
    expect(
      run([allow('f', { condition: "false && wallet.id == 'w'" })], ctx(signWithKey)).outcomes[0]
        ?.outcome,
    ).toBe('OUTCOME_ERROR');
    // and so is an error in any element of all()/any(), even after a match
    const anyErr = run(
      [allow('f', { condition: 'activity.params.xs.any(x, x == 1)' })],
      ctx({ ...signWithKey, activity: { ...signWithKey.activity!, params: { xs: [1, 'a'] } } }),
    );
    expect(anyErr.outcomes[0]?.outcome).toBe('OUTCOME_ERROR');
    expect(anyErr.errors[0]?.errorClass).toBe('type');
  });

  it('a DENY that errors only because the request lacks its data does not deny (the reference rule)', () => {
    const policies = [
      deny('btc-fee', { condition: 'bitcoin.tx.fee > 50000' }),
      deny('no-op', { condition: "activity.params.hash_function == 'HASH_FUNCTION_NO_OP'" }),
      allow('users', { condition: "activity.resource == 'USER'" }),
    ];
    const r = run(policies, ctx(createUsers));
    expect(r.outcomes.map((o) => o.outcome)).toEqual([
      'OUTCOME_ERROR',
      'OUTCOME_ERROR',
      'OUTCOME_ALLOW',
    ]);
    expect(r.errors.map((e) => e.errorClass)).toEqual(['missing', 'missing']);
    expect(r).toMatchObject({ decision: 'ALLOW', decidingPolicyIds: ['users'] });
    // strict mode: every erroring DENY denies
    expect(run(policies, ctx(createUsers), true)).toMatchObject({
      decision: 'DENY',
      decidingPolicyIds: ['btc-fee', 'no-op'],
    });
  });

  it('a DENY that errors on data of the wrong type denies (fail closed)', () => {
    const policies = [
      deny('big-permit', { condition: "eth.eip_712.message['value'] > 1000" }),
      allow('permits', { condition: "eth.eip_712.primary_type == 'Permit'" }),
    ];
    const permit = (value: unknown): ConditionContext => ({
      ...signWithKey,
      eth: { eip_712: { primary_type: 'Permit', domain: {}, message: { value } } },
    });
    expect(run(policies, ctx(permit(10))).decision).toBe('ALLOW');
    expect(run(policies, ctx(permit(5000n))).decision).toBe('DENY');
    // a decimal string where an int was expected: an error, and a deny — never an allow
    const r = run(policies, ctx(permit('5000000000000000000000')));
    expect(r.outcomes[0]?.outcome).toBe('OUTCOME_ERROR');
    expect(r).toMatchObject({ decision: 'DENY', decidingPolicyIds: ['big-permit'] });
    expect(r.errors[0]).toMatchObject({ errorClass: 'type' });
    // a float is not an int either
    expect(run(policies, ctx(permit(1.5))).decision).toBe('DENY');
  });

  it('a context value of the wrong type is an error, not a silent mismatch', () => {
    const bad = {
      ...signWithKey,
      private_key: { ...signWithKey.private_key!, tags: ['ok', 7] as unknown as string[] },
    };
    const r = run(
      [deny('tagged', { condition: "private_key.tags.contains('x')" }), allow('all')],
      ctx(bad),
    );
    expect(r.outcomes[0]?.outcome).toBe('OUTCOME_ERROR');
    expect(r.decision).toBe('DENY');
  });

  it('an invalid stored policy evaluates to ERROR: a DENY denies, an ALLOW grants nothing', () => {
    const set = compilePolicySet([
      allow('ok', { condition: "activity.resource == 'USER'" }),
      deny('broken-deny', { condition: 'activity.resource ==' }),
      allow('broken-allow', { consensus: "activity.resource == 'USER'" }),
    ]);
    expect(set.compileErrors.map((e) => e.policyId)).toEqual(['broken-deny', 'broken-allow']);
    expect(set.compileErrors[0]?.error).toBeInstanceOf(PolicyError);
    const r = evaluate(set, ctx(createUsers));
    expect(r.outcomes.map((o) => o.outcome)).toEqual([
      'OUTCOME_ALLOW',
      'OUTCOME_ERROR',
      'OUTCOME_ERROR',
    ]);
    expect(r).toMatchObject({ decision: 'DENY', decidingPolicyIds: ['broken-deny'] });
    expect(r.errors.map((e) => [e.field, e.errorClass])).toEqual([
      ['condition', 'invalid'],
      ['consensus', 'invalid'],
    ]);
    const unknownEffect = evaluate(
      compilePolicySet([{ policyId: 'x', effect: 'EFFECT_MAYBE' as never }, allow('ok')]),
      ctx(createUsers),
    );
    expect(unknownEffect).toMatchObject({ decision: 'DENY', decidingPolicyIds: ['x'] });
  });

  it('reads no inherited properties from dynamic data', () => {
    const r = run(
      [
        allow('proto', {
          condition: "activity.params['constructor'] == 'x' || activity.params.toString == 'x'",
        }),
      ],
      ctx(createUsers),
    );
    expect(r.outcomes[0]?.outcome).toBe('OUTCOME_ERROR');
    expect(r.errors[0]?.errorClass).toBe('missing');
  });
});

describe('compilePolicySet: once per content', () => {
  const policies = [
    allow('a', { condition: "activity.action == 'SIGN'" }),
    deny('b', { consensus: 'approvers.count() > 5' }),
  ];

  it('returns the same compiled set for the same content, a new one when anything changes', () => {
    const first = compilePolicySet(policies);
    expect(compilePolicySet(policies.map((p) => ({ ...p })))).toBe(first);
    expect(compilePolicySet(policies, { strictDenyErrors: true })).not.toBe(first);
    expect(
      compilePolicySet([policies[0]!, { ...policies[1]!, consensus: 'approvers.count() > 6' }]),
    ).not.toBe(first);
    expect(compilePolicySet([...policies].reverse())).not.toBe(first);
  });

  it('never mistakes one set for another, whatever their fingerprints', () => {
    // same lengths, same ids, same first and last policy: only the middle differs
    const a = [allow('x', { condition: 'true' }), allow('m', { condition: 'true' }), deny('y')];
    const b = [allow('x', { condition: 'true' }), deny('m', { condition: 'true' }), deny('y')];
    const c = [allow('x', { condition: 'true' }), allow('m', { consensus: 'true' }), deny('y')];
    const sets = [compilePolicySet(a), compilePolicySet(b), compilePolicySet(c)];
    expect(new Set(sets).size).toBe(3);
    expect(compilePolicySet(b.map((p) => ({ ...p })))).toBe(sets[1]);
    expect(evaluate(sets[0]!, ctx(createUsers)).decision).toBe('DENY');
    expect(evaluate(sets[0]!, ctx(createUsers)).outcomes.map((o) => o.outcome)).toEqual([
      'OUTCOME_ALLOW',
      'OUTCOME_ALLOW',
      'OUTCOME_DENY_EXPLICIT',
    ]);
    // blank fields are absent fields
    expect(compilePolicySet([allow('x', { condition: ' \n ' })])).toBe(
      compilePolicySet([allow('x')]),
    );
  });

  it('evaluates an expression shared by several policies once, with the same outcome for each', () => {
    const shared = "activity.params.hash_function == 'HASH_FUNCTION_NO_OP'";
    const r = run(
      [deny('a', { condition: shared }), deny('b', { condition: shared }), allow('c')],
      ctx(createUsers),
    );
    expect(r.outcomes.map((o) => o.outcome)).toEqual([
      'OUTCOME_ERROR',
      'OUTCOME_ERROR',
      'OUTCOME_ALLOW',
    ]);
    expect(r.errors).toHaveLength(2);
    expect(
      run([deny('a', { condition: shared }), deny('b', { condition: shared })], ctx(signWithKey))
        .decidingPolicyIds,
    ).toEqual(['a', 'b']);
  });
});

describe('evaluate: re-entrance', () => {
  it('stays right when a context getter evaluates the same set again', () => {
    const set = compilePolicySet([
      allow('a', { condition: "activity.resource == 'USER'" }),
      allow('b', { condition: "activity.resource == 'USER'" }),
    ]);
    let inner: ReturnType<typeof evaluate> | undefined;
    const sneaky = {
      get activity() {
        inner ??= evaluate(
          set,
          ctx({ activity: { ...createUsers.activity!, resource: 'WALLET' } }),
        );
        return createUsers.activity;
      },
    } as ConditionContext;
    const outer = evaluate(set, ctx(sneaky));
    expect(outer).toMatchObject({ decision: 'ALLOW', decidingPolicyIds: ['a', 'b'] });
    expect(inner).toMatchObject({ decision: 'DENY', decidingPolicyIds: [] });
    // and the set still works afterwards
    expect(evaluate(set, ctx(createUsers)).decision).toBe('ALLOW');
  });
});

describe('combineVerdicts', () => {
  it('deny wins, then rejection, then allow, then consensus, else implicit deny', () => {
    expect(combineVerdicts([])).toEqual({ decision: 'DENY', decidingPolicyIds: [] });
    expect(
      combineVerdicts([
        { policyId: 'a', verdict: 'allow' },
        { policyId: 'c', verdict: 'consensus' },
        { policyId: 'd', verdict: 'deny' },
        { policyId: 'd', verdict: 'deny' },
      ]),
    ).toEqual({ decision: 'DENY', decidingPolicyIds: ['d'] });
    expect(
      combineVerdicts([
        { policyId: 'r', verdict: 'rejected' },
        { policyId: 'a', verdict: 'allow' },
      ]),
    ).toEqual({
      decision: 'DENY',
      decidingPolicyIds: ['r'],
    });
    expect(
      combineVerdicts([
        { policyId: 'c', verdict: 'consensus' },
        { policyId: 'a', verdict: 'allow' },
      ]),
    ).toEqual({
      decision: 'ALLOW',
      decidingPolicyIds: ['a'],
    });
    expect(
      combineVerdicts([
        { policyId: 'c', verdict: 'consensus' },
        { policyId: 'n', verdict: 'none' },
      ]),
    ).toEqual({
      decision: 'REQUIRES_CONSENSUS',
      decidingPolicyIds: ['c'],
    });
  });

  it("lets the activities layer fold an implicit allow in after the engine's verdicts", () => {
    const engine = run([deny('d', { condition: "activity.action == 'CREATE'" })], ctx(createUsers));
    const withImplicit = combineVerdicts([
      ...engine.decidingPolicyIds.map((policyId) => ({ policyId, verdict: 'deny' as const })),
      { policyId: 'implicit:own-credentials', verdict: 'allow' },
    ]);
    expect(withImplicit).toEqual({ decision: 'DENY', decidingPolicyIds: ['d'] });
  });
});

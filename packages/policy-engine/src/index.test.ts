/** The README's example, through the package's public entry point. */
import { describe, expect, it } from 'vitest';
import {
  checkPolicy,
  combineVerdicts,
  compilePolicySet,
  type EvaluationContext,
  evaluate,
  PolicyError,
} from './index.js';

describe('the public API (README example)', () => {
  it('checks when written, compiles once, evaluates per request', () => {
    // Write time: refuse bad policies with a position and a detail.
    expect(() => checkPolicy({ consensus: "activity.action == 'SIGN'" })).toThrow(PolicyError);
    let error: unknown;
    try {
      checkPolicy({ condition: "activity.action == 'SIGN' && wallet.idd == 'w1'" });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(PolicyError);
    expect(error).toMatchObject({
      kind: 'condition',
      position: { offset: 36, line: 1, column: 37 },
      detail: "Wallet has no field 'idd' (fields: id, imported, exported, label)",
      message:
        "invalid policy condition: Wallet has no field 'idd' (fields: id, imported, exported, label) (line 1, column 37)",
    });

    const set = compilePolicySet([
      {
        policyId: 'sign-with-hot-keys',
        effect: 'EFFECT_ALLOW',
        condition: "activity.action == 'SIGN' && private_key.tags.contains('hot')",
        consensus: "approvers.filter(u, u.tags.contains('ops')).count() >= 2",
      },
      {
        policyId: 'no-btc-fee-over-50k',
        effect: 'EFFECT_DENY',
        condition: 'bitcoin.tx.fee > 50000',
      },
    ]);

    const context: EvaluationContext = {
      condition: {
        activity: {
          type: 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2',
          kind: 'SIGN_RAW_PAYLOAD',
          resource: 'PRIVATE_KEY',
          action: 'SIGN',
          params: {
            hash_function: 'HASH_FUNCTION_KECCAK256',
            encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
          },
        },
        private_key: { id: 'k1', tags: ['hot'], imported: false, exported: false, label: 'hot 1' },
      },
      consensus: { approvers: [{ id: 'u1', tags: ['ops'] }], credentials: [] },
      now: new Date('2026-03-03T15:00:00Z'),
    };
    const first = evaluate(set, context);
    expect(first).toEqual({
      decision: 'REQUIRES_CONSENSUS',
      decidingPolicyIds: ['sign-with-hot-keys'],
      outcomes: [
        { policyId: 'sign-with-hot-keys', outcome: 'OUTCOME_REQUIRES_CONSENSUS' },
        { policyId: 'no-btc-fee-over-50k', outcome: 'OUTCOME_ERROR' },
      ],
      errors: [
        {
          policyId: 'no-btc-fee-over-50k',
          field: 'condition',
          errorClass: 'missing',
          message: 'bitcoin.tx is not available for this request',
          countedAsDeny: false,
          keyword: 'bitcoin.tx',
        },
      ],
    });

    const approved = evaluate(set, {
      ...context,
      consensus: {
        approvers: [
          { id: 'u1', tags: ['ops'] },
          { id: 'u2', tags: ['ops'] },
        ],
        credentials: [],
      },
    });
    expect(approved.decision).toBe('ALLOW');

    // The activities layer folds its own verdicts in: deny still wins.
    expect(
      combineVerdicts([
        ...approved.decidingPolicyIds.map((policyId) => ({ policyId, verdict: 'allow' as const })),
        { policyId: 'implicit:read', verdict: 'allow' },
      ]).decision,
    ).toBe('ALLOW');
  });
});

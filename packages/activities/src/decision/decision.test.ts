/**
 * The pure parts of the decision: root-quorum standing, the documented `activity.params`, and
 * write-time policy checks mapped to the catalogue. (The whole decision runs through the public
 * API in packages/server/src/policies.test.ts and consensus-clients.test.ts.)
 */
import { KeyholdError } from '@keyhold/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { OrganizationRecord, VoteRecord } from '../records.js';
import { policyParamsOf } from './condition-context.js';
import { rootQuorumStanding } from './decide.js';
import { checkPolicyTexts } from './policy-errors.js';

const org = (threshold: number, userIds: string[]): OrganizationRecord => ({
  organizationId: 'o',
  name: 'o',
  rootQuorum: { threshold, userIds },
  createdAt: 0,
  updatedAt: 0,
});

const vote = (userId: string, approved = true): VoteRecord =>
  ({
    userId,
    selection: approved ? 'VOTE_SELECTION_APPROVED' : 'VOTE_SELECTION_REJECTED',
  }) as VoteRecord;

describe('rootQuorumStanding', () => {
  it('counts distinct root approvals; others do not count', () => {
    const o = org(2, ['r1', 'r2', 'r3']);
    expect(rootQuorumStanding(o, [vote('r1'), vote('r1'), vote('u')])).toMatchObject({
      approvals: 1,
      reached: false,
      engaged: true,
    });
    expect(rootQuorumStanding(o, [vote('r1'), vote('r2')]).reached).toBe(true);
    expect(rootQuorumStanding(o, [vote('u')]).engaged).toBe(false);
  });

  it('is no longer engaged once rejections leave too few root users to reach the threshold', () => {
    const o = org(2, ['r1', 'r2', 'r3']);
    expect(rootQuorumStanding(o, [vote('r1'), vote('r2', false)]).engaged).toBe(true);
    expect(rootQuorumStanding(o, [vote('r1'), vote('r2', false), vote('r3', false)]).engaged).toBe(
      false,
    );
  });

  it('property: reached iff at least `threshold` distinct root users approved', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4 }),
        fc.array(
          fc.record({ user: fc.constantFrom('r1', 'r2', 'r3', 'r4', 'x'), ok: fc.boolean() }),
        ),
        (threshold, votes) => {
          const o = org(threshold, ['r1', 'r2', 'r3', 'r4']);
          const approvers = new Set(
            votes.filter((v) => v.ok && v.user.startsWith('r')).map((v) => v.user),
          );
          const standing = rootQuorumStanding(
            o,
            votes.map((v) => vote(v.user, v.ok)),
          );
          expect(standing.reached).toBe(approvers.size >= threshold);
          expect(standing.approvals).toBe(approvers.size);
        },
      ),
    );
  });
});

describe('policyParamsOf: only the documented parameters, snake_case', () => {
  it.each([
    [
      'SIGN_RAW_PAYLOAD',
      { signWith: 'x', payload: 'p', hashFunction: 'HASH_FUNCTION_NO_OP', encoding: 'E' },
      { hash_function: 'HASH_FUNCTION_NO_OP', encoding: 'E' },
    ],
    ['DELETE_USERS', { userIds: ['a'] }, { user_ids: ['a'] }],
    ['CREATE_API_KEYS', { userId: 'u', apiKeys: [] }, { user_id: 'u' }],
    ['DELETE_API_KEYS', { userId: 'u', apiKeyIds: ['k'] }, { user_id: 'u', api_key_ids: ['k'] }],
    ['UPDATE_WALLET', { walletId: 'w', walletName: 'n' }, { wallet_id: 'w' }],
    ['CREATE_WALLET', { walletName: 'n', accounts: [] }, {}],
  ])('%s', (kind, parameters, params) => {
    expect(policyParamsOf(kind, parameters)).toEqual(params);
  });
});

describe('checkPolicyTexts', () => {
  const refusal = (texts: Parameters<typeof checkPolicyTexts>[0]) => {
    try {
      checkPolicyTexts(texts, { policyIndex: 2 });
    } catch (error) {
      expect(error).toBeInstanceOf(KeyholdError);
      return (error as KeyholdError).toStatus();
    }
    throw new Error('expected a refusal');
  };

  it('accepts good texts and blank ones', () => {
    expect(() =>
      checkPolicyTexts({
        condition: "activity.action == 'SIGN'",
        consensus: 'approvers.count() >= 2',
        time: '',
      }),
    ).not.toThrow();
  });

  it('refuses with the field’s message, where, and what', () => {
    expect(refusal({ condition: "wallet.idd == 'w'" })).toMatchObject({
      code: 3,
      message: 'invalid policy condition',
      details: [{ field: 'condition', line: 1, column: 8, policyIndex: 2 }],
    });
    expect(refusal({ consensus: "activity.type == 'x'" }).message).toBe('invalid policy consensus');
    expect(refusal({ time: 'time.now' }).message).toBe('invalid policy time');
  });
});

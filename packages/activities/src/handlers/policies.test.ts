/** Policy handlers against a handler context, no store: prechecks and the id they answer. */
import { describe, expect, it } from 'vitest';
import type { PolicyRecord } from '../records.js';
import { handlerContext } from './__fixtures__/handler-context.js';
import { createPoliciesHandler, deletePolicyHandler, updatePolicyHandler } from './policies.js';

const settings = { allowPrivateWebhookDestinations: false };
const definitionOf = (type: Parameters<typeof handlerContext>[0]['type']) =>
  handlerContext({ type }).definition;

describe('CREATE_POLICIES', () => {
  it('refuses two policies with one name, naming the second', () => {
    const policy = { policyName: 'p', effect: 'EFFECT_ALLOW' } as const;
    expect(() =>
      createPoliciesHandler.precheck?.(
        { policies: [policy, policy] },
        definitionOf('ACTIVITY_TYPE_CREATE_POLICIES'),
        settings,
      ),
    ).toThrow(
      expect.objectContaining({
        key: 'POLICY_NAME_NOT_UNIQUE',
        context: { policyName: 'p', policyIndex: 1 },
      }),
    );
  });
});

describe('UPDATE_POLICY', () => {
  it('checks a V1 intent, which has no `time`, like a V2 one', () => {
    const definition = definitionOf('ACTIVITY_TYPE_UPDATE_POLICY');
    expect(() =>
      updatePolicyHandler.precheck?.(
        { policyId: 'x', policyCondition: 'true' },
        definition,
        settings,
      ),
    ).not.toThrow();
    expect(() =>
      updatePolicyHandler.precheck?.({ policyId: 'x', policyCondition: '(' }, definition, settings),
    ).toThrow(expect.objectContaining({ key: 'INVALID_POLICY_CONDITION' }));
  });
});

describe('DELETE_POLICY', () => {
  const stored = { policyId: 'abc-def' } as PolicyRecord;

  it('deletes the policy by its id in any case and answers it lower-cased', async () => {
    const deleted: string[] = [];
    const ctx = handlerContext({
      type: 'ACTIVITY_TYPE_DELETE_POLICY',
      tx: {
        policies: {
          get: async (_org, id) => (id === stored.policyId ? stored : undefined),
          delete: async (_org, id) => void deleted.push(id),
        },
      },
    });
    expect(await deletePolicyHandler.execute(ctx, { policyId: 'ABC-DEF' })).toEqual({
      policyId: 'abc-def',
    });
    expect(deleted).toEqual(['abc-def']);
  });

  it('fails for a policy the organization does not have', async () => {
    const ctx = handlerContext({
      type: 'ACTIVITY_TYPE_DELETE_POLICY',
      tx: { policies: { get: async () => undefined } },
    });
    await expect(deletePolicyHandler.execute(ctx, { policyId: 'nope' })).rejects.toMatchObject({
      key: 'POLICY_NOT_FOUND',
    });
  });
});

/**
 * list_policies, get_policy, get_policy_evaluations, list_user_tags, list_private_key_tags.
 * @module
 */
import { KeyholdError } from '@keyhold/protocol';
import { policyEvaluationView, policyView, tagView } from '../views.js';
import type { QueryHandlerOf } from './query-handler.js';

export const listPolicies: QueryHandlerOf<'list_policies'> = async (ctx) => ({
  policies: (await ctx.tx.policies.list(ctx.organization.organizationId)).map(policyView),
});

export const getPolicy: QueryHandlerOf<'get_policy'> = async (ctx, body) => {
  const policy = await ctx.tx.policies.get(
    ctx.organization.organizationId,
    body.policyId.toLowerCase(),
  );
  if (!policy) throw new KeyholdError('POLICY_NOT_FOUND', { policyId: body.policyId });
  return { policy: policyView(policy) };
};

/** Per decision on the activity (one per vote), the outcome of every policy. */
export const getPolicyEvaluations: QueryHandlerOf<'get_policy_evaluations'> = async (ctx, body) => {
  const orgId = ctx.organization.organizationId;
  const activityId = body.activityId.toLowerCase();
  if (!(await ctx.tx.activities.get(orgId, activityId))) {
    throw new KeyholdError('ACTIVITY_NOT_FOUND', { activityId: body.activityId });
  }
  const evaluations = await ctx.tx.policyEvaluations.listByActivity(orgId, activityId);
  return { policyEvaluations: evaluations.map(policyEvaluationView) };
};

export const listUserTags: QueryHandlerOf<'list_user_tags'> = async (ctx) => ({
  userTags: (await ctx.tx.userTags.list(ctx.organization.organizationId)).map((t) =>
    tagView(t, 'TAG_TYPE_USER'),
  ),
});

export const listPrivateKeyTags: QueryHandlerOf<'list_private_key_tags'> = async (ctx) => ({
  privateKeyTags: (await ctx.tx.privateKeyTags.list(ctx.organization.organizationId)).map((t) =>
    tagView(t, 'TAG_TYPE_PRIVATE_KEY'),
  ),
});

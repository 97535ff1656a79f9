/**
 * CREATE_POLICY (V3; V1 and V2 refused), CREATE_POLICIES, UPDATE_POLICY (V1, V2), DELETE_POLICY, DELETE_POLICIES.
 * Expressions are parsed and type-checked before anything is stored (a bad one refuses the
 * request, 400); names are unique in the organization ("policy label must be unique").
 * @module
 */
import { type IntentOf, type IntentOfKind, KeyholdError } from '@keyhold/protocol';
import { checkPolicyTexts } from '../decision/policy-errors.js';
import { StoreConflictError } from '../ports/store.js';
import type { PolicyRecord } from '../records.js';
import type { ActivityContext, HandlerOf } from './activity-handler.js';

/** A policy to create: CREATE_POLICY V3's intent, also each of CREATE_POLICIES' `policies`. */
type PolicyParams = IntentOf<'ACTIVITY_TYPE_CREATE_POLICY_V3'>;

/** An expression as stored: absent when empty. */
const expression = (text: string | undefined): string | undefined =>
  text === undefined || text === '' ? undefined : text;

function withExpressions(
  record: PolicyRecord,
  texts: { condition?: string; consensus?: string; time?: string },
): PolicyRecord {
  const out: PolicyRecord = { ...record };
  for (const field of ['condition', 'consensus', 'time'] as const) {
    if (!(field in texts)) continue;
    const text = expression(texts[field]);
    if (text === undefined) delete out[field];
    else out[field] = text;
  }
  return out;
}

const notUnique = (policyName: string) =>
  new KeyholdError('POLICY_NAME_NOT_UNIQUE', { policyName });

/** Runs a store write; a name conflict (a racing writer) becomes the catalogue refusal. */
async function guardName(policyName: string, write: () => Promise<void>): Promise<void> {
  try {
    await write();
  } catch (error) {
    if (StoreConflictError.is(error) && error.constraint === 'policy_name') {
      throw notUnique(policyName);
    }
    throw error;
  }
}

async function createPolicy(ctx: ActivityContext, p: PolicyParams): Promise<string> {
  const orgId = ctx.organization.organizationId;
  if (await ctx.tx.policies.findByName(orgId, p.policyName)) throw notUnique(p.policyName);
  const record = withExpressions(
    {
      organizationId: orgId,
      policyId: ctx.ids.uuid(),
      policyName: p.policyName,
      effect: p.effect,
      notes: p.notes ?? '',
      createdAt: ctx.now,
      updatedAt: ctx.now,
    },
    { condition: p.condition, consensus: p.consensus, time: p.time },
  );
  await guardName(p.policyName, () => ctx.tx.policies.insert(record));
  return record.policyId;
}

const checkTexts = (p: PolicyParams, context: Record<string, unknown> = {}) =>
  checkPolicyTexts({ condition: p.condition, consensus: p.consensus, time: p.time }, context);

/** V1 and V2 (selector policies) are refused before anything is stored: see the catalogue. */
const isV3 = (p: IntentOfKind<'CREATE_POLICY'>): p is PolicyParams => !('selectors' in p);

export const createPolicyHandler: HandlerOf<'CREATE_POLICY'> = {
  precheck(p, definition) {
    if (definition.version < 3 || !isV3(p)) {
      throw new KeyholdError('SELECTOR_POLICY_NOT_AVAILABLE', { type: definition.type });
    }
    checkTexts(p);
  },
  async execute(ctx, p) {
    if (!isV3(p)) throw new KeyholdError('SELECTOR_POLICY_NOT_AVAILABLE', {});
    return { policyId: await createPolicy(ctx, p) };
  },
};

export const createPoliciesHandler: HandlerOf<'CREATE_POLICIES'> = {
  precheck(p) {
    const names = new Set<string>();
    p.policies.forEach((policy, policyIndex) => {
      checkTexts(policy, { policyIndex });
      if (names.has(policy.policyName)) {
        throw new KeyholdError('POLICY_NAME_NOT_UNIQUE', {
          policyName: policy.policyName,
          policyIndex,
        });
      }
      names.add(policy.policyName);
    });
  },
  async execute(ctx, p) {
    const policyIds: string[] = [];
    for (const policy of p.policies) policyIds.push(await createPolicy(ctx, policy));
    return { policyIds };
  },
};

/** Every UPDATE_POLICY version's intent is a V2 intent (V1 only lacks the optional `time`). */
type UpdatePolicyParams = IntentOf<'ACTIVITY_TYPE_UPDATE_POLICY_V2'>;

export const updatePolicyHandler: HandlerOf<'UPDATE_POLICY'> = {
  precheck(intent) {
    const p: UpdatePolicyParams = intent;
    checkPolicyTexts({ condition: p.policyCondition, consensus: p.policyConsensus, time: p.time });
  },
  async execute(ctx, intent) {
    const p: UpdatePolicyParams = intent;
    const orgId = ctx.organization.organizationId;
    const policyId = p.policyId.toLowerCase();
    const policy = await ctx.tx.policies.get(orgId, policyId);
    if (!policy) throw new KeyholdError('POLICY_NOT_FOUND', { policyId: p.policyId });
    if (p.policyName !== undefined && p.policyName !== policy.policyName) {
      const holder = await ctx.tx.policies.findByName(orgId, p.policyName);
      if (holder && holder.policyId !== policyId) throw notUnique(p.policyName);
    }
    const texts: { condition?: string; consensus?: string; time?: string } = {};
    if (p.policyCondition !== undefined) texts.condition = p.policyCondition;
    if (p.policyConsensus !== undefined) texts.consensus = p.policyConsensus;
    if (p.time !== undefined) texts.time = p.time;
    const updated = withExpressions(
      {
        ...policy,
        ...(p.policyName !== undefined ? { policyName: p.policyName } : {}),
        ...(p.policyEffect !== undefined ? { effect: p.policyEffect } : {}),
        ...(p.policyNotes !== undefined ? { notes: p.policyNotes } : {}),
        updatedAt: ctx.now,
      },
      texts,
    );
    await guardName(updated.policyName, () => ctx.tx.policies.update(updated));
    return { policyId };
  },
};

async function deletePolicies(ctx: ActivityContext, ids: readonly string[]): Promise<string[]> {
  const orgId = ctx.organization.organizationId;
  const unique = [...new Set(ids.map((id) => id.toLowerCase()))];
  for (const policyId of unique) {
    if (!(await ctx.tx.policies.get(orgId, policyId))) {
      throw new KeyholdError('POLICY_NOT_FOUND', { policyId });
    }
  }
  for (const policyId of unique) await ctx.tx.policies.delete(orgId, policyId);
  return unique;
}

export const deletePolicyHandler: HandlerOf<'DELETE_POLICY'> = {
  async execute(ctx, p) {
    const policyId = p.policyId.toLowerCase();
    await deletePolicies(ctx, [policyId]);
    return { policyId };
  },
};

export const deletePoliciesHandler: HandlerOf<'DELETE_POLICIES'> = {
  async execute(ctx, p) {
    return { policyIds: await deletePolicies(ctx, p.policyIds) };
  },
};

/**
 * Who may vote on an activity awaiting consensus, and until when.
 *
 * A user may approve or reject (once) while the activity is CONSENSUS_NEEDED and its approval
 * window is open, when they are a member of the root quorum, or when they are *named* in the
 * consensus of an ALLOW policy that applies to the activity: their approval can make that
 * consensus hold. "Can make it hold" is tested two ways (either suffices):
 *  - from the approvals so far, adding theirs turns the policy to OUTCOME_ALLOW
 *    (`approvers.any(u, u.id == '…')`, `approvers.filter(u, u.tags.contains('ops')).count() >= 2`);
 *  - among every user of the organization, the policy allows with them and not without them
 *    (`approvers.any(u, u.id == A) && approvers.any(u, u.id == B)` names both A and B).
 * Their approval is counted several times over in both tests, so a count the user alone cannot
 * reach still shows whose approvals count.
 * @module
 */
import { evaluate, type PolicyCredential, type PolicyUser } from '@keyhold/policy-engine';
import { activityDefinitionOf, ROOT_QUORUM_ONLY_KINDS } from '@keyhold/protocol';
import type { ActivityScope } from '../activity-scope.js';
import type { ActivityRecord, OrganizationRecord } from '../records.js';
import { NO_VOTING_RIGHTS, type VotingRights } from '../views.js';
import { consensusContextOf, policyCredentialOfApiKey, policyUser } from './consensus-context.js';

/** Approvals expire 24 h after the first vote unless configured otherwise. */
export const DEFAULT_CONSENSUS_EXPIRY_MS = 24 * 60 * 60 * 1000;

/** How many times a prospective approver's approval is counted when testing if they are named. */
const NAMED_COPIES = 32;

/** When the approval window of an activity closes: `expiryMs` after its first vote. */
export function consensusExpiresAt(record: ActivityRecord, expiryMs: number): number {
  return (record.votes[0]?.createdAt ?? record.createdAt) + expiryMs;
}

export function consensusExpired(record: ActivityRecord, now: number, expiryMs: number): boolean {
  return now >= consensusExpiresAt(record, expiryMs);
}

/** True when the user's approval can make the consensus of an applicable ALLOW policy hold. */
export async function namedInConsensus(
  scope: ActivityScope,
  organization: OrganizationRecord,
  record: ActivityRecord,
  userId: string,
  now: number,
): Promise<boolean> {
  const definition = activityDefinitionOf(record.type);
  if (!definition || ROOT_QUORUM_ONLY_KINDS.has(definition.kind)) return false;
  const { tx } = scope;
  const orgId = organization.organizationId;
  const set = await scope.policySet();
  if (!set.policies.some((p) => p.effect === 'EFFECT_ALLOW')) return false;
  const user = await tx.users.get(orgId, userId);
  if (!user) return false;

  const condition = await scope.conditionContext(definition, record.parameters);
  const allowing = (approvers: PolicyUser[], credentials: PolicyCredential[]) =>
    new Set(
      evaluate(set, { condition, consensus: { approvers, credentials }, now })
        .outcomes.filter((o) => o.outcome === 'OUTCOME_ALLOW')
        .map((o) => o.policyId),
    );
  const gains = (without: Set<string>, withUser: Set<string>) =>
    [...withUser].some((id) => !without.has(id));

  const me = Array<PolicyUser>(NAMED_COPIES).fill(policyUser(user));
  const myCredentials = (await tx.apiKeys.listByUser(orgId, userId)).map(policyCredentialOfApiKey);
  const others = record.votes.filter((v) => v.userId !== userId);
  const so = await consensusContextOf(tx, orgId, others);
  const soFar = [...so.approvers];
  const soFarCredentials = [...so.credentials];
  if (
    gains(
      allowing(soFar, soFarCredentials),
      allowing([...soFar, ...me], [...soFarCredentials, ...myCredentials]),
    )
  ) {
    return true;
  }

  const everyone = (await tx.users.list(orgId)).filter((u) => u.userId !== userId);
  const everyoneCredentials = (await tx.apiKeys.listByOrganization(orgId))
    .filter((k) => k.userId !== userId)
    .map(policyCredentialOfApiKey);
  const everyoneElse = everyone.map(policyUser);
  return gains(
    allowing(everyoneElse, everyoneCredentials),
    allowing([...everyoneElse, ...me], [...everyoneCredentials, ...myCredentials]),
  );
}

/**
 * What `userId` may do with the activity now: vote once while it awaits consensus and its
 * window is open, as a root-quorum member or a user named in an applicable consensus.
 */
export async function votingRights(
  scope: ActivityScope,
  organization: OrganizationRecord,
  record: ActivityRecord,
  userId: string,
  now: number,
  expiryMs: number,
): Promise<VotingRights> {
  if (record.status !== 'ACTIVITY_STATUS_CONSENSUS_NEEDED') return NO_VOTING_RIGHTS;
  if (record.organizationId !== organization.organizationId) return NO_VOTING_RIGHTS;
  if (consensusExpired(record, now, expiryMs)) return NO_VOTING_RIGHTS;
  if (record.votes.some((v) => v.userId === userId)) return NO_VOTING_RIGHTS;
  if (
    organization.rootQuorum.userIds.includes(userId) ||
    (await namedInConsensus(scope, organization, record, userId, now))
  ) {
    return { canApprove: true, canReject: true };
  }
  return NO_VOTING_RIGHTS;
}

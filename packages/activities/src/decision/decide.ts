/**
 * The decision on every activity (wire-compat §5), made when it is submitted and again on every
 * vote:
 *
 *  1. A rejection by a user entitled to vote (checked by the caller) → REJECTED.
 *  2. Root-quorum approval (distinct root users' APPROVED votes ≥ threshold) → ALLOW, bypassing
 *     policies.
 *  3. UPDATE_ROOT_QUORUM, SET/REMOVE_ORGANIZATION_FEATURE and UPDATE_ORGANIZATION_NAME are
 *     decided by the root quorum alone: short of its threshold they wait for it (when a root
 *     user has approved) or are denied.
 *  4. Otherwise the organization's policies decide (compiled once per content by the engine's
 *     cache): any applicable DENY → DENY; else an applicable ALLOW whose consensus is met →
 *     ALLOW; else the implicit allow of managing your own API keys; else an ALLOW waiting for
 *     its consensus → CONSENSUS_NEEDED; else DENY (implicit).
 *  5. A DENY while a root user has approved, and the root quorum can still reach its threshold,
 *     waits for the root quorum instead (CONSENSUS_NEEDED): the root quorum could approve it.
 *
 * Every decision carries the outcome of each policy, for `get_policy_evaluations`.
 * @module
 */
import {
  type CompiledPolicySet,
  compilePolicySet,
  evaluate,
  type PolicyDecision,
} from '@keyhold/policy-engine';
import { type ActivityDefinition, ROOT_QUORUM_ONLY_KINDS } from '@keyhold/protocol';
import type { ActivityScope } from '../activity-scope.js';
import type { StoreTransaction } from '../ports/store.js';
import type { OrganizationRecord, PolicyOutcomeRecord, VoteRecord } from '../records.js';
import { consensusContextOf } from './consensus-context.js';

/** What is being decided: an activity of an organization with the votes cast so far. */
export interface DecisionSubject {
  readonly organization: OrganizationRecord;
  readonly definition: ActivityDefinition;
  readonly parameters: Readonly<Record<string, unknown>>;
  /** Every vote so far, the submitter's first. */
  readonly votes: readonly VoteRecord[];
}

export type DecisionOutcome = 'ALLOW' | 'CONSENSUS_NEEDED' | 'DENY' | 'REJECTED';

export type DecisionReason =
  | 'rejected'
  | 'root-quorum'
  | 'policy'
  | 'own-credentials'
  | 'awaiting-consensus'
  | 'awaiting-root-quorum'
  | 'explicit-deny'
  | 'implicit-deny'
  | 'root-quorum-only';

export interface ActivityDecision {
  readonly outcome: DecisionOutcome;
  readonly reason: DecisionReason;
  /** The policies that decided (denying, allowing or awaiting consensus); may be empty. */
  readonly decidingPolicyIds: readonly string[];
  /** One entry per policy of the organization (empty for root-quorum-only activities). */
  readonly policyEvaluations: PolicyOutcomeRecord[];
}

/** The organization's policies, compiled (a cache hit unless they changed). */
export async function loadPolicySet(
  tx: StoreTransaction,
  organizationId: string,
): Promise<CompiledPolicySet> {
  const policies = await tx.policies.list(organizationId);
  return compilePolicySet(
    policies.map((p) => ({
      policyId: p.policyId,
      effect: p.effect,
      condition: p.condition,
      consensus: p.consensus,
      time: p.time,
    })),
  );
}

/** How the root quorum stands on an activity. */
export interface RootQuorumStanding {
  /** Distinct root users who approved. */
  readonly approvals: number;
  readonly threshold: number;
  /** The quorum has approved. */
  readonly reached: boolean;
  /** A root user approved and enough root users have not rejected to reach the threshold. */
  readonly engaged: boolean;
}

export function rootQuorumStanding(
  organization: OrganizationRecord,
  votes: readonly VoteRecord[],
): RootQuorumStanding {
  const members = new Set(organization.rootQuorum.userIds);
  const approved = new Set<string>();
  const rejected = new Set<string>();
  for (const vote of votes) {
    if (!members.has(vote.userId)) continue;
    (vote.selection === 'VOTE_SELECTION_APPROVED' ? approved : rejected).add(vote.userId);
  }
  const { threshold } = organization.rootQuorum;
  return {
    approvals: approved.size,
    threshold,
    reached: approved.size >= threshold,
    engaged: approved.size > 0 && members.size - rejected.size >= threshold,
  };
}

/**
 * The policies an activity deletes or replaces: their evaluation cost cannot block it (the
 * engine's `ownCostExempt`), so an organization can always remove a policy that is too costly.
 */
export function policiesRemovedBy(
  definition: ActivityDefinition,
  parameters: Readonly<Record<string, unknown>>,
): ReadonlySet<string> | undefined {
  switch (definition.kind) {
    case 'DELETE_POLICY':
    case 'UPDATE_POLICY':
      return typeof parameters.policyId === 'string'
        ? new Set([parameters.policyId.toLowerCase()])
        : undefined;
    case 'DELETE_POLICIES':
      return Array.isArray(parameters.policyIds)
        ? new Set(
            parameters.policyIds
              .filter((id) => typeof id === 'string')
              .map((id) => id.toLowerCase()),
          )
        : undefined;
    default:
      return undefined;
  }
}

/**
 * Kinds a user may submit for themselves unless a policy denies it: managing their own API
 * keys, recovering their account (RECOVER_USER, which only the mailed recovery key may stamp)
 * and accepting their invitation (ACCEPT_INVITATION, only with the mailed invitation key).
 */
const OWN_CREDENTIAL_KINDS: ReadonlySet<string> = new Set([
  'CREATE_API_KEYS',
  'DELETE_API_KEYS',
  'RECOVER_USER',
  'ACCEPT_INVITATION',
]);

/** Managing your own credentials is allowed unless a policy denies it. */
function managesOwnCredentials(subject: DecisionSubject): boolean {
  const { kind } = subject.definition;
  if (!OWN_CREDENTIAL_KINDS.has(kind)) return false;
  const submitter = subject.votes[0]?.userId;
  const userId = subject.parameters.userId;
  return typeof userId === 'string' && userId.toLowerCase() === submitter;
}

/** Each policy's outcome; an OUTCOME_ERROR keeps why, and whether it counted as a deny. */
export function outcomesOf(engine: PolicyDecision | undefined): PolicyOutcomeRecord[] {
  if (!engine) return [];
  const errors = new Map(engine.errors.map((e) => [e.policyId, e]));
  return engine.outcomes.map((o) => {
    const error = o.outcome === 'OUTCOME_ERROR' ? errors.get(o.policyId) : undefined;
    if (!error) return { policyId: o.policyId, outcome: o.outcome };
    return {
      policyId: o.policyId,
      outcome: o.outcome,
      error: {
        field: error.field,
        errorClass: error.errorClass,
        message: error.message,
        countedAsDeny: error.countedAsDeny,
        ...(error.keyword === undefined ? {} : { keyword: error.keyword }),
      },
    };
  });
}

/**
 * Decides an activity. `rejected`: the newest vote is a rejection by a user entitled to vote,
 * which ends the activity (its evaluation records OUTCOME_REJECTED for the policies that would
 * have allowed it).
 */
export async function decide(
  scope: ActivityScope,
  subject: DecisionSubject,
  now: number,
  options: { rejected?: boolean } = {},
): Promise<ActivityDecision> {
  const { organization, definition, votes } = subject;
  const orgId = organization.organizationId;
  const rootOnly = ROOT_QUORUM_ONLY_KINDS.has(definition.kind);

  let engine: PolicyDecision | undefined;
  if (!rootOnly) {
    const set = await scope.policySet();
    if (set.policies.length > 0) {
      const removed = policiesRemovedBy(definition, subject.parameters);
      engine = evaluate(set, {
        condition: await scope.conditionContext(definition, subject.parameters),
        consensus: await consensusContextOf(scope.tx, orgId, votes),
        now,
        ...(options.rejected ? { rejected: true } : {}),
        ...(removed ? { ownCostExempt: removed } : {}),
      });
    }
  }
  const policyEvaluations = outcomesOf(engine);
  const decided = (
    outcome: DecisionOutcome,
    reason: DecisionReason,
    decidingPolicyIds: readonly string[] = [],
  ): ActivityDecision => ({ outcome, reason, decidingPolicyIds, policyEvaluations });

  if (options.rejected) return decided('REJECTED', 'rejected');
  const root = rootQuorumStanding(organization, votes);
  if (root.reached) return decided('ALLOW', 'root-quorum');
  if (rootOnly) {
    return root.engaged
      ? decided('CONSENSUS_NEEDED', 'awaiting-root-quorum')
      : decided('DENY', 'root-quorum-only');
  }

  const decision = engine?.decision ?? 'DENY';
  const decidingPolicyIds = engine?.decidingPolicyIds ?? [];
  if (decision === 'ALLOW') return decided('ALLOW', 'policy', decidingPolicyIds);
  const explicitDeny = decision === 'DENY' && decidingPolicyIds.length > 0;
  if (!explicitDeny && managesOwnCredentials(subject)) return decided('ALLOW', 'own-credentials');
  if (decision === 'REQUIRES_CONSENSUS') {
    return decided('CONSENSUS_NEEDED', 'awaiting-consensus', decidingPolicyIds);
  }
  if (root.engaged) return decided('CONSENSUS_NEEDED', 'awaiting-root-quorum');
  return explicitDeny
    ? decided('DENY', 'explicit-deny', decidingPolicyIds)
    : decided('DENY', 'implicit-deny');
}

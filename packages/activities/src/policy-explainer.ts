/**
 * "Why was this denied?": a dry run of the decision on a proposed activity. The caller posts
 * the activity body they would submit; it is checked as submit checks it (`activity-proposal.ts`:
 * a bad body is the same Status as on submit) and decided by the same `decide()` with the caller's
 * approval as the first vote. Nothing is executed or written: the work runs in a Store
 * transaction that is always rolled back, so no activity, vote, evaluation record or webhook
 * event can result. The answer names each policy's outcome and, for an error, why.
 *
 * Not checked, because no activity is created: the body's liveness (`timestampMs` within the
 * window) and its fingerprint (a body already submitted answers with its stored activity).
 * @module
 */

import type { Effect, Outcome } from '@keyhold/protocol';
import { KeyholdError, VOTE_KINDS, validateEnvelope } from '@keyhold/protocol';
import { checkProposal, definitionOfType, handlerOf, voteRecordOf } from './activity-proposal.js';
import { ActivityScope } from './activity-scope.js';
import { requireOrganization } from './activity-service.js';
import {
  type ActivityDecision,
  type DecisionOutcome,
  type DecisionReason,
  decide,
} from './decision/decide.js';
import type { PrecheckSettings } from './handlers/activity-handler.js';
import type { Clock } from './ports/clock.js';
import type { Ids } from './ports/ids.js';
import type { SignatureVerifier } from './ports/signature-verifier.js';
import type { Store } from './ports/store.js';
import type { RequestMeter } from './rate-limit/request-admission.js';
import type { PolicyOutcomeRecord, PolicyRecord } from './records.js';
import { type IncomingRequest, organizationIdOf, readSignedRequest } from './signed-request.js';
import { findSubmitter } from './submitter.js';

/** What a PolicyExplainer runs on: the ports an ActivityService reads from, no vault. */
export interface PolicyExplainerDeps {
  store: Store;
  verifier: SignatureVerifier;
  clock: Clock;
  ids: Ids;
  /** As `ActivityServiceOptions`: the same prechecks as submit. */
  options?: { allowPrivateWebhookDestinations?: boolean };
}

/** Why a policy's evaluation errored (OUTCOME_ERROR). */
export interface ExplainedPolicyError {
  field: 'condition' | 'consensus' | 'time' | 'policy';
  errorClass: 'missing' | 'type' | 'invalid' | 'budget';
  message: string;
  /** The keyword path the error was about (`bitcoin.tx`), when the engine names one. */
  keyword?: string;
  /** Whether the error made the policy count as a deny (fail closed). */
  countedAsDeny: boolean;
}

/** One policy of the organization and what it said about the proposed activity. */
export interface ExplainedPolicyEvaluation {
  policyId: string;
  policyName: string;
  effect: Effect;
  outcome: Outcome;
  error?: ExplainedPolicyError;
}

/** The answer of a dry run. */
export interface PolicyExplanation {
  organizationId: string;
  activityType: string;
  /** The user whose approval counted as the first vote (the caller). */
  userId: string;
  /** What submit would decide: ALLOW runs it, CONSENSUS_NEEDED parks it, DENY refuses it. */
  decision: DecisionOutcome;
  reason: DecisionReason;
  /** The policies that decided (denying, allowing or awaiting consensus); may be empty. */
  decidingPolicyIds: string[];
  /** One per policy of the organization, in policy order (empty for root-quorum-only types). */
  policyEvaluations: ExplainedPolicyEvaluation[];
}

/** The fields of an explain request: `{organizationId, activity}`. */
const REQUEST_FIELDS = new Set(['organizationId', 'activity']);

/** Carries the explanation out of the transaction, whose rollback it causes. */
class DryRunRollback extends Error {
  constructor(readonly explanation: PolicyExplanation) {
    super('dry run: rolled back');
  }
}

/** The vote's activity id: no activity exists, and none is created. */
const NO_ACTIVITY = '';

/**
 * The dry run of submit's decision: which policies matched a would-be activity and what
 * submit would decide, without storing anything.
 *
 * @example
 * ```ts
 * const explainer = new PolicyExplainer({
 *   store,
 *   verifier: nobleSignatureVerifier,
 *   clock: systemClock,
 *   ids: randomIds(),
 * });
 * const explanation = await explainer.explain({ headers, rawBody });
 * ```
 */
export class PolicyExplainer {
  private readonly precheckSettings: PrecheckSettings;

  constructor(private readonly deps: PolicyExplainerDeps) {
    this.precheckSettings = {
      allowPrivateWebhookDestinations: deps.options?.allowPrivateWebhookDestinations ?? false,
    };
  }

  /**
   * Explains the decision on the activity of the stamped body
   * `{ organizationId, activity: {type, timestampMs, organizationId, parameters} }`.
   * The caller must be a user of the organization (or of its parent, who is then refused as
   * submit refuses them). Field pointers in a refusal's details are relative to the activity.
   * With a `meter`, the dry run is charged (cost 1, like a query) to its user and organization
   * once its stamp verified.
   * @throws KeyholdError the refusal submit would answer with, or REQUEST_INVALID for a
   *   malformed request
   */
  async explain(request: IncomingRequest, meter?: RequestMeter): Promise<PolicyExplanation> {
    const { stamp, body, text } = await readSignedRequest(this.deps.verifier, request);
    const organizationId = organizationIdOf(body);
    const activity = activityOf(body, organizationId);
    validateEnvelope(activity);
    const definition = definitionOfType(activity);
    if (VOTE_KINDS.has(definition.kind)) {
      throw new KeyholdError('REQUEST_INVALID', {
        field: '/type',
        reason: 'a vote is not explained; explain the activity it votes on',
      });
    }
    const handler = handlerOf(definition);
    const parameters = activity.parameters as Record<string, unknown>;
    const now = this.deps.clock.now();
    try {
      await this.deps.store.transaction(async (tx) => {
        const named = await requireOrganization(tx, organizationId);
        // As on submit: a login may name the parent of the sub-organization it runs in.
        const { organization, principal } = await findSubmitter(tx, named, definition, stamp, now);
        await meter?.charge({
          organizationId: organization.organizationId,
          userId: principal.user.userId,
          cost: 1,
        });
        await checkProposal(
          tx,
          { definition, parameters, handler, organization, principal },
          this.precheckSettings,
        );
        // The caller's approval is the first vote, as the submitter's is on submit.
        const vote = await voteRecordOf(
          tx,
          this.deps.ids,
          NO_ACTIVITY,
          principal,
          text,
          'VOTE_SELECTION_APPROVED',
          now,
        );
        const decision = await decide(
          new ActivityScope(tx, organization.organizationId),
          { organization, definition, parameters, votes: [vote] },
          now,
        );
        const runsIn = organization.organizationId;
        const policies = await tx.policies.list(runsIn);
        throw new DryRunRollback(
          explanationOf(runsIn, definition.type, principal.user.userId, decision, policies),
        );
      });
    } catch (error) {
      if (error instanceof DryRunRollback) return error.explanation;
      throw error;
    }
    throw new Error('dry run: the transaction committed'); // unreachable: the work always throws
  }
}

/**
 * The proposed activity of an explain request, whose organization must be the request's.
 * @throws KeyholdError REQUEST_INVALID
 */
function activityOf(
  body: Record<string, unknown>,
  organizationId: string,
): Record<string, unknown> {
  const unknown = Object.keys(body).find((key) => !REQUEST_FIELDS.has(key));
  if (unknown !== undefined) {
    throw new KeyholdError('REQUEST_INVALID', {
      field: `/${unknown}`,
      reason: 'an explain request has only organizationId and activity',
    });
  }
  const { activity } = body;
  if (typeof activity !== 'object' || activity === null || Array.isArray(activity)) {
    throw new KeyholdError('REQUEST_INVALID', {
      field: '/activity',
      reason: 'activity must be the activity body you would submit',
    });
  }
  const target = (activity as Record<string, unknown>).organizationId;
  if (typeof target === 'string' && target.toLowerCase() !== organizationId) {
    // The caller is found in the request's organization: the activity must target it too.
    throw new KeyholdError('REQUEST_INVALID', {
      field: '/activity/organizationId',
      reason: 'must be the organizationId of the request',
    });
  }
  return activity as Record<string, unknown>;
}

function explanationOf(
  organizationId: string,
  activityType: string,
  userId: string,
  decision: ActivityDecision,
  policies: readonly PolicyRecord[],
): PolicyExplanation {
  const byId = new Map(policies.map((p) => [p.policyId, p]));
  return {
    organizationId,
    activityType,
    userId,
    decision: decision.outcome,
    reason: decision.reason,
    decidingPolicyIds: [...decision.decidingPolicyIds],
    policyEvaluations: decision.policyEvaluations.map((evaluation) =>
      explainedEvaluation(evaluation, byId.get(evaluation.policyId)),
    ),
  };
}

function explainedEvaluation(
  evaluation: PolicyOutcomeRecord,
  policy: PolicyRecord | undefined,
): ExplainedPolicyEvaluation {
  const out: ExplainedPolicyEvaluation = {
    policyId: evaluation.policyId,
    // Read in the same transaction as the decision: every evaluated policy is there.
    policyName: policy?.policyName ?? '',
    effect: policy?.effect ?? 'EFFECT_DENY',
    outcome: evaluation.outcome,
  };
  const { error } = evaluation;
  if (error) {
    out.error = {
      field: error.field,
      errorClass: error.errorClass,
      message: error.message,
      ...(error.keyword === undefined ? {} : { keyword: error.keyword }),
      countedAsDeny: error.countedAsDeny,
    };
  }
  return out;
}

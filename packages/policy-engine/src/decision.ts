/**
 * Combining per-policy results into a decision (wire-compat §5 steps 2–4):
 * any applicable DENY → DENY; else any applicable ALLOW whose consensus is met → ALLOW; else an
 * applicable ALLOW still waiting for consensus → REQUIRES_CONSENSUS; else implicit DENY.
 * Root-quorum bypass and the implicit allows belong to the activities layer, which can reuse
 * {@link combineVerdicts} to fold its own verdicts in (deny still wins).
 */
import type { Effect, Outcome } from '@keyhold/protocol';

/** The outcomes this engine reports (it never asks for authenticators). */
export type PolicyOutcome = Exclude<Outcome, 'OUTCOME_REQUIRES_AUTHENTICATORS'>;

export type DecisionKind = 'ALLOW' | 'DENY' | 'REQUIRES_CONSENSUS';

/** What one policy contributes to the decision. */
export type Verdict = 'deny' | 'rejected' | 'allow' | 'consensus' | 'none';

export interface PolicyVerdict {
  readonly policyId: string;
  readonly verdict: Verdict;
}

export interface CombinedDecision {
  readonly decision: DecisionKind;
  /** The policies that decided: the denying ones, else the allowing ones, else those waiting
   *  for consensus; empty for an implicit deny. Each id once, in first-seen order. */
  readonly decidingPolicyIds: string[];
}

/** How an erroring policy counts; see the README ("Errors fail closed"). */
export type ErrorClassForDecision = 'missing' | 'type' | 'invalid' | 'budget';

/**
 * The verdict of one policy outcome.
 *  - ERROR on an ALLOW policy grants nothing.
 *  - ERROR on a DENY policy denies (fail closed) unless the error is only missing data
 *    (the request does not carry what the policy reads, so the policy is about another kind of
 *    request — the reference's rule); with `strictDenyErrors` every erroring DENY denies.
 *    A `budget` error (the evaluation was stopped) denies like a `type` error.
 */
export function verdictOf(
  effect: Effect,
  outcome: PolicyOutcome,
  errorClass?: ErrorClassForDecision,
  strictDenyErrors = false,
): Verdict {
  switch (outcome) {
    case 'OUTCOME_ALLOW':
      return 'allow';
    case 'OUTCOME_DENY_EXPLICIT':
      return 'deny';
    case 'OUTCOME_REQUIRES_CONSENSUS':
      return 'consensus';
    case 'OUTCOME_REJECTED':
      return 'rejected';
    case 'OUTCOME_ERROR':
      return effect !== 'EFFECT_ALLOW' && (strictDenyErrors || errorClass !== 'missing')
        ? 'deny'
        : 'none';
    default:
      return 'none';
  }
}

function unique(ids: string[], distinct: boolean): string[] {
  if (distinct || ids.length < 2) return ids;
  return [...new Set(ids)];
}

/** Deny wins, then a rejection, then allow, then waiting for consensus, else implicit deny.
 *  `distinct`: the caller knows the ids are distinct (skips de-duplication). The arrays given
 *  may be returned as they are. */
export function decide(
  deny: string[],
  rejected: string[],
  allow: string[],
  consensus: string[],
  distinct = false,
): CombinedDecision {
  if (deny.length > 0) return { decision: 'DENY', decidingPolicyIds: unique(deny, distinct) };
  if (rejected.length > 0) {
    return { decision: 'DENY', decidingPolicyIds: unique(rejected, distinct) };
  }
  if (allow.length > 0) return { decision: 'ALLOW', decidingPolicyIds: unique(allow, distinct) };
  if (consensus.length > 0) {
    return { decision: 'REQUIRES_CONSENSUS', decidingPolicyIds: unique(consensus, distinct) };
  }
  return { decision: 'DENY', decidingPolicyIds: [] };
}

/** Combine verdicts: deny wins, then rejected, then allow, then consensus, else implicit deny. */
export function combineVerdicts(verdicts: Iterable<PolicyVerdict>): CombinedDecision {
  const deny: string[] = [];
  const rejected: string[] = [];
  const allow: string[] = [];
  const consensus: string[] = [];
  for (const { policyId, verdict } of verdicts) {
    if (verdict === 'deny') deny.push(policyId);
    else if (verdict === 'rejected') rejected.push(policyId);
    else if (verdict === 'allow') allow.push(policyId);
    else if (verdict === 'consensus') consensus.push(policyId);
  }
  return decide(deny, rejected, allow, consensus);
}

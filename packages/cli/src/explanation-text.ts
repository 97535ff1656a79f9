/**
 * A dry run's answer (`POST /keyhold/v1/explain_policies`) as text for a policy author: the
 * decision and why, what submit would do, the deciding policies, and each policy's outcome
 * with the reason of an error.
 * @module
 */
import type { ExplainedPolicyEvaluation, PolicyExplanation } from '@keyhold/activities';

/** Why, in words, per decision reason of `decide()`. */
const REASONS: Readonly<Record<string, string>> = {
  rejected: 'a voter rejected it',
  'root-quorum': 'the root quorum approved it (policies are bypassed)',
  policy: 'an ALLOW policy applies and its consensus is met',
  'own-credentials': 'users may manage their own API keys unless a policy denies it',
  'awaiting-consensus': 'an ALLOW policy applies but its consensus is not met yet',
  'awaiting-root-quorum': 'a root user approved; the root quorum can still approve it',
  'explicit-deny': 'a DENY policy applies',
  'implicit-deny': 'no policy allows it',
  'root-quorum-only': 'only the root quorum may approve this activity type',
};

/** What submit would do with the same body, per decision. */
const SUBMIT_WOULD: Readonly<Record<string, string>> = {
  ALLOW: 'run it',
  CONSENSUS_NEEDED: 'store it as ACTIVITY_STATUS_CONSENSUS_NEEDED, waiting for votes',
  DENY: 'refuse it with 403 (nothing stored)',
  REJECTED: 'mark it ACTIVITY_STATUS_REJECTED',
};

const ERROR_CLASSES: Readonly<Record<string, string>> = {
  missing: 'missing data',
  type: 'type error',
  invalid: 'invalid stored policy',
  budget: 'evaluation budget exceeded',
};

/** The lines of the explanation (without trailing newlines). */
export function explanationLines(explanation: PolicyExplanation): string[] {
  const deciding = new Set(explanation.decidingPolicyIds);
  const names = new Map(explanation.policyEvaluations.map((e) => [e.policyId, label(e)]));
  const lines = [
    `activity: ${explanation.activityType} by user ${explanation.userId}`,
    `decision: ${explanation.decision} (${explanation.reason}): ${REASONS[explanation.reason] ?? explanation.reason}`,
    `submit would: ${SUBMIT_WOULD[explanation.decision] ?? explanation.decision}`,
    `deciding policies: ${
      explanation.decidingPolicyIds.length === 0
        ? 'none'
        : explanation.decidingPolicyIds.map((id) => names.get(id) ?? id).join(', ')
    }`,
  ];
  if (explanation.policyEvaluations.length === 0) {
    lines.push('policies: none evaluated');
    return lines;
  }
  lines.push('policies:');
  for (const evaluation of explanation.policyEvaluations) {
    const mark = deciding.has(evaluation.policyId) ? '  <- deciding' : '';
    lines.push(`  ${label(evaluation)}: ${evaluation.effect} -> ${evaluation.outcome}${mark}`);
    const { error } = evaluation;
    if (error) {
      const counted = error.countedAsDeny ? 'counted as a deny' : 'not counted as a deny';
      const keyword = error.keyword ? ` [${error.keyword}]` : '';
      lines.push(
        `      ${error.field}: ${ERROR_CLASSES[error.errorClass] ?? error.errorClass}${keyword}, ${counted}: ${error.message}`,
      );
    }
  }
  return lines;
}

/** `name (id)`, or the id alone for an unnamed policy. */
function label(evaluation: ExplainedPolicyEvaluation): string {
  return evaluation.policyName
    ? `${evaluation.policyName} (${evaluation.policyId})`
    : evaluation.policyId;
}

/**
 * Policies are checked when they are written: a text that does not parse or type-check is
 * refused (400, nothing stored) with "invalid policy condition", "invalid policy consensus" or
 * "invalid policy time", and details saying where (field, line, column) and what is wrong.
 * @module
 */
import { checkPolicy, PolicyError, type PolicyTexts } from '@keyhold/policy-engine';
import { KeyholdError, type MessageKey } from '@keyhold/protocol';
import { assertKeywordsAvailable } from './keyword-availability.js';

const MESSAGE_OF_FIELD: Record<PolicyError['kind'], MessageKey> = {
  condition: 'INVALID_POLICY_CONDITION',
  consensus: 'INVALID_POLICY_CONSENSUS',
  time: 'INVALID_POLICY_TIME',
};

/** The refusal for a PolicyError. `context` adds where in the request (e.g. the policy index). */
export function policyErrorToKeyholdError(
  error: PolicyError,
  context: Record<string, unknown> = {},
): KeyholdError {
  return new KeyholdError(MESSAGE_OF_FIELD[error.kind], {
    ...context,
    field: error.kind,
    line: error.position.line,
    column: error.position.column,
    detail: error.detail,
  });
}

/**
 * Parses and type-checks a policy's expressions, estimates their cost, and refuses a condition
 * that reads a keyword the activity types it names never carry (keyword-availability.ts).
 * @throws KeyholdError INVALID_POLICY_CONDITION / _CONSENSUS / _TIME
 */
export function checkPolicyTexts(texts: PolicyTexts, context: Record<string, unknown> = {}): void {
  try {
    checkPolicy(texts);
  } catch (error) {
    if (error instanceof PolicyError) throw policyErrorToKeyholdError(error, context);
    throw error;
  }
  assertKeywordsAvailable(texts.condition ?? undefined, context);
}

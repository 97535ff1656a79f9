/**
 * @keyhold/policy-engine — the policy language of wire-compat §5, pure (no I/O, no ports):
 * parse with positions, type-check against the keyword schema, compile once into closures,
 * evaluate to a decision with per-policy outcomes.
 */

export type { ComparisonOperator, Expr } from './ast.js';
export type { Checked, CheckedExpression } from './checked.js';
export { checkExpression } from './checker.js';
export type {
  ConditionContext,
  ConsensusContext,
  EvaluationContext,
  IntValue,
  PolicyActivity,
  PolicyCredential,
  PolicyPrivateKey,
  PolicyUser,
  PolicyWallet,
} from './context.js';
export {
  COST_BUDGET,
  type CostEstimate,
  DECISION_BUDGET,
  DYNAMIC_LIST_BOUND,
  estimateCost,
  SCHEMA_LIST_BOUND,
} from './cost.js';
export {
  type CombinedDecision,
  combineVerdicts,
  type DecisionKind,
  type ErrorClassForDecision,
  type PolicyOutcome,
  type PolicyVerdict,
  type Verdict,
  verdictOf,
} from './decision.js';
export { formatExpression } from './format.js';
export { MAX_NESTING, MAX_SOURCE_LENGTH, parseExpression } from './parser.js';
export {
  type CheckedPolicy,
  type CheckOptions,
  checkPolicy,
  type ParsedPolicy,
  type PolicyInput,
  type PolicyTexts,
  parsePolicy,
} from './policy.js';
export { PolicyError, type PolicyField, positionAt, type SourcePosition } from './policy-error.js';
export {
  type CompiledPolicy,
  type CompiledPolicySet,
  type CompileOptions,
  compilePolicySet,
  evaluate,
  type PolicyDecision,
  type PolicyEvaluation,
  type PolicyEvaluationError,
} from './policy-set.js';
export { BUDGET_EXCEEDED, type ErrorClass } from './runtime.js';
export { type KeywordSchema, TURNKEY_SCHEMA } from './schema.js';
export {
  ANY,
  BOOL,
  INT,
  listOf,
  mapOf,
  namespace,
  STRING,
  struct,
  TIMESTAMP,
  type Type,
  typeToString,
} from './types.js';

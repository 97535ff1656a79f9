/**
 * One policy: its input shape, and the write-time checks (`parsePolicy`, `checkPolicy`) the
 * activities layer runs on CREATE_POLICY / UPDATE_POLICY so a bad policy is refused when written.
 */
import type { Effect } from '@keyhold/protocol';
import type { Expr } from './ast.js';
import type { CheckedExpression } from './checked.js';
import { checkExpression } from './checker.js';
import { COST_BUDGET, estimateCost, round } from './cost.js';
import { parseExpression } from './parser.js';
import { PolicyError, type PolicyField } from './policy-error.js';
import { type KeywordSchema, TURNKEY_SCHEMA } from './schema.js';

/** A policy as stored. Absent, null or blank `condition`/`consensus`/`time` mean "always". */
export interface PolicyInput {
  readonly policyId: string;
  readonly effect: Effect;
  readonly condition?: string | null | undefined;
  readonly consensus?: string | null | undefined;
  readonly time?: string | null | undefined;
}

/** The text of the policy's expression fields, as written. */
export type PolicyTexts = Partial<Record<PolicyField, string | null | undefined>>;

export const POLICY_FIELDS: readonly PolicyField[] = ['condition', 'consensus', 'time'];

/** The text of a field, or undefined when the field is absent or blank. */
export function fieldText(policy: PolicyTexts, field: PolicyField): string | undefined {
  return presentText(policy[field]);
}

/** A field's value as text, or undefined when it is absent (not a string) or blank. */
export function presentText(text: unknown): string | undefined {
  if (typeof text !== 'string') return undefined;
  // Blank = only spaces, tabs, CR and LF (what the lexer skips). Usually decided by the first
  // character, so no copy is made.
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 9 && c !== 10 && c !== 13) return text;
  }
  return undefined;
}

export interface ParsedPolicy {
  readonly condition?: Expr;
  readonly consensus?: Expr;
  readonly time?: Expr;
}

export interface CheckedPolicy {
  readonly condition?: CheckedExpression;
  readonly consensus?: CheckedExpression;
  readonly time?: CheckedExpression;
}

/** Parse every present field. Throws `PolicyError` (kind = the field) at the first fault. */
export function parsePolicy(policy: PolicyTexts): ParsedPolicy {
  const out: { -readonly [K in PolicyField]?: Expr } = {};
  for (const field of POLICY_FIELDS) {
    const text = fieldText(policy, field);
    if (text !== undefined) out[field] = parseExpression(text, field);
  }
  return out;
}

export interface CheckOptions {
  /** The most steps one evaluation of a field may be estimated to take (default
   *  {@link COST_BUDGET}); `Infinity` checks types only, as compiling a stored policy does. */
  readonly costBudget?: number;
}

/**
 * Parse and type-check every present field against the schema (default: Turnkey's keywords),
 * and refuse a field whose estimated evaluation cost is over the budget (cost.ts).
 * Throws `PolicyError` with the field, position and detail of the first fault.
 *
 * @example
 * checkPolicy({ condition: "activity.resource == 'WALLET'" }); // ok
 * checkPolicy({ condition: '[1, 2].all(a, [3, 4].all(b, a < b))' }, TURNKEY_SCHEMA, {
 *   costBudget: 10,
 * }); // PolicyError: too costly to evaluate …
 */
export function checkPolicy(
  policy: PolicyTexts,
  schema: KeywordSchema = TURNKEY_SCHEMA,
  options: CheckOptions = {},
): CheckedPolicy {
  const budget = options.costBudget ?? COST_BUDGET;
  const out: { -readonly [K in PolicyField]?: CheckedExpression } = {};
  for (const field of POLICY_FIELDS) {
    const text = fieldText(policy, field);
    if (text !== undefined) {
      const checked = checkExpression(parseExpression(text, field), field, text, schema);
      if (budget !== Number.POSITIVE_INFINITY) assertAffordable(checked, field, budget);
      out[field] = checked;
    }
  }
  return out;
}

/** Throws `PolicyError` at the smallest part of the expression estimated over the budget. */
export function assertAffordable(
  checked: CheckedExpression,
  field: PolicyField,
  budget: number = COST_BUDGET,
): void {
  const { steps, culprit } = estimateCost(checked.root, budget);
  if (!culprit) return;
  throw PolicyError.at(
    field,
    checked.source,
    culprit.pos,
    `too costly to evaluate: about ${round(steps)} steps per evaluation, over the budget of ${round(budget)}; here ${culprit.why} (about ${round(culprit.steps)} steps). Use fewer or shorter nested loops, or 'in' with a literal list`,
  );
}

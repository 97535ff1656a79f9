/**
 * One policy: its input shape, and the write-time checks (`parsePolicy`, `checkPolicy`) the
 * activities layer runs on CREATE_POLICY / UPDATE_POLICY so a bad policy is refused when written.
 */
import type { Effect } from '@keyhold/protocol';
import type { Expr } from './ast.js';
import type { CheckedExpression } from './checked.js';
import { checkExpression } from './checker.js';
import { parseExpression } from './parser.js';
import type { PolicyField } from './policy-error.js';
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

/**
 * Parse and type-check every present field against the schema (default: Turnkey's keywords).
 * Throws `PolicyError` with the field, position and detail of the first fault.
 */
export function checkPolicy(
  policy: PolicyTexts,
  schema: KeywordSchema = TURNKEY_SCHEMA,
): CheckedPolicy {
  const out: { -readonly [K in PolicyField]?: CheckedExpression } = {};
  for (const field of POLICY_FIELDS) {
    const text = fieldText(policy, field);
    if (text !== undefined) {
      out[field] = checkExpression(parseExpression(text, field), field, text, schema);
    }
  }
  return out;
}

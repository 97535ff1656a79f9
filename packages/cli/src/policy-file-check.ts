/**
 * The offline check of a file of policies (`keyhold policy check FILE`): each policy goes
 * through the engine's write-time check (`checkPolicy`: parse, keyword types, evaluation cost),
 * the one CREATE_POLICY runs, and becomes one report line — OK, or where and what is wrong,
 * with the offending line and a caret under the column.
 * @module
 */
import { checkPolicyTexts } from '@keyhold/activities';
import { isKeyholdError } from '@keyhold/protocol';

/** The file is not a document of policies at all (a usage error, not a failed policy). */
export class PolicyFileError extends Error {
  override readonly name = 'PolicyFileError';
}

/** The fields of a policy, as CREATE_POLICY (V3) and CREATE_POLICIES take them. */
const POLICY_FIELDS = ['policyName', 'effect', 'condition', 'consensus', 'time', 'notes'];
const EXPRESSION_FIELDS = ['condition', 'consensus', 'time'] as const;
const EFFECTS = ['EFFECT_ALLOW', 'EFFECT_DENY'];

/** The report of one file. */
export interface PolicyFileReport {
  /** What to print: per policy one line, and for a positioned fault the line and a caret. */
  readonly lines: string[];
  readonly policies: number;
  readonly failed: number;
}

/**
 * The policies of a parsed document: a JSON array of policies, the parameters of
 * CREATE_POLICIES (`{"policies": [...]}`), or one policy object.
 * @throws PolicyFileError for any other shape
 */
export function policiesOfDocument(document: unknown): unknown[] {
  if (Array.isArray(document)) return document;
  if (typeof document === 'object' && document !== null) {
    if (!('policies' in document)) return [document];
    const { policies } = document as { policies: unknown };
    if (Array.isArray(policies)) return policies;
    throw new PolicyFileError('"policies" must be an array of policies');
  }
  throw new PolicyFileError(
    'expected a JSON array of policies, the parameters of CREATE_POLICIES ({"policies": [...]}), or one policy object',
  );
}

/**
 * Checks the text of a policy file; `file` names it in every line.
 * @throws PolicyFileError when the text is not JSON or not a document of policies
 */
export function checkPolicyFile(file: string, text: string): PolicyFileReport {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new PolicyFileError(
      `${file} is not JSON: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const policies = policiesOfDocument(document);
  const lines: string[] = [];
  let failed = 0;
  policies.forEach((policy, index) => {
    const label = `${file}: policy ${index + 1}${nameOf(policy)}`;
    const fault = faultOf(policy);
    if (!fault) {
      lines.push(`${label}: OK`);
      return;
    }
    failed++;
    lines.push(`${label}: ${fault.message}`);
    if (fault.excerpt) lines.push(...fault.excerpt);
  });
  return { lines, policies: policies.length, failed };
}

/** ` (name)` when the policy has a name. */
function nameOf(policy: unknown): string {
  const name = isObject(policy) ? policy.policyName : undefined;
  return typeof name === 'string' && name !== '' ? ` (${name})` : '';
}

interface Fault {
  readonly message: string;
  /** The offending source line and a caret under the column. */
  readonly excerpt?: [string, string];
}

/** What is wrong with one policy, or undefined when it passes. */
function faultOf(policy: unknown): Fault | undefined {
  if (!isObject(policy)) return { message: 'a policy must be a JSON object' };
  const unknown = Object.keys(policy).find((key) => !POLICY_FIELDS.includes(key));
  if (unknown !== undefined) {
    return { message: `unknown field "${unknown}" (a policy has ${POLICY_FIELDS.join(', ')})` };
  }
  if (!EFFECTS.includes(policy.effect as string)) {
    return {
      message: `effect must be ${EFFECTS.join(' or ')}, got ${JSON.stringify(policy.effect) ?? 'nothing'}`,
    };
  }
  for (const field of ['policyName', 'notes', ...EXPRESSION_FIELDS]) {
    if (policy[field] !== undefined && typeof policy[field] !== 'string') {
      return { message: `${field} must be a string` };
    }
  }
  const texts = {
    condition: policy.condition as string | undefined,
    consensus: policy.consensus as string | undefined,
    time: policy.time as string | undefined,
  };
  try {
    // The function CREATE_POLICY runs: parse, keyword types, cost, keyword availability.
    checkPolicyTexts(texts);
    return undefined;
  } catch (error) {
    if (!isKeyholdError(error)) throw error;
    const { field, line, column, detail } = error.context as {
      field: keyof typeof texts;
      line: number;
      column: number;
      detail: string;
    };
    return {
      message: `${field} line ${line} column ${column}: ${detail}`,
      excerpt: excerptAt(texts[field] ?? '', line, column),
    };
  }
}

/**
 * Line `line` of `source` and a caret under `column` (1-based, UTF-16 units as the engine
 * counts them). Tabs before the column are kept in the caret line so the caret lines up.
 */
export function excerptAt(source: string, line: number, column: number): [string, string] {
  const text = (source.split('\n')[line - 1] ?? '').replace(/\r$/, '');
  const before = text.slice(0, Math.max(0, column - 1)).replace(/[^\t]/g, ' ');
  return [`  ${text}`, `  ${before}^`];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

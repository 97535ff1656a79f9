/**
 * Which condition keywords an activity can carry, and the write-time refusal of a condition
 * that reads a keyword none of the activity types it names can ever carry: `activity.type ==
 * 'ACTIVITY_TYPE_CREATE_WALLET' && eth.tx.to == '0x…'` would be OUTCOME_ERROR on every
 * evaluation (a DENY that never applies, an ALLOW that never grants), so it is refused when
 * it is written, with the reason.
 *
 * The table mirrors `conditionContextOf` (condition-context.ts); the server's keyword test
 * checks every keyword it reaches against it, so the two cannot drift apart unnoticed.
 * Only what the condition requires of every match is used: the `activity.type`,
 * `activity.kind`, `activity.action` and `activity.resource` equalities (and `in` lists)
 * among its top-level `&&` operands. A condition that names no activity type is not checked.
 * @module
 */
import { type Expr, parseExpression, positionAt } from '@keyhold/policy-engine';
import { ACTIVITY_DEFINITIONS, type ActivityDefinition, KeyholdError } from '@keyhold/protocol';

/** A keyword a context may lack: a root struct, or a chain namespace's member. */
export type OptionalKeyword =
  | 'wallet'
  | 'wallets'
  | 'wallet_account'
  | 'private_key'
  | 'eth.tx'
  | 'eth.eip_712'
  | 'eth.eip_7702_authorization'
  | 'solana.tx'
  | 'tron.tx'
  | 'bitcoin.tx'
  | 'tempo.tx';

const SIGNER: readonly OptionalKeyword[] = ['wallet', 'wallets', 'wallet_account', 'private_key'];
const WALLET: readonly OptionalKeyword[] = ['wallet', 'wallets'];

/**
 * The optional keywords each kind of activity can fill (`activity` is always there). Kinds not
 * listed fill none.
 */
export const KEYWORDS_BY_KIND: Readonly<Record<string, readonly OptionalKeyword[]>> = {
  SIGN_RAW_PAYLOAD: [...SIGNER, 'eth.eip_712', 'eth.eip_7702_authorization'],
  SIGN_RAW_PAYLOADS: [...SIGNER, 'eth.eip_712', 'eth.eip_7702_authorization'],
  SIGN_TRANSACTION: [...SIGNER, 'eth.tx', 'solana.tx', 'tron.tx', 'bitcoin.tx'],
  ETH_SEND_TRANSACTION: [...SIGNER, 'eth.tx'],
  ETH_SEND_RAW_TRANSACTION: ['eth.tx'],
  SOL_SEND_TRANSACTION: [...SIGNER, 'solana.tx'],
  EXPORT_WALLET_ACCOUNT: SIGNER,
  EXPORT_PRIVATE_KEY: ['private_key'],
  DISABLE_PRIVATE_KEY: ['private_key'],
  DELETE_PRIVATE_KEYS: ['private_key'],
  DELETE_WALLET_ACCOUNTS: ['wallet_account', ...WALLET],
  CREATE_WALLET_ACCOUNTS: WALLET,
  UPDATE_WALLET: WALLET,
  EXPORT_WALLET: WALLET,
  DELETE_WALLETS: WALLET,
};

/**
 * The optional keywords an activity type can carry.
 * @example
 * keywordsOfActivityType('ACTIVITY_TYPE_SIGN_TRANSACTION_V2'); // ['wallet', …, 'bitcoin.tx']
 * keywordsOfActivityType('ACTIVITY_TYPE_CREATE_USERS_V3'); // []
 */
export function keywordsOfActivityType(type: string): readonly OptionalKeyword[] {
  const definition = ACTIVITY_DEFINITIONS.find((d) => d.type === type);
  return definition ? (KEYWORDS_BY_KIND[definition.kind] ?? []) : [];
}

const NAMESPACES = new Set(['eth', 'solana', 'tron', 'bitcoin', 'tempo']);
const ROOTS = new Set(['wallet', 'wallets', 'wallet_account', 'private_key']);
const LAMBDAS = new Set(['all', 'any', 'filter']);
const SELECTORS = new Set(['type', 'kind', 'action', 'resource']);

interface KeywordUse {
  readonly keyword: OptionalKeyword;
  readonly pos: number;
}

/** The optional keywords an expression reads, where (lambda variables are not keywords). */
function keywordUses(root: Expr): KeywordUse[] {
  const uses: KeywordUse[] = [];
  // Iterative: accepted texts are depth-limited, but a walk should not rely on it.
  const stack: Array<{ e: Expr; bound: ReadonlySet<string> }> = [{ e: root, bound: new Set() }];
  while (stack.length > 0) {
    const { e, bound } = stack.pop()!;
    switch (e.k) {
      case 'ident':
        if (ROOTS.has(e.name) && !bound.has(e.name)) {
          uses.push({ keyword: e.name as OptionalKeyword, pos: e.pos });
        }
        break;
      case 'field':
        if (e.target.k === 'ident' && NAMESPACES.has(e.target.name) && !bound.has(e.target.name)) {
          uses.push({ keyword: `${e.target.name}.${e.name}` as OptionalKeyword, pos: e.pos });
        } else {
          stack.push({ e: e.target, bound });
        }
        break;
      case 'index':
        stack.push({ e: e.target, bound }, { e: e.index, bound });
        break;
      case 'slice':
        stack.push({ e: e.target, bound }, { e: e.start, bound }, { e: e.end, bound });
        break;
      case 'method': {
        stack.push({ e: e.target, bound });
        const [variable, ...rest] = e.args;
        if (LAMBDAS.has(e.name) && variable?.k === 'ident') {
          const inner = new Set(bound).add(variable.name);
          for (const arg of rest) stack.push({ e: arg, bound: inner });
        } else {
          for (const arg of e.args) stack.push({ e: arg, bound });
        }
        break;
      }
      case 'call':
        for (const arg of e.args) stack.push({ e: arg, bound });
        break;
      case 'list':
        for (const item of e.items) stack.push({ e: item, bound });
        break;
      case 'not':
        stack.push({ e: e.operand, bound });
        break;
      case 'logical':
        for (const operand of e.operands) stack.push({ e: operand, bound });
        break;
      case 'compare':
      case 'in':
        stack.push({ e: e.left, bound }, { e: e.right, bound });
        break;
      default:
        break;
    }
  }
  return uses;
}

/** `activity.<selector>`, or undefined. */
function selectorOf(e: Expr): string | undefined {
  return e.k === 'field' &&
    SELECTORS.has(e.name) &&
    e.target.k === 'ident' &&
    e.target.name === 'activity'
    ? e.name
    : undefined;
}

/** What one top-level operand requires of the activity: `[selector, allowed values]`. */
function requirementOf(e: Expr): [string, Set<string>] | undefined {
  if (e.k === 'compare' && e.op === '==') {
    const [selector, other] = selectorOf(e.left)
      ? [selectorOf(e.left), e.right]
      : [selectorOf(e.right), e.left];
    if (selector && other.k === 'string') return [selector, new Set([other.value])];
  }
  if (e.k === 'in' && e.right.k === 'list') {
    const selector = selectorOf(e.left);
    const values = e.right.items.map((i) => (i.k === 'string' ? i.value : undefined));
    if (selector && values.every((v) => v !== undefined)) {
      return [selector, new Set(values as string[])];
    }
  }
  return undefined;
}

/**
 * The served activity definitions a condition can match, from its top-level `&&` operands;
 * undefined when it names none (every activity may match).
 */
function definitionsNamedBy(root: Expr): readonly ActivityDefinition[] | undefined {
  const operands = root.k === 'logical' && root.op === '&&' ? root.operands : [root];
  const requirements = operands.map(requirementOf).filter((r) => r !== undefined);
  if (requirements.length === 0) return undefined;
  return ACTIVITY_DEFINITIONS.filter((d) =>
    requirements.every(([selector, values]) =>
      values.has(String(d[selector as 'type' | 'kind' | 'action' | 'resource'])),
    ),
  );
}

/**
 * Refuses a condition that reads a keyword no activity it can apply to ever carries.
 * Call after the condition has passed the checker (it parses the text again).
 * @throws KeyholdError INVALID_POLICY_CONDITION, `detail` naming the keyword and the types
 * @example
 * assertKeywordsAvailable("activity.type == 'ACTIVITY_TYPE_CREATE_WALLET' && eth.tx.to == '0x1'");
 * // throws: eth.tx is never present for ACTIVITY_TYPE_CREATE_WALLET (…)
 */
export function assertKeywordsAvailable(
  condition: string | undefined,
  context: Record<string, unknown> = {},
): void {
  if (condition === undefined || condition.trim() === '') return;
  const root = parseExpression(condition, 'condition');
  const definitions = definitionsNamedBy(root);
  // Nothing named, or only types not served yet (their keywords are not known): not checked.
  if (definitions === undefined || definitions.length === 0) return;
  const available = new Set(definitions.flatMap((d) => KEYWORDS_BY_KIND[d.kind] ?? []));
  const missing = keywordUses(root)
    .filter((use) => !available.has(use.keyword))
    .sort((a, b) => a.pos - b.pos)[0];
  if (!missing) return;
  const { line, column } = positionAt(condition, missing.pos);
  throw new KeyholdError('INVALID_POLICY_CONDITION', {
    ...context,
    field: 'condition',
    line,
    column,
    detail: `${missing.keyword} is never present for ${describe(definitions)}: the condition could never evaluate; name the activity types that carry ${missing.keyword}, or drop it`,
  });
}

function describe(definitions: readonly ActivityDefinition[]): string {
  const types = definitions.map((d) => d.type);
  return types.length <= 3
    ? types.join(', ')
    : `${types.slice(0, 3).join(', ')} and ${types.length - 3} more`;
}

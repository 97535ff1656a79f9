/**
 * What an expression can make the server compute, bounded twice:
 *
 *  - **At write time**, {@link estimateCost} bounds the steps of one evaluation from the tree:
 *    a loop (`all`, `any`, `filter`, `in` over a list that is not a literal of literals) costs
 *    the length of its list times its body. Literal lists count their items; keyword lists
 *    count the bound their type declares (`listOf(T, max)`), else {@link SCHEMA_LIST_BOUND};
 *    dynamic data ({@link DYNAMIC_LIST_BOUND}) and lambda variables likewise. `checkPolicy`
 *    refuses an expression whose estimate is over {@link COST_BUDGET}, pointing at the smallest
 *    part of it that is already over.
 *  - **At run time**, every loop charges its real length times its body's own nodes
 *    ({@link localCost}) to the evaluation's meter *before* it runs (runtime.ts `charge`), so
 *    data longer than the estimate assumed stops the evaluation with a `budget` error
 *    ("evaluation budget exceeded") within one loop of its budget, however the loops nest.
 *
 * One step is roughly one node evaluated (tens of nanoseconds; `pnpm bench` measures it).
 */
import type { Checked } from './checked.js';
import type { Type } from './types.js';

/** The most steps one expression may be estimated to take when it is written, and the most one
 *  evaluation of one expression may take when it runs. */
export const COST_BUDGET = 500_000;
/** The length assumed for a keyword list whose type declares no bound. */
export const SCHEMA_LIST_BOUND = 64;
/** The length assumed for a list read from dynamic data (`activity.params`, EIP-712 messages,
 *  contract arguments) or from a lambda variable over such data. */
export const DYNAMIC_LIST_BOUND = 256;
/** A CronSpan walks at most the minutes of its span's days (≤ 8 days × 24 hours). */
const CRON_SPAN_COST = 200;

/** The estimate for one expression, and the smallest part of it over the budget, if any. */
export interface CostEstimate {
  /** Estimated steps of one evaluation (may be `Infinity`-large for absurd nesting). */
  readonly steps: number;
  /** The innermost node whose own estimate is over the budget (where to look). */
  readonly culprit?: { readonly pos: number; readonly steps: number; readonly why: string };
}

function listBound(type: Type): number {
  if (type.t === 'list') return type.max ?? SCHEMA_LIST_BOUND;
  return DYNAMIC_LIST_BOUND;
}

/** The most items a list-valued node can hold, as far as the tree tells. */
function lengthBound(n: Checked): number {
  switch (n.k) {
    case 'list':
      return n.items.length;
    case 'filter':
      return lengthBound(n.target);
    case 'slice':
      if (n.start.k === 'const' && n.end.k === 'const') {
        const span = Number((n.end.value as bigint) - (n.start.value as bigint));
        return Math.min(span, lengthBound(n.target));
      }
      return lengthBound(n.target);
    default:
      return listBound(n.type);
  }
}

function isLiteralSet(n: Checked): boolean {
  return n.k === 'list' && n.items.every((i) => i.k === 'const');
}

function children(n: Checked): readonly Checked[] {
  switch (n.k) {
    case 'const':
    case 'root':
    case 'var':
    case 'cronspan':
      return [];
    case 'list':
      return n.items;
    case 'field':
    case 'count':
      return [n.target];
    case 'index':
      return [n.target, n.index];
    case 'slice':
      return [n.target, n.start, n.end];
    case 'not':
      return [n.operand];
    case 'and':
    case 'or':
      return n.operands;
    case 'cmp':
    case 'in':
      return [n.left, n.right];
    case 'all':
    case 'any':
    case 'filter':
      return [n.target, n.body];
  }
}

/**
 * The steps a node costs by itself each time it runs: its nodes, not counting the work of the
 * loops inside it (a loop charges that when it starts). A lambda loop charges
 * `length × (1 + localCost(body))`.
 */
export function localCost(n: Checked): number {
  switch (n.k) {
    case 'all':
    case 'any':
    case 'filter':
      return 1 + localCost(n.target);
    case 'cronspan':
      return CRON_SPAN_COST;
    default: {
      let total = 1;
      for (const c of children(n)) total += localCost(c);
      return total;
    }
  }
}

/** Estimate the steps of one evaluation of `root`, and find where it goes over `budget`. */
export function estimateCost(root: Checked, budget: number = COST_BUDGET): CostEstimate {
  let culprit: CostEstimate['culprit'];
  const walk = (n: Checked): number => {
    let steps: number;
    let why: string;
    switch (n.k) {
      case 'all':
      case 'any':
      case 'filter': {
        const length = lengthBound(n.target);
        const body = walk(n.body);
        steps = 1 + walk(n.target) + length * (1 + body);
        why = `${n.k}() runs its predicate (about ${round(body)} steps) for each of up to ${length} items`;
        break;
      }
      case 'in': {
        const length = isLiteralSet(n.right) ? 1 : lengthBound(n.right);
        steps = 1 + walk(n.left) + walk(n.right) + length;
        why = `'in' compares with each of up to ${length} items`;
        break;
      }
      case 'cronspan':
        steps = CRON_SPAN_COST;
        why = 'CronSpan';
        break;
      default:
        steps = 1;
        for (const c of children(n)) steps += walk(c);
        why = 'its parts together';
    }
    if (steps > budget && culprit === undefined) culprit = { pos: n.pos, steps, why };
    return steps;
  };
  const steps = walk(root);
  return culprit ? { steps, culprit } : { steps };
}

/** A step count for messages: `1,200`, `3.4 million`, `1.0e10`. */
export function round(steps: number): string {
  if (steps < 1e6) return Math.round(steps).toLocaleString('en-US');
  if (steps < 1e9) return `${(steps / 1e6).toFixed(1)} million`;
  return steps.toExponential(1).replace('e+', 'e');
}

/** The most steps one decision may take over all of an organization's policies (apart from
 *  those the request removes); a policy evaluated once this is spent errors with `budget`. */
export const DECISION_BUDGET = 4 * COST_BUDGET;

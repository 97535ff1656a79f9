/**
 * The checked tree: the syntax tree after the static checker, with every node's type, keywords
 * resolved (namespaces fused: `eth.tx` is one root), lambda variables numbered, `.contains(v)`
 * rewritten to `v in list`, `.count` resolved, and `Timestamp` / `CronSpan` validated.
 * The compiler and the reference evaluator both consume it.
 */
import type { ComparisonOperator } from './ast.js';
import type { CronSpanSpec } from './cron-span.js';
import type { Type } from './types.js';

interface Base {
  readonly type: Type;
  readonly pos: number;
}

export type Checked =
  /** bool, int, string or timestamp (epoch ns) literal. */
  | (Base & { readonly k: 'const'; readonly value: boolean | bigint | string })
  | (Base & { readonly k: 'list'; readonly items: readonly Checked[] })
  /** A keyword: `path` is ['activity'] or ['eth', 'tx']. */
  | (Base & { readonly k: 'root'; readonly path: readonly string[] })
  | (Base & { readonly k: 'var'; readonly slot: number; readonly name: string })
  /** Field of a struct (static) or of a dynamic value (target type any). */
  | (Base & { readonly k: 'field'; readonly target: Checked; readonly name: string })
  /** List or string index, map key, or dynamic access. */
  | (Base & { readonly k: 'index'; readonly target: Checked; readonly index: Checked })
  | (Base & {
      readonly k: 'slice';
      readonly target: Checked;
      readonly start: Checked;
      readonly end: Checked;
    })
  | (Base & { readonly k: 'not'; readonly operand: Checked })
  /** An `&&` / `||` chain, flattened (no operand is a junction of the same kind). */
  | (Base & { readonly k: 'and' | 'or'; readonly operands: readonly Checked[] })
  | (Base & {
      readonly k: 'cmp';
      readonly op: ComparisonOperator;
      readonly left: Checked;
      readonly right: Checked;
    })
  | (Base & { readonly k: 'in'; readonly left: Checked; readonly right: Checked })
  | (Base & {
      readonly k: 'all' | 'any' | 'filter';
      readonly target: Checked;
      readonly slot: number;
      readonly body: Checked;
    })
  | (Base & { readonly k: 'count'; readonly target: Checked })
  | (Base & { readonly k: 'cronspan'; readonly span: CronSpanSpec });

/** A checked expression with what the evaluator needs to run it. */
export interface CheckedExpression {
  readonly root: Checked;
  /** Number of lambda-variable slots the expression uses. */
  readonly slots: number;
  readonly source: string;
}

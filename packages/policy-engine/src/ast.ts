/**
 * The syntax tree the parser produces. Every node records `pos`, the offset of its first
 * character in the source text; operators and member accesses also record `opPos`, the offset
 * of the operator, `.` name or `[`, so errors can point at the exact place.
 */

export type ComparisonOperator = '==' | '!=' | '<' | '>' | '<=' | '>=';

export type Expr =
  | { readonly k: 'bool'; readonly pos: number; readonly value: boolean }
  | { readonly k: 'int'; readonly pos: number; readonly value: bigint }
  | { readonly k: 'string'; readonly pos: number; readonly value: string }
  | { readonly k: 'list'; readonly pos: number; readonly items: readonly Expr[] }
  | { readonly k: 'ident'; readonly pos: number; readonly name: string }
  /** `target.name`; `.count` without parentheses is parsed as this and resolved by the checker. */
  | {
      readonly k: 'field';
      readonly pos: number;
      readonly opPos: number;
      readonly target: Expr;
      readonly name: string;
    }
  /** `target[index]`: list and string indexing, map access. */
  | {
      readonly k: 'index';
      readonly pos: number;
      readonly opPos: number;
      readonly target: Expr;
      readonly index: Expr;
    }
  /** `target[start..end]`. */
  | {
      readonly k: 'slice';
      readonly pos: number;
      readonly opPos: number;
      readonly target: Expr;
      readonly start: Expr;
      readonly end: Expr;
    }
  /** `target.name(args)`: all, any, filter, contains, count. */
  | {
      readonly k: 'method';
      readonly pos: number;
      readonly opPos: number;
      readonly target: Expr;
      readonly name: string;
      readonly args: readonly Expr[];
    }
  /** `Name(args)`: Timestamp, CronSpan. */
  | {
      readonly k: 'call';
      readonly pos: number;
      readonly name: string;
      readonly args: readonly Expr[];
    }
  | { readonly k: 'not'; readonly pos: number; readonly operand: Expr }
  /** `a && b && …` or `a || b || …`: one n-ary node per chain (two or more operands), so a
   *  long chain is wide, not deep, and no walk over the tree can overflow the stack. A
   *  parenthesized chain stays a node of its own. */
  | {
      readonly k: 'logical';
      readonly pos: number;
      readonly op: '&&' | '||';
      readonly operands: readonly Expr[];
    }
  | {
      readonly k: 'compare';
      readonly pos: number;
      readonly opPos: number;
      readonly op: ComparisonOperator;
      readonly left: Expr;
      readonly right: Expr;
    }
  | {
      readonly k: 'in';
      readonly pos: number;
      readonly opPos: number;
      readonly left: Expr;
      readonly right: Expr;
    };

/**
 * A recursive-descent parser for the policy language. Precedence, loosest first:
 *
 *   expr     := or
 *   or       := and ( '||' and )*
 *   and      := compare ( '&&' compare )*
 *   compare  := unary ( ( '==' | '!=' | '<' | '>' | '<=' | '>=' | 'in' ) unary )?   — never chained
 *   unary    := '!' unary | postfix
 *   postfix  := primary ( '.' IDENT [ '(' args ')' ] | '[' expr [ '..' expr ] ']' )*
 *   primary  := INT | STRING | 'true' | 'false' | '(' expr ')' | '[' [ expr ( ',' expr )* ] ']'
 *             | IDENT [ '(' args ')' ]
 *
 * Every error carries the position of the offending token.
 */
import type { ComparisonOperator, Expr } from './ast.js';
import { type Token, type TokenKind, tokenize } from './lexer.js';
import { PolicyError, type PolicyField } from './policy-error.js';

/** Longest policy text accepted, in UTF-16 code units. */
export const MAX_SOURCE_LENGTH = 65_536;
/** Deepest nesting accepted (keeps recursion far from the stack limit). */
export const MAX_NESTING = 128;

const COMPARISONS: ReadonlySet<TokenKind> = new Set(['==', '!=', '<', '>', '<=', '>=', 'in']);

function describe(token: Token): string {
  switch (token.kind) {
    case 'eof':
      return 'the end of the expression';
    case 'int':
      return `number ${token.text}`;
    case 'string':
      return `string '${token.text}'`;
    case 'ident':
      return `'${token.text}'`;
    default:
      return `'${token.text}'`;
  }
}

class Parser {
  private i = 0;
  private depth = 0;

  constructor(
    private readonly source: string,
    private readonly field: PolicyField,
    private readonly tokens: readonly Token[],
  ) {}

  private get tok(): Token {
    return this.tokens[this.i] as Token;
  }

  private fail(offset: number, detail: string): never {
    throw PolicyError.at(this.field, this.source, offset, detail);
  }

  private next(): Token {
    const t = this.tok;
    if (t.kind !== 'eof') this.i++;
    return t;
  }

  private expect(kind: TokenKind, what: string): Token {
    const t = this.tok;
    if (t.kind !== kind) this.fail(t.pos, `expected ${what}, found ${describe(t)}`);
    return this.next();
  }

  private enter(pos: number): void {
    if (++this.depth > MAX_NESTING) {
      this.fail(pos, `expression nested more than ${MAX_NESTING} levels deep`);
    }
  }

  parseTop(): Expr {
    const first = this.tok;
    if (first.kind === 'eof') this.fail(first.pos, 'expected an expression, found nothing');
    const e = this.expr();
    const last = this.tok;
    if (last.kind !== 'eof') {
      this.fail(
        last.pos,
        `expected an operator or the end of the expression, found ${describe(last)}`,
      );
    }
    return e;
  }

  private expr(): Expr {
    this.enter(this.tok.pos);
    const first = this.and();
    const e = this.tok.kind === '||' ? this.chain('||', first, () => this.and()) : first;
    this.depth--;
    return e;
  }

  private and(): Expr {
    const first = this.compare();
    return this.tok.kind === '&&' ? this.chain('&&', first, () => this.compare()) : first;
  }

  /** The rest of an `&&` / `||` chain, collected into one n-ary node (iteratively). */
  private chain(op: '&&' | '||', first: Expr, operand: () => Expr): Expr {
    const operands: Expr[] = [first];
    while (this.tok.kind === op) {
      this.next();
      operands.push(operand());
    }
    return { k: 'logical', pos: first.pos, op, operands };
  }

  private compare(): Expr {
    const left = this.unary();
    if (!COMPARISONS.has(this.tok.kind)) return left;
    const op = this.next();
    const right = this.unary();
    if (COMPARISONS.has(this.tok.kind)) {
      this.fail(this.tok.pos, 'comparisons cannot be chained; add parentheses');
    }
    if (op.kind === 'in') return { k: 'in', pos: left.pos, opPos: op.pos, left, right };
    const kind = op.kind as ComparisonOperator;
    return { k: 'compare', pos: left.pos, opPos: op.pos, op: kind, left, right };
  }

  private unary(): Expr {
    if (this.tok.kind === '!') {
      const bang = this.next();
      this.enter(bang.pos);
      const operand = this.unary();
      this.depth--;
      return { k: 'not', pos: bang.pos, operand };
    }
    return this.postfix();
  }

  private postfix(): Expr {
    const e = this.primary();
    let links = 0;
    try {
      return this.accesses(e, () => links++);
    } finally {
      this.depth -= links;
    }
  }

  /** The `.f`, `.m(…)`, `[i]`, `[a..b]` after a primary. Each one nests the tree a level
   *  deeper, so each counts towards {@link MAX_NESTING} (`count` records how many were entered). */
  private accesses(start: Expr, count: () => void): Expr {
    let e = start;
    let links = 0;
    for (;;) {
      const t = this.tok;
      if (t.kind === '.') {
        this.next();
        const name = this.tok;
        if (name.kind !== 'ident') {
          this.fail(
            name.pos,
            `expected a field or function name after '.', found ${describe(name)}`,
          );
        }
        this.next();
        if (this.tok.kind === '(') {
          const args = this.args();
          e = { k: 'method', pos: e.pos, opPos: name.pos, target: e, name: name.text, args };
        } else {
          e = { k: 'field', pos: e.pos, opPos: name.pos, target: e, name: name.text };
        }
      } else if (t.kind === '[') {
        this.next();
        const first = this.expr();
        if (this.tok.kind === '..') {
          this.next();
          const end = this.expr();
          this.expect(']', "']' to close the slice");
          e = { k: 'slice', pos: e.pos, opPos: t.pos, target: e, start: first, end };
        } else {
          this.expect(']', "']' to close the index");
          e = { k: 'index', pos: e.pos, opPos: t.pos, target: e, index: first };
        }
      } else {
        return e;
      }
      if (++links > MAX_NESTING) this.fail(t.pos, `more than ${MAX_NESTING} accesses in a row`);
      count();
      this.enter(t.pos);
    }
  }

  private args(): Expr[] {
    this.expect('(', "'('");
    const args: Expr[] = [];
    if (this.tok.kind !== ')') {
      args.push(this.expr());
      while (this.tok.kind === ',') {
        this.next();
        args.push(this.expr());
      }
    }
    this.expect(')', "',' or ')' in the argument list");
    return args;
  }

  private primary(): Expr {
    const t = this.tok;
    switch (t.kind) {
      case 'int':
        this.next();
        return { k: 'int', pos: t.pos, value: t.int as bigint };
      case 'string':
        this.next();
        return { k: 'string', pos: t.pos, value: t.text };
      case 'true':
      case 'false':
        this.next();
        return { k: 'bool', pos: t.pos, value: t.kind === 'true' };
      case '(': {
        this.next();
        const e = this.expr();
        this.expect(')', "')'");
        return e;
      }
      case '[': {
        this.next();
        const items: Expr[] = [];
        if (this.tok.kind !== ']') {
          items.push(this.expr());
          while (this.tok.kind === ',') {
            this.next();
            items.push(this.expr());
          }
        }
        this.expect(']', "',' or ']' in the list");
        return { k: 'list', pos: t.pos, items };
      }
      case 'ident': {
        this.next();
        if (this.tok.kind === '(') {
          return { k: 'call', pos: t.pos, name: t.text, args: this.args() };
        }
        return { k: 'ident', pos: t.pos, name: t.text };
      }
      default:
        return this.fail(t.pos, `expected a value, found ${describe(t)}`);
    }
  }
}

/**
 * Parse one expression (the text of a `condition`, `consensus` or `time` field).
 * Throws {@link PolicyError} with the position of the first fault.
 */
export function parseExpression(source: string, field: PolicyField): Expr {
  if (source.length > MAX_SOURCE_LENGTH) {
    throw PolicyError.at(
      field,
      source,
      MAX_SOURCE_LENGTH,
      `expression longer than ${MAX_SOURCE_LENGTH} characters`,
    );
  }
  return new Parser(source, field, tokenize(source, field)).parseTop();
}

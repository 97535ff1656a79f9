import { describe, expect, it } from 'vitest';
import {
  CONDITION_EXAMPLES,
  CONSENSUS_EXAMPLES,
  TIME_EXAMPLES,
} from './__testing__/doc-examples.js';
import { strip } from './__testing__/strip.js';
import type { Expr } from './ast.js';
import { formatExpression } from './format.js';
import { MAX_NESTING, parseExpression } from './parser.js';
import { PolicyError, type PolicyField } from './policy-error.js';

function errorOf(source: string, field: PolicyField = 'condition'): PolicyError {
  try {
    parseExpression(source, field);
  } catch (e) {
    if (e instanceof PolicyError) return e;
    throw e;
  }
  throw new Error(`expected '${source}' not to parse`);
}

describe('parseExpression', () => {
  it.each([
    ...CONDITION_EXAMPLES.map((s) => ['condition', s] as const),
    ...CONSENSUS_EXAMPLES.map((s) => ['consensus', s] as const),
    ...TIME_EXAMPLES.map((s) => ['time', s] as const),
  ])('parses the docs example (%s) %s', (field, source) => {
    const tree = parseExpression(source, field);
    // and prints back to text that parses to the same tree
    expect(strip(parseExpression(formatExpression(tree), field))).toEqual(strip(tree));
  });

  it('gives && precedence over || and binds ! tighter than ==', () => {
    expect(formatExpression(parseExpression('a || b && c', 'condition'))).toBe('a || (b && c)');
    expect(formatExpression(parseExpression('!a == b', 'condition'))).toBe('(!a) == b');
    // A chain is one n-ary node; a parenthesized chain stays a node of its own.
    expect(formatExpression(parseExpression('a && b && c', 'condition'))).toBe('a && b && c');
    expect(formatExpression(parseExpression('(a && b) && c', 'condition'))).toBe('(a && b) && c');
    expect(parseExpression('a || b || c && d', 'condition')).toMatchObject({
      k: 'logical',
      op: '||',
      operands: [{ k: 'ident' }, { k: 'ident' }, { k: 'logical', op: '&&' }],
    });
  });

  it('parses postfix chains: fields, indexes, slices, methods and .count without parentheses', () => {
    const e = parseExpression("x.y[0]['k'][1..2].f(v, v == 1).count", 'condition');
    expect(formatExpression(e)).toBe("x.y[0]['k'][1..2].f(v, v == 1).count");
    expect(e).toMatchObject({ k: 'field', name: 'count', pos: 0, opPos: 31 });
  });

  it('reads integers as bigint, negative ones included, within i128 … u256', () => {
    expect(parseExpression('x == -5', 'condition')).toMatchObject({
      right: { k: 'int', value: -5n },
    });
    expect(parseExpression(`x == ${2n ** 256n - 1n}`, 'condition')).toMatchObject({
      right: { value: 2n ** 256n - 1n },
    });
    expect(errorOf(`x == ${2n ** 256n}`).detail).toMatch(/out of range/);
    expect(errorOf(`x == -${2n ** 127n + 1n}`).detail).toMatch(/out of range/);
    expect(parseExpression(`x == -${2n ** 127n}`, 'condition')).toMatchObject({
      right: { value: -(2n ** 127n) },
    });
  });

  it('takes strings verbatim between single quotes, with no escapes', () => {
    expect(parseExpression("x == 'a\\n\"b'", 'condition')).toMatchObject({
      right: { k: 'string', value: 'a\\n"b' },
    });
    expect(parseExpression("x == ''", 'condition')).toMatchObject({ right: { value: '' } });
  });

  it.each([
    ['activity.type == "x"', 18, /single quotes/],
    ["activity.type == 'x", 18, /unterminated string/],
    ['a & b', 3, /'&&'/],
    ['a | b', 3, /'\|\|'/],
    ['a = b', 3, /'=='/],
    ['a == 1.5', 6, /integers only/],
    ['a == b == c', 8, /cannot be chained/],
    ['a &&', 5, /expected a value, found the end/],
    ['(a', 3, /expected '\)'/],
    ['[1, 2', 6, /',' or '\]'/],
    ['[1, 2,]', 7, /expected a value/],
    ['a b', 3, /expected an operator or the end/],
    ['x.1', 3, /field or function name/],
    ['x[1', 4, /'\]'/],
    ['{ id: 1 }', 1, /struct literals/],
    ['a # b', 3, /unexpected character '#'/],
    ['', 1, /found nothing/],
    ['   ', 4, /found nothing/],
    ['12abc', 3, /after a number/],
  ])('refuses %j at column %i', (source, column, detail) => {
    const e = errorOf(source);
    expect(e.kind).toBe('condition');
    expect(e.position.column).toBe(column);
    expect(e.detail).toMatch(detail);
    expect(e.message).toContain(`invalid policy condition: ${e.detail} (line 1, column ${column})`);
  });

  it('reports lines and columns across newlines, and the field it parsed', () => {
    const e = errorOf("approvers.any(u,\n  u.id == 'a' &&)", 'consensus');
    expect(e.kind).toBe('consensus');
    expect(e.position).toEqual({ offset: 33, line: 2, column: 17 });
  });

  it('refuses nesting beyond the limit instead of overflowing the stack', () => {
    const deep = `${'('.repeat(MAX_NESTING + 5)}true${')'.repeat(MAX_NESTING + 5)}`;
    expect(errorOf(deep).detail).toMatch(/nested more than/);
    const nots = `${'!'.repeat(MAX_NESTING + 5)}true`;
    expect(errorOf(nots).detail).toMatch(/nested more than/);
    const ok = `${'('.repeat(50)}true${')'.repeat(50)}`;
    expect(() => parseExpression(ok, 'condition')).not.toThrow();
  });

  it('refuses texts longer than the limit', () => {
    expect(errorOf(`x == '${'a'.repeat(70_000)}'`).detail).toMatch(/longer than/);
  });

  it('parses the call syntax of Timestamp and CronSpan', () => {
    const e: Expr = parseExpression("CronSpan('0 9 * * 1-5', '8h', 'UTC')", 'time');
    expect(e).toMatchObject({
      k: 'call',
      name: 'CronSpan',
      args: [{ value: '0 9 * * 1-5' }, { value: '8h' }, { value: 'UTC' }],
    });
  });
});

/**
 * Print a syntax tree back to policy text. Binary operations are always parenthesized, so
 * `parseExpression(formatExpression(e))` gives back `e` (up to positions).
 */
import type { Expr } from './ast.js';

function atom(e: Expr): string {
  switch (e.k) {
    case 'logical':
    case 'compare':
    case 'in':
    case 'not':
      return `(${formatExpression(e)})`;
    default:
      return formatExpression(e);
  }
}

export function formatExpression(e: Expr): string {
  switch (e.k) {
    case 'bool':
      return e.value ? 'true' : 'false';
    case 'int':
      return e.value.toString();
    case 'string':
      if (e.value.includes("'")) {
        throw new RangeError('a policy string cannot contain a single quote');
      }
      return `'${e.value}'`;
    case 'list':
      return `[${e.items.map(formatExpression).join(', ')}]`;
    case 'ident':
      return e.name;
    case 'field':
      return `${atom(e.target)}.${e.name}`;
    case 'index':
      return `${atom(e.target)}[${formatExpression(e.index)}]`;
    case 'slice':
      return `${atom(e.target)}[${formatExpression(e.start)}..${formatExpression(e.end)}]`;
    case 'method':
      return `${atom(e.target)}.${e.name}(${e.args.map(formatExpression).join(', ')})`;
    case 'call':
      return `${e.name}(${e.args.map(formatExpression).join(', ')})`;
    case 'not':
      return `!${atom(e.operand)}`;
    case 'logical':
      return e.operands.map(atom).join(` ${e.op} `);
    case 'compare':
      return `${atom(e.left)} ${e.op} ${atom(e.right)}`;
    case 'in':
      return `${atom(e.left)} in ${atom(e.right)}`;
  }
}

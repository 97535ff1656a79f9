/**
 * The lexer: policy text → tokens. Strings are single-quoted with no escape syntax (the text
 * runs to the next `'`); integers are decimal digits, optionally preceded by `-` with no space.
 */
import { PolicyError, type PolicyField } from './policy-error.js';

export type TokenKind =
  | 'int'
  | 'string'
  | 'ident'
  | 'true'
  | 'false'
  | 'in'
  | '('
  | ')'
  | '['
  | ']'
  | ','
  | '.'
  | '..'
  | '&&'
  | '||'
  | '!'
  | '=='
  | '!='
  | '<'
  | '>'
  | '<='
  | '>='
  | 'eof';

export interface Token {
  readonly kind: TokenKind;
  /** Offset of the first character. */
  readonly pos: number;
  /** The identifier, the string's content, or the operator. */
  readonly text: string;
  /** The value of an `int` token. */
  readonly int?: bigint;
}

/** The smallest i128 and the largest u256: the range of integer literals. */
export const INT_MIN = -(2n ** 127n);
export const INT_MAX = 2n ** 256n - 1n;

const WORDS: ReadonlyMap<string, TokenKind> = new Map([
  ['true', 'true'],
  ['false', 'false'],
  ['in', 'in'],
]);

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}
function isIdentStart(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
}
function isIdentPart(c: number): boolean {
  return isIdentStart(c) || isDigit(c);
}

/**
 * The same string as a flat, internalized one. `source.slice` gives a slice of the policy text;
 * comparing a request value with it would re-read the slice on every evaluation, and looking a
 * property up by it would internalize it every time, while two internalized strings compare by
 * identity. (A property key is always internalized.)
 */
function internalize(text: string): string {
  return Object.keys({ [text]: 0 })[0] ?? text;
}

export function tokenize(source: string, field: PolicyField): Token[] {
  const fail = (offset: number, detail: string): never => {
    throw PolicyError.at(field, source, offset, detail);
  };
  const tokens: Token[] = [];
  const n = source.length;
  let i = 0;
  while (i < n) {
    const c = source.charCodeAt(i);
    // whitespace: space, tab, CR, LF
    if (c === 32 || c === 9 || c === 10 || c === 13) {
      i++;
      continue;
    }
    const start = i;
    if (isDigit(c) || (c === 45 && isDigit(source.charCodeAt(i + 1)))) {
      i++;
      while (i < n && isDigit(source.charCodeAt(i))) i++;
      if (source.charCodeAt(i) === 46 && isDigit(source.charCodeAt(i + 1))) {
        fail(start, 'decimal numbers are not supported: integers only');
      }
      if (i < n && isIdentStart(source.charCodeAt(i))) {
        fail(i, `unexpected character '${source[i]}' after a number`);
      }
      const text = source.slice(start, i);
      const value = BigInt(text);
      if (value < INT_MIN || value > INT_MAX) {
        fail(start, `integer ${text} is out of range (i128 for negatives, u256 otherwise)`);
      }
      tokens.push({ kind: 'int', pos: start, text, int: value });
      continue;
    }
    if (isIdentStart(c)) {
      i++;
      while (i < n && isIdentPart(source.charCodeAt(i))) i++;
      const text = internalize(source.slice(start, i));
      tokens.push({ kind: WORDS.get(text) ?? 'ident', pos: start, text });
      continue;
    }
    if (c === 39) {
      const close = source.indexOf("'", i + 1);
      if (close < 0) fail(start, 'unterminated string: a closing single quote is missing');
      tokens.push({ kind: 'string', pos: start, text: internalize(source.slice(i + 1, close)) });
      i = close + 1;
      continue;
    }
    const two = source.slice(i, i + 2);
    switch (two) {
      case '&&':
      case '||':
      case '==':
      case '!=':
      case '<=':
      case '>=':
      case '..':
        tokens.push({ kind: two, pos: start, text: two });
        i += 2;
        continue;
    }
    switch (source[i]) {
      case '(':
      case ')':
      case '[':
      case ']':
      case ',':
      case '.':
      case '!':
      case '<':
      case '>': {
        const kind = source[i] as TokenKind;
        tokens.push({ kind, pos: start, text: kind });
        i++;
        continue;
      }
      case '"':
        return fail(start, "strings use single quotes ('…'), not double quotes");
      case '&':
        return fail(start, "unexpected '&': the logical and is '&&'");
      case '|':
        return fail(start, "unexpected '|': the logical or is '||'");
      case '=':
        return fail(start, "unexpected '=': equality is '=='");
      case '{':
        return fail(start, 'struct literals are not supported');
      default:
        return fail(
          start,
          `unexpected character '${String.fromCodePoint(source.codePointAt(i) ?? c)}'`,
        );
    }
  }
  tokens.push({ kind: 'eof', pos: n, text: '' });
  return tokens;
}

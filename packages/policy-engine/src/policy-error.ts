/**
 * The one error this package throws for a bad policy text: it names the field (`condition`,
 * `consensus` or `time`), the position of the fault in that field's text, and a detail saying
 * what is wrong. The activities layer maps `kind` to the catalogue messages
 * ("invalid policy condition", "invalid policy consensus", …).
 */

/** The three expression fields of a policy. */
export type PolicyField = 'condition' | 'consensus' | 'time';

/** A place in a policy text: a 0-based UTF-16 offset and a 1-based line and column. */
export interface SourcePosition {
  readonly offset: number;
  readonly line: number;
  readonly column: number;
}

export class PolicyError extends Error {
  override readonly name = 'PolicyError';
  /** Which field of the policy is at fault. */
  readonly kind: PolicyField;
  /** Where in that field's text. */
  readonly position: SourcePosition;
  /** What is wrong, without the position (the `message` carries both). */
  readonly detail: string;

  constructor(kind: PolicyField, detail: string, position: SourcePosition) {
    super(`invalid policy ${kind}: ${detail} (line ${position.line}, column ${position.column})`);
    this.kind = kind;
    this.detail = detail;
    this.position = position;
  }

  /** Build the error for an offset in `source`. */
  static at(kind: PolicyField, source: string, offset: number, detail: string): PolicyError {
    return new PolicyError(kind, detail, positionAt(source, offset));
  }
}

/** The line and column of `offset` in `source` (lines split on `\n`; `\r\n` counts once). */
export function positionAt(source: string, offset: number): SourcePosition {
  const clamped = Math.max(0, Math.min(offset, source.length));
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < clamped; i++) {
    if (source.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { offset: clamped, line, column: clamped - lineStart + 1 };
}

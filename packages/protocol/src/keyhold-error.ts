/**
 * The one error type of Keyhold. It carries a catalogue entry (status code, stable
 * `errorCode`, the spec's exact message) and optional details. Anything else that is
 * thrown is a fault, and reaches a client only as "internal server error (<id>)".
 * @module
 */
import { type MessageEntry, type MessageKey, Messages } from './messages.js';
import { httpStatusOf, type StatusCode } from './status-code.js';

/** A member of `details`: a typed, JSON-safe object. */
export interface StatusDetail {
  '@type': string;
  [key: string]: unknown;
}

/** The wire error body: `{code, message, details}`. */
export interface StatusBody {
  code: number;
  message: string;
  details: StatusDetail[];
}

export const ERROR_DETAIL_TYPE = 'type.googleapis.com/keyhold.v1.ErrorDetail';

/**
 * A refusal with a catalogue message.
 * @example
 * throw new KeyholdError('REQUEST_INVALID', { field: 'parameters' });
 */
export class KeyholdError extends Error {
  readonly key: MessageKey;
  readonly code: StatusCode;
  readonly errorCode: string;
  /** Extra, non-secret context for the caller (where, which field). */
  readonly context: Record<string, unknown>;

  constructor(key: MessageKey, context: Record<string, unknown> = {}, message?: string) {
    const entry: MessageEntry = Messages[key];
    super(message ?? entry.message);
    this.name = 'KeyholdError';
    this.key = key;
    this.code = entry.code;
    this.errorCode = entry.errorCode;
    this.context = context;
  }

  get httpStatus(): number {
    return Messages[this.key].http ?? httpStatusOf(this.code);
  }

  /** The Status body for this error (`details: []` for a `withoutDetails` entry). */
  toStatus(): StatusBody {
    const entry: MessageEntry = Messages[this.key];
    return {
      code: this.code,
      message: this.message,
      details: entry.withoutDetails
        ? []
        : [{ '@type': ERROR_DETAIL_TYPE, errorCode: this.errorCode, ...this.context }],
    };
  }
}

/** True when `value` is a KeyholdError. */
export function isKeyholdError(value: unknown): value is KeyholdError {
  return value instanceof KeyholdError;
}

/** The Status body for an internal fault, with an error id the operator can find in logs. */
export function internalStatus(errorId: string): StatusBody {
  return {
    code: Messages.INTERNAL.code,
    message: `${Messages.INTERNAL.message} (${errorId})`,
    details: [{ '@type': ERROR_DETAIL_TYPE, errorCode: 'INTERNAL', errorId }],
  };
}

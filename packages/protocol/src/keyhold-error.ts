/**
 * The one error type of Keyhold. It carries a catalogue entry (status code, stable
 * `errorCode`, the spec's exact message) and optional details. Anything else that is
 * thrown is a fault, and reaches a client only as "internal server error (<id>)".
 * @module
 */
import type { ErrorContext, ErrorDetailsArgs } from './error-details.js';
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

/** The `@type` of the detail every Keyhold refusal carries. */
export const ERROR_DETAIL_TYPE = 'type.googleapis.com/keyhold.v1.ErrorDetail';

/**
 * The brand of a KeyholdError, in the global symbol registry so that two copies of
 * `@keyhold/protocol` (a duplicate install, a bundled copy) recognize each other's errors,
 * which `instanceof` does not.
 */
export const KEYHOLD_ERROR_BRAND: unique symbol = Symbol.for('keyhold.error');

/**
 * A refusal with a catalogue message. `K` is its catalogue key (its wire errorCode, or a
 * message variant's name); the details are checked against the shape `K` declares.
 * @example
 * throw new KeyholdError('UNKNOWN_FIELD', { field: '/parameters/x', reason: 'not a field' });
 * if (KeyholdError.is(error)) return error.toStatus();
 */
export class KeyholdError<K extends MessageKey = MessageKey> extends Error {
  declare readonly [KEYHOLD_ERROR_BRAND]: true;
  readonly key: K;
  readonly code: StatusCode;
  readonly errorCode: string;
  /** Extra, non-secret context for the caller (where, which field). */
  readonly context: ErrorContext;

  constructor(key: K, ...[context, message]: ErrorDetailsArgs<K>) {
    const entry: MessageEntry = Messages[key];
    super(message ?? entry.message);
    this.name = 'KeyholdError';
    this.key = key;
    this.code = entry.code;
    this.errorCode = entry.errorCode;
    this.context = (context ?? {}) as ErrorContext;
  }

  /**
   * True when `value` is a KeyholdError — of this copy of the package or of any other: the
   * check reads the global brand, never the class.
   */
  static is(value: unknown): value is KeyholdError {
    return (
      typeof value === 'object' &&
      value !== null &&
      (value as { [KEYHOLD_ERROR_BRAND]?: unknown })[KEYHOLD_ERROR_BRAND] === true
    );
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

// On the prototype, not each instance: it is not an own property that equality checks or
// serializers would see, and every instance (of any copy) inherits it.
Object.defineProperty(KeyholdError.prototype, KEYHOLD_ERROR_BRAND, { value: true });

/** True when `value` is a KeyholdError, from this copy of the package or another. */
export function isKeyholdError(value: unknown): value is KeyholdError {
  return KeyholdError.is(value);
}

/** The Status body for an internal fault, with an error id the operator can find in logs. */
export function internalStatus(errorId: string): StatusBody {
  return {
    code: Messages.INTERNAL.code,
    message: `${Messages.INTERNAL.message} (${errorId})`,
    details: [{ '@type': ERROR_DETAIL_TYPE, errorCode: 'INTERNAL', errorId }],
  };
}

/**
 * The one error type of the payment gateway, and its fixed body. Like jose's errors, each
 * carries its `code`; unlike the public API's Status body, the gateway's body is flat:
 * `{errorCode, message, retryable}` and, where it helps the client, `paymentId` and `reason`.
 * @module
 */
import type { RawResponse } from '@keyhold/protocol';
import { PAY_ERROR_CODES, type PayErrorCode } from './pay-error-codes.js';

/**
 * The fixed error body of every non-2xx payment answer.
 * @example
 * const body: PayErrorBody = { errorCode: 'PAYMENT_NOT_FOUND', message: 'no payment found with the given ID', retryable: false };
 */
export interface PayErrorBody {
  readonly errorCode: PayErrorCode;
  readonly message: string;
  readonly retryable: boolean;
  /** The payment concerned, when one is (PAYMENT_STATUS_UNKNOWN: the id to look up). */
  readonly paymentId?: string;
  /** A machine-readable detail: the x402 reason, or the field that is wrong. */
  readonly reason?: string;
}

/**
 * What a PayError may add to its body.
 * @example
 * new PayError('PAYMENT_NOT_FULFILLABLE', { paymentId, reason: 'invalid_exact_evm_insufficient_balance' });
 */
export interface PayErrorDetails {
  readonly paymentId?: string;
  readonly reason?: string;
}

/**
 * The brand of a PayError, in the global symbol registry so that two copies of the package
 * recognize each other's errors.
 */
const PAY_ERROR_BRAND: unique symbol = Symbol.for('keyhold.payError');

/**
 * A payment gateway refusal. `C` is its errorCode; status, retryability and message come
 * from the table.
 * @example
 * throw new PayError('PAYMENT_NOT_FOUND', { paymentId });
 * if (PayError.is(error)) return payErrorResponse(error);
 */
export class PayError<C extends PayErrorCode = PayErrorCode> extends Error {
  declare readonly [PAY_ERROR_BRAND]: true;
  readonly code: C;
  readonly details: PayErrorDetails;

  constructor(code: C, details: PayErrorDetails = {}, message?: string) {
    super(message ?? PAY_ERROR_CODES[code].message);
    this.name = 'PayError';
    this.code = code;
    this.details = details;
  }

  /** True when `value` is a PayError of any copy of this package. */
  static is(value: unknown): value is PayError {
    return (
      typeof value === 'object' &&
      value !== null &&
      (value as { [PAY_ERROR_BRAND]?: unknown })[PAY_ERROR_BRAND] === true
    );
  }

  get httpStatus(): number {
    return PAY_ERROR_CODES[this.code].http;
  }

  get retryable(): boolean {
    return PAY_ERROR_CODES[this.code].retryable;
  }

  /** The fixed body. */
  toBody(): PayErrorBody {
    return {
      errorCode: this.code,
      message: this.message,
      retryable: this.retryable,
      ...(this.details.paymentId !== undefined ? { paymentId: this.details.paymentId } : {}),
      ...(this.details.reason !== undefined ? { reason: this.details.reason } : {}),
    };
  }
}

Object.defineProperty(PayError.prototype, PAY_ERROR_BRAND, { value: true });

/**
 * The HTTP answer for a PayError: its status, the fixed body, and `Retry-After` where the
 * code has one (PAYMENT_STATUS_UNKNOWN: 2 seconds).
 * @example
 * payErrorResponse(new PayError('PAYMENT_STATUS_UNKNOWN', { paymentId })).headers['retry-after']; // '2'
 */
export function payErrorResponse(error: PayError): RawResponse {
  const retryAfter = (PAY_ERROR_CODES[error.code] as { retryAfterSeconds?: number })
    .retryAfterSeconds;
  return {
    status: error.httpStatus,
    headers: {
      'content-type': 'application/json',
      'cache-control': 'no-store',
      ...(retryAfter !== undefined ? { 'retry-after': String(retryAfter) } : {}),
    },
    body: JSON.stringify(error.toBody()),
  };
}

/**
 * The payment gateway's error codes (interface spec, Errors, "Payment gateway errors"): every
 * non-2xx answer of a payment endpoint carries one, with its HTTP status and whether a retry
 * of the same request can succeed. A typed union in the style of jose's error codes: the code
 * is the type, the table is the single source of its status, retryability and message.
 * @module
 */

/**
 * What one errorCode means on the wire.
 * @example
 * const entry: PayErrorEntry = PAY_ERROR_CODES.PAYMENT_NOT_FOUND; // { http: 404, retryable: false, … }
 */
export interface PayErrorEntry {
  /** The HTTP status of the answer. */
  readonly http: number;
  /** The same request may succeed later (a dependency was down); the body says so too. */
  readonly retryable: boolean;
  /** The fixed, human-readable message of the body. */
  readonly message: string;
  /** Seconds for a `Retry-After` header, when the spec asks for one. */
  readonly retryAfterSeconds?: number;
}

/**
 * The fourteen errorCodes of the payment gateway, with their status, retryability and message.
 * Statuses and messages the spec does not show are Keyhold's reading (see the package README).
 * @example
 * PAY_ERROR_CODES.PAYMENT_STATUS_UNKNOWN.http; // 503
 * PAY_ERROR_CODES.PAYMENT_STATUS_UNKNOWN.retryAfterSeconds; // 2
 */
export const PAY_ERROR_CODES = {
  PAYMENT_REQUEST_INVALID: {
    http: 400,
    retryable: false,
    message: 'the payment request body is malformed',
  },
  PAYMENT_NETWORK_MISMATCH: {
    http: 400,
    retryable: false,
    message: 'the payment is for another network than the one in the path',
  },
  PAYMENT_REQUIREMENTS_UNSUPPORTED: {
    http: 400,
    retryable: false,
    message: 'the payment scheme, network or asset is not supported by this gateway',
  },
  PAYMENT_AUTH_INVALID: {
    http: 401,
    retryable: false,
    message: 'the request is not authenticated by a valid stamp',
  },
  PAYMENT_AUTH_FORBIDDEN: {
    http: 403,
    retryable: false,
    message: 'the authenticated user may not act for this organization or payee',
  },
  PAYMENT_AUTH_UNAVAILABLE: {
    http: 503,
    retryable: true,
    message: 'the request could not be authenticated now; retry later',
  },
  PAYMENT_INTENT_CONFLICT: {
    http: 409,
    retryable: false,
    message: 'this payment identifier was already used with another payment',
  },
  PAYMENT_PROTOCOL_MISMATCH: {
    http: 400,
    retryable: false,
    message:
      'the x402 version of the request and of its payment payload disagree, or is not supported',
  },
  PAYMENT_REVISION_MISMATCH: {
    http: 409,
    retryable: false,
    message: 'the payment payload was signed for other payment requirements than the ones given',
  },
  PAYMENT_NOT_FOUND: {
    http: 404,
    retryable: false,
    message: 'no payment found with the given ID',
  },
  PAYMENT_SERVICE_UNAVAILABLE: {
    http: 503,
    retryable: true,
    message: 'the payment service is unavailable; retry later',
  },
  PAYMENT_STATUS_UNKNOWN: {
    http: 503,
    retryable: true,
    message:
      'the payment was submitted and its outcome is not known yet; look it up by paymentId and do not resubmit',
    retryAfterSeconds: 2,
  },
  PAYMENT_NOT_FULFILLABLE: {
    http: 422,
    retryable: false,
    message: 'the payment cannot be fulfilled',
  },
  FULFILLMENT_PERSISTENCE_UNAVAILABLE: {
    http: 503,
    retryable: true,
    message: 'the payment outcome could not be recorded; look it up by paymentId later',
  },
} as const satisfies Record<string, PayErrorEntry>;

/**
 * One of the fourteen payment gateway errorCodes.
 * @example
 * const code: PayErrorCode = 'PAYMENT_NOT_FOUND';
 */
export type PayErrorCode = keyof typeof PAY_ERROR_CODES;

/**
 * Every payment gateway errorCode, in the spec's order.
 * @example
 * PAY_ERROR_CODE_LIST.length; // 14
 */
export const PAY_ERROR_CODE_LIST = Object.keys(PAY_ERROR_CODES) as readonly PayErrorCode[];

/**
 * True when `value` is one of the fourteen payment gateway errorCodes.
 * @example
 * isPayErrorCode('PAYMENT_NOT_FOUND'); // true
 * isPayErrorCode('NOT_FOUND'); // false: a public API errorCode
 */
export function isPayErrorCode(value: unknown): value is PayErrorCode {
  return typeof value === 'string' && Object.hasOwn(PAY_ERROR_CODES, value);
}

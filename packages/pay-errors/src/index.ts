/**
 * `@keyhold/pay-errors`: the payment gateway's error codes, their HTTP status and
 * retryability, the fixed error body with `Retry-After` where the spec asks for it, and the
 * readiness codes of `GET /ready`. No dependency but the protocol.
 * @module
 */

export {
  PayError,
  type PayErrorBody,
  type PayErrorDetails,
  payErrorResponse,
} from './pay-error.js';
export {
  isPayErrorCode,
  PAY_ERROR_CODE_LIST,
  PAY_ERROR_CODES,
  type PayErrorCode,
  type PayErrorEntry,
} from './pay-error-codes.js';
export {
  READY_ERROR_CODES,
  type ReadinessBody,
  type ReadyErrorCode,
  readinessResponse,
} from './readiness.js';

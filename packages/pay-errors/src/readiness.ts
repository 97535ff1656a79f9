/**
 * The gateway's readiness model: `GET /ready` answers 200 `{status: 'ready'}`, or 503
 * `{status: 'unavailable', errorCode, retryable}` naming the first dependency that is down or
 * misconfigured, with one of the four readiness codes of the spec.
 * @module
 */
import type { RawResponse } from '@keyhold/protocol';

/**
 * The four `/ready` errorCodes, with whether waiting can fix them: a misconfiguration needs
 * the operator, an unreachable dependency may come back.
 * @example
 * READY_ERROR_CODES.FACILITATOR_UNAVAILABLE.retryable; // true
 */
export const READY_ERROR_CODES = {
  /** The gateway's configuration cannot work (an RPC on another chain, no settlement key). */
  PAY_GATEWAY_CONFIGURATION_INVALID: { retryable: false },
  /** The main API's store (organizations, credentials) cannot be reached. */
  COORDINATOR_UNAVAILABLE: { retryable: true },
  /** The payment records (the idempotency and replay store) cannot be read. */
  REPLAY_STORE_UNAVAILABLE: { retryable: true },
  /** A configured chain's RPC endpoint does not answer. */
  FACILITATOR_UNAVAILABLE: { retryable: true },
} as const satisfies Record<string, { readonly retryable: boolean }>;

/**
 * One of the four readiness errorCodes.
 * @example
 * const code: ReadyErrorCode = 'COORDINATOR_UNAVAILABLE';
 */
export type ReadyErrorCode = keyof typeof READY_ERROR_CODES;

/**
 * The `/ready` body.
 * @example
 * const body: ReadinessBody = { status: 'unavailable', errorCode: 'FACILITATOR_UNAVAILABLE', retryable: true };
 */
export type ReadinessBody =
  | { readonly status: 'ready' }
  | {
      readonly status: 'unavailable';
      readonly errorCode: ReadyErrorCode;
      readonly retryable: boolean;
    };

/**
 * The `/ready` answer for a readiness outcome: 200 when `errorCode` is absent, else 503.
 * @example
 * readinessResponse(undefined).status; // 200
 * readinessResponse('COORDINATOR_UNAVAILABLE').status; // 503
 */
export function readinessResponse(errorCode: ReadyErrorCode | undefined): RawResponse {
  const body: ReadinessBody = errorCode
    ? { status: 'unavailable', errorCode, retryable: READY_ERROR_CODES[errorCode].retryable }
    : { status: 'ready' };
  return {
    status: errorCode ? 503 : 200,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
    body: JSON.stringify(body),
  };
}

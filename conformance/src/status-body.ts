/**
 * The error model every refusal must follow: HTTP 4xx/5xx with a Status body
 * `{code, message, details}` (interface spec, Errors), where `code` is a gRPC status code and
 * the HTTP status is the one grpc-gateway maps it to (the published clients were written
 * against grpc-gateway: InvalidArgument→400, Unauthenticated→401, NotFound→404, …).
 * @module
 */
import assert from 'node:assert/strict';
import { parseJson, truncate } from './client.js';
import type { TargetResponse } from './target.js';

/** A parsed Status body. */
export interface StatusBody {
  code: number;
  message: string;
  details: unknown[];
}

/** The HTTP status grpc-gateway gives each gRPC status code. */
export const HTTP_STATUS_OF_CODE: Readonly<Record<number, number>> = {
  1: 499, // CANCELLED
  2: 500, // UNKNOWN
  3: 400, // INVALID_ARGUMENT
  4: 504, // DEADLINE_EXCEEDED
  5: 404, // NOT_FOUND
  6: 409, // ALREADY_EXISTS
  7: 403, // PERMISSION_DENIED
  8: 429, // RESOURCE_EXHAUSTED
  9: 400, // FAILED_PRECONDITION
  10: 409, // ABORTED
  11: 400, // OUT_OF_RANGE
  12: 501, // UNIMPLEMENTED
  13: 500, // INTERNAL
  14: 503, // UNAVAILABLE
  15: 500, // DATA_LOSS
  16: 401, // UNAUTHENTICATED
};

/**
 * More precise HTTP statuses also accepted for a code: 413 for RESOURCE_EXHAUSTED (gRPC's own
 * code for an over-large message) and 405 for UNIMPLEMENTED (a method the path does not serve).
 */
export const ALSO_ACCEPTED_HTTP_STATUS: Readonly<Record<number, readonly number[]>> = {
  8: [413],
  12: [405],
};

export interface StatusExpectation {
  /** The exact HTTP status; otherwise any 4xx. */
  httpStatus?: number;
  /** The exact `message` text the spec fixes. */
  message?: string;
  /** What was sent, for the failure message. */
  request?: string;
}

/**
 * Asserts that `response` is a refusal: HTTP 4xx (never 5xx, never 2xx) whose body parses as
 * a Status `{code: integer, message: string, details: array}` with `code` matching the HTTP
 * status, and (when given) the exact status and message. Returns the parsed body.
 */
export function expectStatusRefusal(
  response: TargetResponse,
  expected: StatusExpectation = {},
): StatusBody {
  const context = () =>
    `HTTP ${response.status} ${truncate(response.body, 400)}` +
    (expected.request === undefined ? '' : `\n  request: ${truncate(expected.request, 400)}`);
  if (expected.httpStatus !== undefined) {
    assert.equal(
      response.status,
      expected.httpStatus,
      `expected HTTP ${expected.httpStatus}; ${context()}`,
    );
  } else {
    assert.ok(
      response.status >= 400 && response.status < 500,
      `expected an HTTP 4xx refusal; ${context()}`,
    );
  }
  const body = parseJson(response.body) as Partial<StatusBody> | undefined;
  assert.ok(
    typeof body === 'object' && body !== null && !Array.isArray(body),
    `the refusal body is not a JSON object; ${context()}`,
  );
  assert.ok(Number.isInteger(body.code), `Status.code is not an integer; ${context()}`);
  assert.equal(typeof body.message, 'string', `Status.message is not a string; ${context()}`);
  assert.ok(Array.isArray(body.details), `Status.details is not an array; ${context()}`);
  const code = body.code as number;
  assert.ok(
    HTTP_STATUS_OF_CODE[code] === response.status ||
      (ALSO_ACCEPTED_HTTP_STATUS[code] ?? []).includes(response.status),
    `Status.code ${code} does not map to HTTP ${response.status}; ${context()}`,
  );
  if (expected.message !== undefined) {
    assert.equal(body.message, expected.message, `unexpected Status.message; ${context()}`);
  }
  return body as StatusBody;
}

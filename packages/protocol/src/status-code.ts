/**
 * gRPC-style status codes carried in every Status body, and the HTTP status each maps to.
 * The mapping follows grpc-gateway, which is what the public clients were written against.
 * @module
 */

/** The status codes a Status body can carry (`code`). */
export const StatusCode = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
} as const;

export type StatusCode = (typeof StatusCode)[keyof typeof StatusCode];

const HTTP_BY_CODE: Record<StatusCode, number> = {
  0: 200,
  1: 499,
  2: 500,
  3: 400,
  4: 504,
  5: 404,
  6: 409,
  7: 403,
  8: 429,
  9: 400,
  10: 409,
  11: 400,
  12: 501,
  13: 500,
  14: 503,
  15: 500,
  16: 401,
};

/**
 * The HTTP status for a status code.
 * @example httpStatusOf(StatusCode.UNAUTHENTICATED) // 401
 */
export function httpStatusOf(code: StatusCode): number {
  return HTTP_BY_CODE[code] ?? 500;
}

/**
 * The errors the ports report (a store constraint, a store or limiter that cannot be reached,
 * a bucket that refuses), recognized by a stable code rather than by class. The code sits
 * under a brand in the global symbol registry, so an error made by a second copy of
 * `@keyhold/activities` — an adapter built against its own install — maps the same way, which
 * `instanceof` does not.
 * @module
 */

/** The code of each port error; each is also the `errorCode` the server answers with or logs. */
export type PortErrorCode =
  | 'STORE_CONFLICT'
  | 'STORE_UNAVAILABLE'
  | 'RATE_LIMIT_BACKEND_UNAVAILABLE'
  | 'RATE_LIMITED';

/** The brand of a port error; its value is the error's code. */
export const PORT_ERROR_BRAND: unique symbol = Symbol.for('keyhold.port-error');

/**
 * The code of a port error — of this copy of the package or any other — or undefined for
 * anything else.
 * @example
 * if (portErrorCodeOf(error) === 'STORE_UNAVAILABLE') return retryLater();
 */
export function portErrorCodeOf(value: unknown): PortErrorCode | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const code = (value as { [PORT_ERROR_BRAND]?: unknown })[PORT_ERROR_BRAND];
  return typeof code === 'string' ? (code as PortErrorCode) : undefined;
}

/** The base of the port errors: a code, and the brand that carries it. */
export abstract class PortError extends Error {
  /** The stable code; switch on it (or use the subclass's `is()`), never on the class. */
  abstract readonly code: PortErrorCode;

  /** The brand, read from the code: on the prototype, so no instance owns an extra key. */
  get [PORT_ERROR_BRAND](): PortErrorCode {
    return this.code;
  }
}

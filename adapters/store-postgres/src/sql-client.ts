/**
 * The tiny SQL surface the store needs, and the two drivers implement: a transaction that
 * hands out a client, and a client that runs one parameterized statement (or a script).
 * Both drivers speak the same Postgres dialect, so the store's SQL is written once.
 * @module
 */
import { StoreConflictError, StoreUnavailableError } from '@keyhold/activities';
import { CONSTRAINT_NAMES } from './schema.js';

export type Row = Record<string, unknown>;

/** A connection inside one open transaction. */
export interface SqlClient {
  /**
   * Runs one statement with `$1…$n` parameters; resolves to its rows. `fixed`: the text is
   * one of the store's fixed statements (never built from varying parts), so the driver may
   * parse and plan it once per connection and reuse it (a named prepared statement). `last`:
   * the statement is the transaction's last write; when nothing was written before it, the
   * driver may run it on its own, committed as it completes (see deferred-begin.ts), so a
   * write after it is not undone if the transaction then fails.
   */
  query<R = Row>(
    text: string,
    params?: readonly unknown[],
    fixed?: boolean,
    last?: boolean,
  ): Promise<R[]>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(script: string): Promise<void>;
}

/** One write of a `WriteGroup`: its statement alone and that statement's parameters. */
export interface GroupedWrite {
  readonly text: string;
  readonly params: readonly unknown[];
}

/**
 * Writes a driver may send together. A write of the group that runs alone (the transaction's
 * last, nothing written before it) may wait while another of its key is in flight, and then go
 * with the others that waited, as one statement: one commit for all of them. Each write's rows
 * are what its statement alone would have returned.
 */
export interface WriteGroup {
  /** The statements (texts) of the group. */
  readonly texts: ReadonlySet<string>;
  /** Writes with the same key may go together (and wait for each other). */
  key(write: GroupedWrite): string;
  /** The one statement for several writes of one key, and each write's rows from its rows. */
  combine(writes: readonly GroupedWrite[]): {
    readonly text: string;
    readonly params: unknown[];
    rowsOf(rows: readonly Row[]): Row[][];
  };
}

export interface SqlDriver {
  /** `pg` (a server, many connections) or `pglite` (embedded, one connection). */
  readonly kind: 'pg' | 'pglite';
  /**
   * Runs `work` in one database transaction whose search_path is the store's schema:
   * COMMIT when it resolves, ROLLBACK when it throws.
   */
  transaction<T>(work: (client: SqlClient) => Promise<T>): Promise<T>;
  /**
   * Optional: the store's writes that may go together (see `WriteGroup`), given once by the
   * store it serves. A driver without it sends every write on its own.
   */
  groupWrites?(group: WriteGroup): void;
  /** Releases what the driver owns (a pool it created, a PGlite it opened). */
  close(): Promise<void>;
}

/** Thrown when COMMIT turned into ROLLBACK because a statement of the transaction failed. */
export class TransactionAbortedError extends Error {
  constructor() {
    super('transaction aborted: a statement failed, so COMMIT rolled back');
    this.name = 'TransactionAbortedError';
  }
}

interface DatabaseErrorLike {
  code?: unknown;
  constraint?: unknown;
  message?: unknown;
  cause?: unknown;
  errors?: unknown;
}

/**
 * Socket and resolver errors (Node's `error.code`) that mean the database cannot be reached
 * or the connection to it broke.
 */
const UNAVAILABLE_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * SQLSTATEs besides class 08 (connection exception) that mean the server is not serving:
 * 57P01 admin_shutdown (the connection was terminated), 57P02 crash_shutdown, 57P03
 * cannot_connect_now (starting up or shutting down), 53300 too_many_connections, 57014
 * query_canceled (the statement timeout fired: the database is too slow or a lock is held
 * too long; the same request may succeed on retry).
 */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300', '57014']);

/**
 * What `pg` and `pg-pool` say when a connection is lost or cannot be had in time:
 * "Connection terminated unexpectedly", "Connection terminated due to connection timeout",
 * "timeout exceeded when trying to connect", "Client has encountered a connection error and
 * is not queryable".
 */
const UNAVAILABLE_MESSAGES = [
  /^Connection terminated\b/,
  /^timeout exceeded when trying to connect$/,
  /^Client has encountered a connection error and is not queryable$/,
];

/**
 * Why an error means "the database is unavailable" (a connection-level failure, not a
 * statement the database refused), or `undefined` when it does not. Looks through `cause`
 * and through an AggregateError's `errors` (Node's failed dual-stack connect).
 */
export function unavailableReason(error: unknown, depth = 0): string | undefined {
  if (typeof error !== 'object' || error === null || depth > 5) return undefined;
  if (StoreUnavailableError.is(error)) return error.message;
  const { code, message, cause, errors } = error as DatabaseErrorLike;
  if (typeof code === 'string') {
    if (UNAVAILABLE_ERRNOS.has(code)) return code;
    if (code.startsWith('08') || UNAVAILABLE_SQLSTATES.has(code)) return `SQLSTATE ${code}`;
  }
  if (typeof message === 'string' && UNAVAILABLE_MESSAGES.some((m) => m.test(message))) {
    return message;
  }
  for (const inner of [cause, ...(Array.isArray(errors) ? errors : [])]) {
    const reason = unavailableReason(inner, depth + 1);
    if (reason) return reason;
  }
  return undefined;
}

/**
 * A connection-level failure as the port's StoreUnavailableError (the original kept as
 * `cause`, its message naming only the errno, SQLSTATE or driver message — never a
 * connection string); any other error unchanged.
 */
export function asUnavailable(error: unknown): unknown {
  if (StoreUnavailableError.is(error)) return error;
  const reason = unavailableReason(error);
  if (reason === undefined) return error;
  const unavailable = new StoreUnavailableError(reason);
  unavailable.cause = error;
  return unavailable;
}

/**
 * Turns a Postgres unique violation (SQLSTATE 23505) into the port's StoreConflictError,
 * naming the constraint the way the port does, and a connection-level failure (see
 * `unavailableReason`) into StoreUnavailableError; other errors pass through unchanged.
 */
export function translateDatabaseError(error: unknown): unknown {
  if (typeof error !== 'object' || error === null) return error;
  const { code, constraint } = error as DatabaseErrorLike;
  if (code !== '23505') return asUnavailable(error);
  const name = typeof constraint === 'string' ? constraint : 'unknown';
  const conflict = new StoreConflictError(CONSTRAINT_NAMES[name] ?? name);
  conflict.cause = error;
  return conflict;
}

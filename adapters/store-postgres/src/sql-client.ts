/**
 * The tiny SQL surface the store needs, and the two drivers implement: a transaction that
 * hands out a client, and a client that runs one parameterized statement (or a script).
 * Both drivers speak the same Postgres dialect, so the store's SQL is written once.
 * @module
 */
import { StoreConflictError } from '@keyhold/activities';
import { CONSTRAINT_NAMES } from './schema.js';

export type Row = Record<string, unknown>;

/** A connection inside one open transaction. */
export interface SqlClient {
  /** Runs one statement with `$1…$n` parameters; resolves to its rows. */
  query<R = Row>(text: string, params?: readonly unknown[]): Promise<R[]>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(script: string): Promise<void>;
}

export interface SqlDriver {
  /** `pg` (a server, many connections) or `pglite` (embedded, one connection). */
  readonly kind: 'pg' | 'pglite';
  /**
   * Runs `work` in one database transaction whose search_path is the store's schema:
   * COMMIT when it resolves, ROLLBACK when it throws.
   */
  transaction<T>(work: (client: SqlClient) => Promise<T>): Promise<T>;
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
}

/**
 * Turns a Postgres unique violation (SQLSTATE 23505) into the port's StoreConflictError,
 * naming the constraint the way the port does; other errors pass through unchanged.
 */
export function translateDatabaseError(error: unknown): unknown {
  if (typeof error !== 'object' || error === null) return error;
  const { code, constraint } = error as DatabaseErrorLike;
  if (code !== '23505') return error;
  const name = typeof constraint === 'string' ? constraint : 'unknown';
  const conflict = new StoreConflictError(CONSTRAINT_NAMES[name] ?? name);
  conflict.cause = error;
  return conflict;
}

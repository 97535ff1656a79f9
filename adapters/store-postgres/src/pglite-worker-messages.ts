/**
 * The messages between `PgliteWorkerDriver` (the request thread) and `pglite-worker.ts` (the
 * thread that owns the PGlite instance). Every request carries an `id` its reply repeats; the
 * statements of one transaction carry its `tx`.
 * @module
 */

/** What the request thread asks the worker. */
export type WorkerRequest =
  | {
      readonly type: 'open';
      readonly id: number;
      readonly dataDir: string | undefined;
      readonly schema: string;
    }
  | { readonly type: 'begin'; readonly id: number; readonly tx: number }
  | {
      readonly type: 'query';
      readonly id: number;
      /** The open transaction it belongs to; none: it runs alone, committed as it completes. */
      readonly tx: number | undefined;
      readonly text: string;
      readonly params: readonly unknown[] | undefined;
      /** One of the store's fixed statements: run as a named prepared statement. */
      readonly fixed: boolean | undefined;
    }
  | { readonly type: 'exec'; readonly id: number; readonly tx: number; readonly script: string }
  | { readonly type: 'end'; readonly id: number; readonly tx: number; readonly commit: boolean }
  | { readonly type: 'close'; readonly id: number };

/** A database error as it crosses threads: what `translateDatabaseError` reads of it. */
export interface WorkerError {
  readonly name: string;
  readonly message: string;
  readonly code?: string;
  readonly constraint?: string;
  readonly detail?: string;
  /** COMMIT turned into ROLLBACK: a statement of the transaction had failed. */
  readonly aborted?: true;
}

/** The worker's answer to one request. */
export type WorkerReply =
  | { readonly id: number; readonly ok: true; readonly rows?: unknown[] }
  | { readonly id: number; readonly ok: false; readonly error: WorkerError };

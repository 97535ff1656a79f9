/**
 * The PGlite driver with PGlite on a worker thread of its own. In-thread PGlite runs every
 * statement in WebAssembly on the thread that also serves HTTP, verifies stamps and signs, so a
 * request's database work and every other request's CPU work take turns; here they run side by
 * side, on two cores. Transactions still run one at a time (PGlite has one connection), and
 * each statement is one message each way between the threads. BEGIN waits for the first write,
 * as on the other drivers (deferred-begin.ts), so a signature's one write is one message each
 * way and holds PGlite's transaction for no longer than the statement.
 * @module
 */
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { needsBegin } from './deferred-begin.js';
import type { WorkerError, WorkerReply, WorkerRequest } from './pglite-worker-messages.js';
import { type SqlClient, type SqlDriver, TransactionAbortedError } from './sql-client.js';

/** Running from TypeScript sources (vitest, tsx) rather than from a build. */
const FROM_SOURCES = import.meta.url.endsWith('.ts');

/** Distributes a request without its `id`, which `call` assigns. */
type Request = WorkerRequest extends infer R
  ? R extends { id: number }
    ? Omit<R, 'id'>
    : never
  : never;

/** A database error from the worker, with the fields `translateDatabaseError` reads. */
function errorFrom(error: WorkerError): Error {
  if (error.aborted) return new TransactionAbortedError();
  return Object.assign(new Error(error.message), error);
}

/**
 * @example
 * const driver = await PgliteWorkerDriver.open({ dataDir: './.keyhold/data/pgdata' });
 * const { store } = await SqlStore.open(driver, { schema: 'public' });
 */
export class PgliteWorkerDriver implements SqlDriver {
  readonly kind = 'pglite';
  private nextId = 0;
  private nextTx = 0;
  private readonly waiting = new Map<
    number,
    { resolve: (rows: unknown[] | undefined) => void; reject: (error: Error) => void }
  >();
  private gone: Error | undefined;

  private constructor(
    private readonly worker: Worker,
    private readonly release: () => Promise<void>,
  ) {
    worker.on('message', (reply: WorkerReply) => {
      const waiter = this.waiting.get(reply.id);
      if (!waiter) return;
      this.waiting.delete(reply.id);
      if (reply.ok) waiter.resolve(reply.rows);
      else waiter.reject(errorFrom(reply.error));
    });
    const fail = (error: Error) => {
      this.gone ??= error;
      for (const waiter of this.waiting.values()) waiter.reject(error);
      this.waiting.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the PGlite worker exited (code ${code})`)));
  }

  /**
   * Starts the worker and opens PGlite in it: in `dataDir`, or in memory without one. The
   * caller has checked and locked the directory; `release` runs after the worker has closed it.
   */
  static async open(options: {
    dataDir?: string;
    schema: string;
    release?: () => Promise<void>;
  }): Promise<PgliteWorkerDriver> {
    const worker = FROM_SOURCES
      ? new Worker(fileURLToPath(new URL('./pglite-worker-source.mjs', import.meta.url)), {
          execArgv: ['--conditions=keyhold-source'],
        })
      : new Worker(fileURLToPath(new URL('./pglite-worker.js', import.meta.url)));
    const driver = new PgliteWorkerDriver(worker, options.release ?? (async () => {}));
    try {
      await driver.call({ type: 'open', dataDir: options.dataDir, schema: options.schema });
    } catch (error) {
      await worker.terminate();
      throw error;
    }
    return driver;
  }

  private call(request: Request): Promise<unknown[] | undefined> {
    if (this.gone) return Promise.reject(this.gone);
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ ...request, id } as WorkerRequest);
    });
  }

  async transaction<T>(work: (client: SqlClient) => Promise<T>): Promise<T> {
    // BEGIN waits for the first write (deferred-begin.ts): the worker's session keeps the
    // schema's search_path, and a signature's one write is one message each way.
    let tx: number | undefined;
    const open = async () => {
      tx = ++this.nextTx;
      await this.call({ type: 'begin', tx });
    };
    let result: T;
    try {
      result = await work({
        query: async (text, params, fixed, last) => {
          if (tx === undefined && needsBegin('not begun', text, fixed, last)) await open();
          return ((await this.call({ type: 'query', tx, text, params, fixed })) ?? []) as never;
        },
        exec: async (script) => {
          if (tx === undefined) await open();
          await this.call({ type: 'exec', tx: tx!, script });
        },
      });
    } catch (error) {
      if (tx !== undefined) await this.call({ type: 'end', tx, commit: false }).catch(() => {});
      throw error;
    }
    if (tx !== undefined) await this.call({ type: 'end', tx, commit: true });
    return result;
  }

  async close(): Promise<void> {
    try {
      if (!this.gone) await this.call({ type: 'close' });
    } finally {
      await this.worker.terminate();
      await this.release();
    }
  }
}

/**
 * The thread that owns a PGlite instance for `PgliteWorkerDriver`. PGlite runs Postgres in
 * WebAssembly on the thread that calls it; here, that is not the thread serving requests, so
 * parsing, planning and executing statements no longer take turns with HTTP, stamp checks and
 * signatures. Transactions still run one at a time (PGlite's own transaction mutex); each one
 * waits here for its statements, sent one by one from the request thread.
 * @module
 */
import { parentPort } from 'node:worker_threads';
import { PGlite, type Transaction, TransactionAbortedError } from '@electric-sql/pglite';
import { queryAlone, queryIn } from './pglite-prepared.js';
import type { WorkerError, WorkerReply, WorkerRequest } from './pglite-worker-messages.js';
import { quoteSchema } from './schema.js';

type StatementRequest = Extract<WorkerRequest, { type: 'query' | 'exec' | 'end' }>;

const port = parentPort;
if (!port) throw new Error('pglite-worker runs as a worker thread');

let db: PGlite | undefined;
/** The statements waiting for each open transaction, and who waits for the next one. */
const inboxes = new Map<number, { queue: StatementRequest[]; wake?: () => void }>();

const reply = (message: WorkerReply) => port.postMessage(message);

function errorOf(error: unknown): WorkerError {
  if (error instanceof TransactionAbortedError) {
    return { name: 'TransactionAbortedError', message: error.message, aborted: true };
  }
  const e = (typeof error === 'object' && error !== null ? error : {}) as Record<string, unknown>;
  const text = (key: string) => (typeof e[key] === 'string' ? (e[key] as string) : undefined);
  return {
    name: text('name') ?? 'Error',
    message: text('message') ?? String(error),
    ...(text('code') ? { code: text('code') } : {}),
    ...(text('constraint') ? { constraint: text('constraint') } : {}),
    ...(text('detail') ? { detail: text('detail') } : {}),
  };
}

async function nextStatement(tx: number): Promise<StatementRequest> {
  const inbox = inboxes.get(tx)!;
  while (inbox.queue.length === 0) await new Promise<void>((wake) => (inbox.wake = wake));
  return inbox.queue.shift()!;
}

/** Marks a rollback the request thread asked for, so it is not reported as an error. */
class RollbackRequested extends Error {}

/** Runs one transaction: BEGIN (answering `begin`), its statements, then COMMIT or ROLLBACK. */
async function transaction(database: PGlite, begin: { id: number; tx: number }): Promise<void> {
  inboxes.set(begin.tx, { queue: [] });
  let end: StatementRequest | undefined;
  try {
    await database.transaction(async (t: Transaction) => {
      reply({ id: begin.id, ok: true });
      for (;;) {
        const statement = await nextStatement(begin.tx);
        if (statement.type === 'end') {
          end = statement;
          if (!statement.commit) throw new RollbackRequested();
          return;
        }
        try {
          if (statement.type === 'query') {
            const rows = await queryIn(
              database,
              t,
              statement.text,
              statement.params,
              statement.fixed,
            );
            reply({ id: statement.id, ok: true, rows });
          } else {
            await t.exec(statement.script);
            reply({ id: statement.id, ok: true });
          }
        } catch (error) {
          reply({ id: statement.id, ok: false, error: errorOf(error) });
        }
      }
    });
    if (end) reply({ id: end.id, ok: true });
  } catch (error) {
    const id = end?.id ?? begin.id;
    if (error instanceof RollbackRequested) reply({ id, ok: true });
    else reply({ id, ok: false, error: errorOf(error) });
  } finally {
    inboxes.delete(begin.tx);
  }
}

port.on('message', async (request: WorkerRequest) => {
  try {
    switch (request.type) {
      case 'open':
        db =
          request.dataDir === undefined
            ? await PGlite.create()
            : await PGlite.create(request.dataDir);
        // This thread alone uses the instance: its session keeps the schema's search_path.
        await db.exec(`SET search_path TO ${quoteSchema(request.schema)}`);
        reply({ id: request.id, ok: true });
        return;
      case 'begin':
        if (!db) throw new Error('the database is not open');
        void transaction(db, request);
        return;
      case 'query':
      case 'exec':
      case 'end': {
        if (request.type === 'query' && request.tx === undefined) {
          if (!db) throw new Error('the database is not open');
          reply({
            id: request.id,
            ok: true,
            rows: await queryAlone(db, request.text, request.params, request.fixed),
          });
          return;
        }
        const inbox = inboxes.get(request.tx!);
        if (!inbox) throw new Error(`transaction ${request.tx} is not open`);
        inbox.queue.push(request);
        inbox.wake?.();
        inbox.wake = undefined;
        return;
      }
      case 'close':
        await db?.close();
        db = undefined;
        reply({ id: request.id, ok: true });
        return;
    }
  } catch (error) {
    reply({ id: request.id, ok: false, error: errorOf(error) });
  }
});

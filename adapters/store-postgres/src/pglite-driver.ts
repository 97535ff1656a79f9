/**
 * The PGlite driver: Postgres embedded in the process (WebAssembly), in memory or in a data
 * directory. PGlite has one connection, so transactions run one at a time: PGlite's own
 * `transaction()` holds its transaction mutex from BEGIN to COMMIT/ROLLBACK, which also
 * serializes stores that share one PGlite instance. On a PGlite the driver opened (its session
 * is the store's), BEGIN waits for the first write as on the pg driver (deferred-begin.ts):
 * plain reads before it, and a last write with nothing before it, run alone, each taking the
 * transaction mutex for that one statement — so a signature is one statement, not three.
 *
 * A data directory is checked before PGlite touches it: a directory with files but no
 * Postgres cluster is refused (PGlite would otherwise initialize a cluster among them), a
 * cluster PGlite cannot start is reported as damaged, and a lock file keeps a second
 * process (or a second store in this one) from opening a directory that is in use.
 * @module
 */
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import {
  PGlite,
  TransactionAbortedError as PgliteAbortedError,
  type Transaction,
} from '@electric-sql/pglite';
import { needsBegin } from './deferred-begin.js';
import { runMigrations } from './migrations.js';
import { queryAlone, queryIn } from './pglite-prepared.js';
import { PgliteWorkerDriver } from './pglite-worker-driver.js';
import { DEFAULT_SCHEMA, quoteSchema } from './schema.js';
import { type SqlClient, type SqlDriver, TransactionAbortedError } from './sql-client.js';
import { SqlStore } from './sql-store.js';
import { StoreOpenError } from './store-open-error.js';

/** A transaction BEGIN opened, and how to end it. */
interface OpenTransaction {
  readonly tx: Transaction;
  end(commit: boolean): Promise<void>;
}

export class PgliteDriver implements SqlDriver {
  readonly kind = 'pglite';
  private readonly searchPath: string | undefined;

  /**
   * @param db the PGlite instance
   * @param schema the schema the store's tables live in
   * @param release called on close (closes a PGlite the driver opened, drops its lock)
   * @param ownsSession the driver alone uses `db`, whose session search_path is already the
   *   schema: transactions skip `SET LOCAL search_path` (a statement each, in WebAssembly)
   */
  constructor(
    private readonly db: PGlite,
    schema: string = DEFAULT_SCHEMA,
    private readonly release: () => Promise<void> = async () => {},
    ownsSession = false,
  ) {
    this.searchPath = ownsSession ? undefined : `SET LOCAL search_path TO ${quoteSchema(schema)}`;
  }

  async transaction<T>(work: (client: SqlClient) => Promise<T>): Promise<T> {
    if (this.searchPath) return this.begunAtStart(work, this.searchPath);
    // The session's search_path is the schema: BEGIN waits for the first write (see
    // deferred-begin.ts), and a last write with nothing written before it runs alone.
    let open: OpenTransaction | undefined;
    try {
      const result = await work({
        query: async (text, params, fixed, last) => {
          if (!open && needsBegin('not begun', text, fixed, last)) open = await this.open();
          if (open) return queryIn(this.db, open.tx, text, params, fixed) as never;
          return queryAlone(this.db, text, params, fixed) as never;
        },
        exec: async (script) => {
          open ??= await this.open();
          await open.tx.exec(script);
        },
      });
      if (open) await open.end(true);
      return result;
    } catch (error) {
      if (open) await open.end(false).catch(() => {});
      throw error instanceof PgliteAbortedError ? new TransactionAbortedError() : error;
    }
  }

  /** The transaction as before deferred BEGIN: on a PGlite shared with others' sessions. */
  private async begunAtStart<T>(
    work: (client: SqlClient) => Promise<T>,
    searchPath: string,
  ): Promise<T> {
    try {
      return await this.db.transaction(async (tx) => {
        await tx.exec(searchPath);
        return work({
          query: async (text, params, fixed) => queryIn(this.db, tx, text, params, fixed) as never,
          exec: async (script) => {
            await tx.exec(script);
          },
        });
      });
    } catch (error) {
      // COMMIT after a failed statement rolled back: the same error as the pg driver's.
      if (error instanceof PgliteAbortedError) throw new TransactionAbortedError();
      throw error;
    }
  }

  /**
   * Sends BEGIN (PGlite's `transaction`, which holds its transaction mutex until the end) and
   * resolves once it is open; `end` commits or rolls back and resolves when that is done.
   */
  private open(): Promise<OpenTransaction> {
    return new Promise((opened, failed) => {
      let finish!: (commit: boolean) => void;
      const decided = new Promise<boolean>((resolve) => {
        finish = resolve;
      });
      const done = this.db.transaction(async (tx) => {
        opened({
          tx,
          end: async (commit) => {
            finish(commit);
            await done;
          },
        });
        if (!(await decided)) await tx.rollback();
      });
      // BEGIN failed: nothing was opened. Later failures reach `end`'s caller.
      done.catch(failed);
    });
  }

  close(): Promise<void> {
    return this.release();
  }
}

export interface PgliteStoreOptions {
  /** A data directory (created if missing). Without one, the database lives in memory. */
  dataDir?: string;
  /** A PGlite instance of your own (instead of `dataDir`); the store never closes it. */
  pglite?: PGlite;
  /**
   * Keep what requests read over and over while their organization's generation stands (see
   * generation-cache.ts). Default true; false sends every read to the database.
   */
  cache?: boolean;
  /** The schema for Keyhold's tables. Default `public`. */
  schema?: string;
  /**
   * Where PGlite runs: `'worker'`, a worker thread of its own (`PgliteWorkerDriver`: the
   * database's WebAssembly no longer takes turns with request handling on one core; what
   * `keyhold serve` uses), or `'same'`, the calling thread. Default `'same'`. A `pglite`
   * instance of your own always runs where you made it.
   */
  thread?: 'same' | 'worker';
}

const LOCK_FILE = 'keyhold.lock';
/** Data directories this process has open (a pid check cannot see those). */
const openHere = new Set<string>();

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === 'EPERM';
  }
}

/** Takes `dataDir/keyhold.lock` (holding our pid), replacing a stale one. */
function lockDataDir(dir: string): () => void {
  const path = join(dir, LOCK_FILE);
  const inUse = (owner: string) =>
    new StoreOpenError(
      'in-use',
      `data directory ${dir} is in use by ${owner}; stop it first (if no Keyhold is running, ` +
        `delete ${path})`,
    );
  if (openHere.has(dir)) throw inUse('this process');
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      break;
    } catch (error) {
      if ((error as { code?: string }).code !== 'EEXIST' || attempt > 0) throw error;
      const pid = Number.parseInt(readFileSync(path, 'utf8'), 10);
      // Our own pid in a lock we do not hold is stale: a restart reused the pid (containers).
      if (Number.isInteger(pid) && pid !== process.pid && processAlive(pid)) {
        throw inUse(`process ${pid}`);
      }
      unlinkSync(path);
    }
  }
  openHere.add(dir);
  return () => {
    openHere.delete(dir);
    try {
      unlinkSync(path);
    } catch {
      // already gone
    }
  };
}

/** Refuses a path that cannot be a Keyhold data directory before PGlite writes to it. */
function checkDataDir(dir: string): void {
  if (!existsSync(dir)) {
    mkdirSync(dir, { recursive: true });
    return;
  }
  if (!statSync(dir).isDirectory()) {
    throw new StoreOpenError('foreign', `data directory ${dir} is not a directory`);
  }
  const entries = readdirSync(dir).filter((name) => name !== LOCK_FILE);
  if (entries.length > 0 && !entries.includes('PG_VERSION')) {
    throw new StoreOpenError(
      'foreign',
      `${dir} is not a Keyhold data directory: it holds files but no database; ` +
        `choose an empty or new directory`,
    );
  }
}

/**
 * Opens a Store on embedded PGlite and applies pending migrations.
 * @example
 * const store = await createPgliteStore({ dataDir: './.keyhold/data' });
 * await store.transaction((tx) => tx.organizations.get(id));
 * await store.close();
 */
export async function createPgliteStore(options: PgliteStoreOptions = {}): Promise<SqlStore> {
  const schema = options.schema ?? DEFAULT_SCHEMA;
  quoteSchema(schema);
  if (options.pglite && options.dataDir !== undefined) {
    throw new TypeError('createPgliteStore takes a dataDir or a pglite instance, not both');
  }
  if (options.thread === 'worker') {
    if (options.pglite)
      throw new TypeError('a pglite instance of your own cannot move to a worker');
    return openInWorker(options.dataDir, schema, options.cache);
  }
  let db: PGlite;
  let release = async () => {};
  if (options.pglite) {
    db = options.pglite;
  } else if (options.dataDir === undefined) {
    db = await PGlite.create();
    release = () => db.close();
  } else {
    const dir = resolve(options.dataDir);
    checkDataDir(dir);
    const unlock = lockDataDir(dir);
    try {
      db = await PGlite.create(dir);
    } catch (error) {
      unlock();
      throw damaged(dir, error);
    }
    release = async () => {
      try {
        await db.close();
      } finally {
        unlock();
      }
    };
  }
  // A PGlite opened here is used by this store alone: its session keeps the schema's path.
  const owned = !options.pglite;
  if (owned) await db.exec(`SET search_path TO ${quoteSchema(schema)}`);
  return migratedStore(new PgliteDriver(db, schema, release, owned), schema, options.cache);
}

/** The store over `driver` once pending migrations ran; the driver closed if they failed. */
async function migratedStore(
  driver: SqlDriver,
  schema: string,
  cache: boolean | undefined,
): Promise<SqlStore> {
  try {
    await runMigrations(driver, { schema });
  } catch (error) {
    await driver.close().catch(() => {});
    throw error;
  }
  return new SqlStore(driver, { cache });
}

function damaged(dir: string, error: unknown): StoreOpenError {
  return new StoreOpenError(
    'corrupt',
    `data directory ${dir} could not be opened: it is damaged or was written by an ` +
      `incompatible PostgreSQL (${error instanceof Error ? error.message : String(error)}); ` +
      `restore it from a backup`,
    { cause: error },
  );
}

/** `createPgliteStore` with `thread: 'worker'`: the same checks and lock, PGlite elsewhere. */
async function openInWorker(
  dataDir: string | undefined,
  schema: string,
  cache: boolean | undefined,
): Promise<SqlStore> {
  const dir = dataDir === undefined ? undefined : resolve(dataDir);
  let unlock = () => {};
  if (dir !== undefined) {
    checkDataDir(dir);
    unlock = lockDataDir(dir);
  }
  let driver: PgliteWorkerDriver;
  try {
    driver = await PgliteWorkerDriver.open({
      ...(dir === undefined ? {} : { dataDir: dir }),
      schema,
      release: async () => unlock(),
    });
  } catch (error) {
    unlock();
    throw dir === undefined ? error : damaged(dir, error);
  }
  return migratedStore(driver, schema, cache);
}

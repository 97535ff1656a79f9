/**
 * The PGlite driver: Postgres embedded in the process (WebAssembly), in memory or in a data
 * directory. PGlite has one connection, so transactions run one at a time: PGlite's own
 * `transaction()` holds its transaction mutex from BEGIN to COMMIT/ROLLBACK, which also
 * serializes stores that share one PGlite instance.
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
import { PGlite, TransactionAbortedError as PgliteAbortedError } from '@electric-sql/pglite';
import { runMigrations } from './migrations.js';
import { queryPrepared } from './pglite-prepared.js';
import { PgliteWorkerDriver } from './pglite-worker-driver.js';
import { DEFAULT_SCHEMA, quoteSchema } from './schema.js';
import { type SqlClient, type SqlDriver, TransactionAbortedError } from './sql-client.js';
import { SqlStore } from './sql-store.js';
import { StoreOpenError } from './store-open-error.js';

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
    try {
      return await this.db.transaction(async (tx) => {
        if (this.searchPath) await tx.exec(this.searchPath);
        return work({
          query: async (text, params, fixed) =>
            fixed
              ? ((await queryPrepared(this.db, text, params)) as never)
              : ((await tx.query(text, params as unknown[] | undefined)).rows as never),
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

/**
 * The `pg` driver: a connection pool to a Postgres server. Each transaction checks out one
 * connection, runs BEGIN … COMMIT (READ COMMITTED: uniqueness is enforced by constraints)
 * and gives the connection back. Several Keyhold instances can share one database.
 *
 * On a pool of its own the driver sets each connection's search_path and statement timeout
 * once, for the session, and sends BEGIN only at a transaction's first write (see
 * deferred-begin.ts): plain reads before it run on their own, and a last write with nothing
 * written before it commits on its own. On a pool it is given, whose sessions others use too,
 * every transaction starts with BEGIN and `SET LOCAL`s, as before.
 * @module
 */
import { StoreUnavailableError } from '@keyhold/activities';
import pg from 'pg';
import { type DeferredState, needsBegin } from './deferred-begin.js';
import { runMigrations } from './migrations.js';
import { stalePreparedStatement, statementName } from './prepared-statements.js';
import { DEFAULT_SCHEMA, quoteSchema } from './schema.js';
import {
  asUnavailable,
  type GroupedWrite,
  type Row,
  type SqlClient,
  type SqlDriver,
  TransactionAbortedError,
  type WriteGroup,
} from './sql-client.js';
import { SqlStore } from './sql-store.js';
import { StoreOpenError } from './store-open-error.js';

/**
 * The default bound on one statement: a request never waits on the database (a lock held by a
 * stuck transaction, a runaway plan) longer than this; it gets 503 UNAVAILABLE and may retry.
 */
export const DEFAULT_STATEMENT_TIMEOUT_MS = 30_000;

function assertStatementTimeout(ms: number): void {
  if (!Number.isSafeInteger(ms) || ms < 0) {
    throw new TypeError('statementTimeoutMs must be a non-negative integer (0: no limit)');
  }
}

/** The most writes of a group sent in one statement; more wait for the next. */
const MOST_GROUPED = 64;

/** A grouped write waiting for its key's statement in flight: it goes in the next one. */
interface WaitingWrite extends GroupedWrite {
  /** Its transaction's connection (a group's statement runs on its first write's). */
  readonly connection: pg.PoolClient;
  resolve(rows: Row[]): void;
  reject(error: unknown): void;
}

export class PgDriver implements SqlDriver {
  readonly kind = 'pg';
  /** The writes the store lets go together, if it said (`groupWrites`). */
  private group: WriteGroup | undefined;
  /** Per key with a statement in flight: the writes waiting for it to end. */
  private readonly waiting = new Map<string, WaitingWrite[]>();
  /** Statements that carried several writes of a group, and the writes they carried. */
  readonly grouped = { statements: 0, writes: 0 };
  private readonly begin: string;
  /** Session settings of a connection of the driver's own pool (sent once per connection). */
  private readonly session: string;
  /** Connections of the driver's own pool whose session is set. */
  private readonly sessionsSet = new WeakSet<pg.PoolClient>();

  /**
   * @param pool the pool to draw connections from
   * @param schema the schema the store's tables live in
   * @param ownsPool end the pool on close (true when the driver created it)
   * @param statementTimeoutMs the longest any one statement may run (0: no limit)
   */
  constructor(
    private readonly pool: pg.Pool,
    schema: string = DEFAULT_SCHEMA,
    private readonly ownsPool = false,
    statementTimeoutMs = DEFAULT_STATEMENT_TIMEOUT_MS,
  ) {
    assertStatementTimeout(statementTimeoutMs);
    // One round trip: a simple-protocol query may hold several statements.
    this.begin =
      `BEGIN; SET LOCAL search_path TO ${quoteSchema(schema)}; ` +
      `SET LOCAL statement_timeout = ${statementTimeoutMs}`;
    this.session =
      `SET search_path TO ${quoteSchema(schema)}; ` +
      `SET statement_timeout = ${statementTimeoutMs}`;
  }

  /**
   * A connection that cannot be had (refused, unreachable, pool wait over
   * `connectionTimeoutMillis`) or that breaks during the transaction is a
   * StoreUnavailableError; so is a lost COMMIT, whose outcome the client cannot know — a
   * retry of the same request body is safe, because one body is one activity.
   */
  async transaction<T>(work: (client: SqlClient) => Promise<T>): Promise<T> {
    let connection: pg.PoolClient;
    try {
      connection = await this.pool.connect();
    } catch (error) {
      throw asUnavailable(error);
    }
    // A checked-out client whose socket dies emits 'error'; unheard, that event would crash
    // the process. The failing query rejects with the same error, which is what we act on.
    let lost: Error | undefined;
    const onError = (error: Error) => {
      lost ??= error;
    };
    connection.on('error', onError);
    // A connection whose state is unknown (ROLLBACK failed) is destroyed, not reused.
    let broken: Error | undefined;
    let state: DeferredState = this.ownsPool ? 'not begun' : 'begun';
    try {
      if (!this.ownsPool) {
        await connection.query(this.begin);
      } else if (!this.sessionsSet.has(connection)) {
        await connection.query(this.session);
        this.sessionsSet.add(connection);
      }
      const open = async () => {
        state = 'begun';
        await connection.query('BEGIN');
      };
      const result = await work({
        // A fixed statement is parsed and planned once per connection (pg remembers which
        // names it prepared there). Postgres re-parses it itself when the search_path resolves
        // differently than when it was prepared (another schema's store on this connection).
        query: async (text, params, fixed, last) => {
          if (needsBegin(state, text, fixed, last)) await open();
          // A last write alone, of the store's group: it may go with others of its key.
          if (state === 'not begun' && last && this.group?.texts.has(text)) {
            return this.sendGrouped(connection, { text, params: params ?? [] });
          }
          return fixed
            ? queryPrepared(connection, text, params)
            : (await connection.query(text, params as unknown[] | undefined)).rows;
        },
        exec: async (script) => {
          if (state === 'not begun') await open();
          await connection.query(script);
        },
      });
      // Nothing was written, or the one write committed as it ran: nothing to commit.
      if (state === 'not begun') return result;
      const commit = await connection.query('COMMIT');
      // COMMIT of a transaction in which a statement failed is answered with ROLLBACK.
      if (commit.command === 'ROLLBACK') throw new TransactionAbortedError();
      return result;
    } catch (error) {
      if (stalePreparedStatement(error)) {
        // Its prepared statements outlived a schema change: a fresh connection prepares anew,
        // and the request may be retried (503).
        broken = error as Error;
        const unavailable = new StoreUnavailableError(
          'prepared statements outdated by a migration',
        );
        unavailable.cause = error;
        throw unavailable;
      }
      if (!lost && state === 'begun') {
        try {
          await connection.query('ROLLBACK');
        } catch (rollbackError) {
          broken =
            rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
        }
      }
      throw asUnavailable(error);
    } finally {
      connection.off('error', onError);
      connection.release(lost ?? broken);
    }
  }

  groupWrites(group: WriteGroup): void {
    this.group = group;
  }

  /**
   * A write of the group, run alone. With none of its key in flight it goes now, by itself (no
   * wait when there is no contention); otherwise it waits, and the writes that waited go
   * together once the one in flight ends: on one database row lock (the audit chain's head)
   * writes would queue anyway, each with a commit of its own.
   */
  private sendGrouped(connection: pg.PoolClient, write: GroupedWrite): Promise<Row[]> {
    const key = this.group!.key(write);
    const waiting = this.waiting.get(key);
    if (waiting) {
      return new Promise((resolve, reject) =>
        waiting.push({ ...write, connection, resolve, reject }),
      );
    }
    this.waiting.set(key, []);
    return queryPrepared(connection, write.text, write.params).finally(() => this.sendWaiting(key));
  }

  /** Sends the writes that waited for `key`'s statement, or ends the key's turn. */
  private sendWaiting(key: string): void {
    const waiting = this.waiting.get(key)!;
    if (waiting.length === 0) {
      this.waiting.delete(key);
      return;
    }
    const writes = waiting.splice(0, MOST_GROUPED);
    void this.sendTogether(writes).finally(() => this.sendWaiting(key));
  }

  /**
   * Several writes in one statement, on the first one's connection. It is one statement: if it
   * fails, none was written, and each runs alone on its own connection, as it would have.
   */
  private async sendTogether(writes: WaitingWrite[]): Promise<void> {
    if (writes.length > 1) {
      try {
        const combined = this.group!.combine(writes);
        const rows = await queryPrepared(writes[0]!.connection, combined.text, combined.params);
        const each = combined.rowsOf(rows);
        this.grouped.statements++;
        this.grouped.writes += writes.length;
        for (const [i, write] of writes.entries()) write.resolve(each[i]!);
        return;
      } catch (error) {
        // Written alone below; a failure that is theirs reaches each write's transaction. A
        // statement a migration outdated fails its connection's transaction, which then
        // discards the connection (see transaction()), as it would for any statement.
        if (stalePreparedStatement(error)) {
          writes.shift()!.reject(error);
        }
      }
    }
    await Promise.all(
      writes.map((write) =>
        queryPrepared(write.connection, write.text, write.params).then(write.resolve, write.reject),
      ),
    );
  }

  async close(): Promise<void> {
    if (this.ownsPool) await this.pool.end();
  }
}

/**
 * A fixed statement as a named prepared statement: parsed and planned once per connection (pg
 * remembers which names it prepared there).
 */
async function queryPrepared(
  connection: pg.PoolClient,
  text: string,
  params: readonly unknown[] | undefined,
): Promise<Row[]> {
  const { rows } = await connection.query({
    name: statementName(text),
    text,
    values: params as unknown[] | undefined,
  });
  return rows;
}

export interface PostgresStoreOptions {
  /** `postgres://user:password@host:port/database`; or pass `pool`. */
  connectionString?: string;
  /** A pool of your own; the store never ends it. */
  pool?: pg.Pool;
  /** The schema for Keyhold's tables (created if missing). Default `public`. */
  schema?: string;
  /**
   * Keep what requests read over and over while their organization's generation stands (see
   * generation-cache.ts; each instance keeps its own, a change by any moves the generation).
   * Default true; false sends every read to the database.
   */
  cache?: boolean;
  /** Options for the pool the store creates from `connectionString`. */
  poolOptions?: Omit<pg.PoolConfig, 'connectionString'>;
  /**
   * The longest one statement may run, lock waits included; past it Postgres cancels the
   * statement and the request answers 503 UNAVAILABLE (retryable). Migrations are exempt.
   * Default 30 000 ms (`DEFAULT_STATEMENT_TIMEOUT_MS`); 0 disables the limit.
   */
  statementTimeoutMs?: number;
}

/** Connection errors that mean "the server is not there" rather than "it refused us". */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
]);

/** Why a connection failed, if the reason is that the server is not there. */
function unreachable(error: unknown): string | undefined {
  if (error instanceof StoreOpenError || typeof error !== 'object' || error === null) return;
  // The driver reports connection failures as StoreUnavailableError; the cause says why.
  if (StoreUnavailableError.is(error)) return unreachable(error.cause) ?? error.message;
  const { code, errors, message } = error as {
    code?: unknown;
    errors?: { code?: unknown }[];
    message?: unknown;
  };
  // Node reports a failed dual-stack connect as an AggregateError of the attempts.
  for (const c of [code, ...(errors ?? []).map((e) => e.code)]) {
    if (typeof c === 'string' && UNREACHABLE.has(c)) return c;
  }
  // pg's connectionTimeoutMillis.
  if (typeof message === 'string' && /timeout/i.test(message)) return message;
  return undefined;
}

function describeTarget(options: PostgresStoreOptions): string {
  if (!options.connectionString) return 'the configured Postgres pool';
  try {
    const url = new URL(options.connectionString);
    // Never echo credentials.
    return `Postgres at ${url.hostname}:${url.port || '5432'}${url.pathname}`;
  } catch {
    return 'Postgres';
  }
}

/**
 * Opens a Store on a Postgres server and applies pending migrations.
 * @example
 * const store = await createPostgresStore({ connectionString: 'postgres://postgres@127.0.0.1/keyhold' });
 * await store.transaction((tx) => tx.organizations.get(id));
 * await store.close();
 */
export async function createPostgresStore(options: PostgresStoreOptions): Promise<SqlStore> {
  const schema = options.schema ?? DEFAULT_SCHEMA;
  quoteSchema(schema);
  if (!options.pool && !options.connectionString) {
    throw new TypeError('createPostgresStore needs a connectionString or a pool');
  }
  const statementTimeoutMs = options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS;
  assertStatementTimeout(statementTimeoutMs); // before a pool exists that would need ending
  const owns = !options.pool;
  const pool =
    options.pool ??
    new pg.Pool({
      // Never wait forever for a connection: a dead server must surface as an error.
      connectionTimeoutMillis: 10_000,
      ...options.poolOptions,
      connectionString: options.connectionString,
    });
  // An idle connection that dies (server restart) must not crash the process; the next
  // checkout opens a fresh one.
  if (owns) pool.on('error', () => {});
  const driver = new PgDriver(pool, schema, owns, statementTimeoutMs);
  try {
    await runMigrations(driver, { schema });
  } catch (error) {
    await driver.close().catch(() => {});
    const why = unreachable(error);
    if (why) {
      throw new StoreOpenError('unreachable', `cannot reach ${describeTarget(options)} (${why})`, {
        cause: error,
      });
    }
    throw error;
  }
  return new SqlStore(driver, { cache: options.cache });
}

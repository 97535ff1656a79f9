/**
 * A database that is down, unreachable or drops the connection is the port's
 * StoreUnavailableError (which the server answers with 503 UNAVAILABLE), never a raw driver
 * error (which would be a 500) and never a hang. First the classification itself, then the
 * pg driver against servers that refuse, never answer, run out of connections or terminate
 * a connection in the middle of a transaction.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { StoreConflictError, StoreUnavailableError } from '@keyhold/activities';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresStore, PgDriver } from './pg-driver.js';
import { translateDatabaseError, unavailableReason } from './sql-client.js';
import { SqlStore } from './sql-store.js';
import { organization } from './testing/records.js';
import { dropSchemas, POSTGRES_URL, postgresReachable, testSchema } from './testing/targets.js';

const withPostgres = await postgresReachable();

/** An error as `pg` or Node builds it: a message plus own fields. */
const errorWith = (message: string, fields: Record<string, unknown> = {}): Error =>
  Object.assign(new Error(message), fields);

describe('which errors mean "the database is unavailable"', () => {
  const unavailable: [string, unknown][] = [
    ['ECONNREFUSED', errorWith('connect ECONNREFUSED 127.0.0.1:5432', { code: 'ECONNREFUSED' })],
    ['ECONNRESET', errorWith('read ECONNRESET', { code: 'ECONNRESET' })],
    ['ETIMEDOUT', errorWith('connect ETIMEDOUT', { code: 'ETIMEDOUT' })],
    ['EPIPE', errorWith('write EPIPE', { code: 'EPIPE' })],
    ['EHOSTUNREACH', errorWith('connect EHOSTUNREACH', { code: 'EHOSTUNREACH' })],
    ['ENOTFOUND', errorWith('getaddrinfo ENOTFOUND db', { code: 'ENOTFOUND' })],
    [
      'a failed dual-stack connect (AggregateError)',
      Object.assign(new AggregateError([errorWith('x', { code: 'ECONNREFUSED' })], ''), {
        code: 'ECONNREFUSED',
      }),
    ],
    [
      'an AggregateError without a code of its own',
      new AggregateError([errorWith('x', { code: 'ENETUNREACH' })], ''),
    ],
    ['Connection terminated unexpectedly', new Error('Connection terminated unexpectedly')],
    ['Connection terminated', new Error('Connection terminated')],
    [
      "pg's connect timeout",
      new Error('Connection terminated due to connection timeout', {
        cause: new Error('Connection terminated unexpectedly'),
      }),
    ],
    ["pg-pool's checkout timeout", new Error('timeout exceeded when trying to connect')],
    [
      'a client whose socket died',
      new Error('Client has encountered a connection error and is not queryable'),
    ],
    ['SQLSTATE 08006 connection_failure', errorWith('connection failure', { code: '08006' })],
    ['SQLSTATE 08001 (class 08)', errorWith('could not connect', { code: '08001' })],
    ['SQLSTATE 08P01 (class 08)', errorWith('protocol violation', { code: '08P01' })],
    ['SQLSTATE 57P01 admin_shutdown', errorWith('terminating connection', { code: '57P01' })],
    ['SQLSTATE 57P02 crash_shutdown', errorWith('crash shutdown', { code: '57P02' })],
    ['SQLSTATE 57P03 cannot_connect_now', errorWith('starting up', { code: '57P03' })],
    ['SQLSTATE 53300 too_many_connections', errorWith('too many clients', { code: '53300' })],
    [
      'SQLSTATE 57014, a statement cancelled by statement_timeout (retryable)',
      errorWith('canceling statement due to statement timeout', { code: '57014' }),
    ],
    [
      'a connection error as the cause of another',
      new Error('wrapped', { cause: errorWith('x', { code: 'ECONNRESET' }) }),
    ],
  ];
  const notUnavailable: [string, unknown][] = [
    ['a unique violation', errorWith('duplicate key', { code: '23505', constraint: 'x' })],
    ['an undefined table', errorWith('relation does not exist', { code: '42P01' })],
    ['a syntax error', errorWith('syntax error', { code: '42601' })],
    ['a serialization failure', errorWith('could not serialize', { code: '40001' })],
    ['a plain error', new Error('boom')],
    ['an error whose message only mentions a timeout', new Error('handler timeout')],
    ['not an error', 'ECONNREFUSED'],
    ['null', null],
  ];

  for (const [name, error] of unavailable) {
    it(`unavailable: ${name}`, () => {
      expect(unavailableReason(error)).toBeTypeOf('string');
      const translated = translateDatabaseError(error);
      expect(translated).toBeInstanceOf(StoreUnavailableError);
      expect((translated as Error).cause).toBe(error);
    });
  }
  for (const [name, error] of notUnavailable) {
    it(`not unavailable: ${name}`, () => {
      expect(unavailableReason(error)).toBeUndefined();
      expect(translateDatabaseError(error)).not.toBeInstanceOf(StoreUnavailableError);
    });
  }

  it('a unique violation is still a conflict, and StoreUnavailableError stays itself', () => {
    const conflict = translateDatabaseError(
      errorWith('duplicate key', { code: '23505', constraint: 'activities_fingerprint_key' }),
    );
    expect(conflict).toBeInstanceOf(StoreConflictError);
    const already = new StoreUnavailableError('x');
    expect(translateDatabaseError(already)).toBe(already);
  });
});

/** A TCP server on 127.0.0.1 that accepts connections and never answers. */
async function silentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A SqlStore over a pool of its own, without migrations (for servers that never answer). */
const storeOver = (config: pg.PoolConfig) => {
  const pool = new pg.Pool(config);
  pool.on('error', () => {});
  return new SqlStore(new PgDriver(pool, 'public', true));
};

describe('the pg driver when the database cannot be had', () => {
  it('a refused connection: transaction and ping reject with StoreUnavailableError at once', async () => {
    // Port 1 on loopback: nothing listens there.
    const store = storeOver({ connectionString: 'postgres://keyhold:s3cret@127.0.0.1:1/keyhold' });
    const started = Date.now();
    const error = await store.transaction((tx) => tx.organizations.get('x')).catch((e) => e);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as Error).message).toContain('ECONNREFUSED');
    expect((error as Error).message).not.toContain('s3cret');
    await expect(store.ping()).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(Date.now() - started).toBeLessThan(3000);
    await store.close();
  });

  it('a server that accepts but never answers: unavailable after connectionTimeoutMillis', async () => {
    const silent = await silentServer();
    try {
      const store = storeOver({
        connectionString: `postgres://keyhold@127.0.0.1:${silent.port}/keyhold`,
        connectionTimeoutMillis: 300,
      });
      const started = Date.now();
      const error = await store.transaction((tx) => tx.organizations.get('x')).catch((e) => e);
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect((error as Error).message).toMatch(/timeout/);
      await expect(store.ping()).rejects.toBeInstanceOf(StoreUnavailableError);
      expect(Date.now() - started).toBeLessThan(3000);
      await store.close();
    } finally {
      await silent.close();
    }
  });

  it('opening a store on a server that never answers is StoreOpenError unreachable', async () => {
    const silent = await silentServer();
    try {
      const error = await createPostgresStore({
        connectionString: `postgres://keyhold:s3cret@127.0.0.1:${silent.port}/keyhold`,
        poolOptions: { connectionTimeoutMillis: 300 },
      }).catch((e: unknown) => e);
      expect(error).toMatchObject({ name: 'StoreOpenError', reason: 'unreachable' });
      expect((error as Error).message).not.toContain('s3cret');
    } finally {
      await silent.close();
    }
  });
});

describe.skipIf(!withPostgres)('the pg driver when Postgres drops or withholds connections', () => {
  const schema = testSchema('unavailable');
  const applicationName = `keyhold_unavailable_${process.pid}`;
  let admin: pg.Client;
  let pool: pg.Pool;
  let store: SqlStore;

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: POSTGRES_URL });
    await admin.connect();
    pool = new pg.Pool({
      connectionString: POSTGRES_URL,
      application_name: applicationName,
      max: 1,
      connectionTimeoutMillis: 300,
    });
    pool.on('error', () => {});
    store = await createPostgresStore({ pool, schema });
  });
  afterAll(async () => {
    await store?.close();
    await pool?.end();
    await admin?.end();
    await dropSchemas([schema]);
  });

  const terminateStoreConnections = () =>
    admin.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1',
      [applicationName],
    );

  it('a connection terminated mid-transaction (57P01): unavailable, nothing written, and the next transaction works', async () => {
    const org = organization();
    const error = await store
      .transaction(async (tx) => {
        await tx.organizations.insert(org);
        await terminateStoreConnections();
        await tx.organizations.get(org.organizationId);
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    // The process did not crash on the client's 'error' event, and the dead connection was
    // not given back to the pool: the next transaction gets a fresh one.
    expect(
      await store.transaction((tx) => tx.organizations.get(org.organizationId)),
    ).toBeUndefined();
    await store.transaction((tx) => tx.organizations.insert(org));
    expect(await store.transaction((tx) => tx.organizations.get(org.organizationId))).toEqual(org);
  });

  it('an idle pooled connection that was terminated does not fail the next transaction for long', async () => {
    await store.ping();
    await terminateStoreConnections();
    // The pool notices the idle client's error and drops it; until then a checkout may get
    // the dead client, which is unavailable (retryable), never anything else.
    const deadline = Date.now() + 5000;
    for (;;) {
      const outcome = await store.ping().then(
        () => 'ok',
        (e: unknown) => e,
      );
      if (outcome === 'ok') break;
      expect(outcome).toBeInstanceOf(StoreUnavailableError);
      expect(Date.now()).toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  });

  it('an exhausted pool: a checkout that waits past connectionTimeoutMillis is unavailable', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    // max 1: this transaction holds the only connection.
    const holder = store.transaction(async (tx) => {
      await tx.organizations.get('x');
      await held;
    });
    const started = Date.now();
    const error = await store.transaction((tx) => tx.organizations.get('y')).catch((e) => e);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as Error).message).toContain('timeout exceeded when trying to connect');
    expect(Date.now() - started).toBeLessThan(2000);
    release();
    await holder;
  });
});

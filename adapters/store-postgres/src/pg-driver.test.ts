/**
 * Postgres only: racing transactions and instances, migrations under concurrency, an
 * unreachable server, and the life cycle of pools and stores.
 */
import type { Store } from '@keyhold/activities';
import { StoreConflictError, StoreUnavailableError } from '@keyhold/activities';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresStore } from './pg-driver.js';
import type { SqlStore } from './sql-store.js';
import { StoreOpenError } from './store-open-error.js';
import { activity, fresh, organization } from './testing/records.js';
import { dropSchemas, POSTGRES_URL, postgresReachable, testSchema } from './testing/targets.js';

const withPostgres = await postgresReachable();

describe.skipIf(!withPostgres)('Postgres', () => {
  const schemas: string[] = [];
  const stores: Store[] = [];
  let admin: pg.Client;

  /** A store (one more "instance") on a schema; closed after the file. */
  async function open(schema: string): Promise<SqlStore> {
    if (!schemas.includes(schema)) schemas.push(schema);
    const store = await createPostgresStore({ connectionString: POSTGRES_URL, schema });
    stores.push(store);
    return store;
  }

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: POSTGRES_URL });
    await admin.connect();
  });
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    await admin.end();
    await dropSchemas(schemas);
  });

  it('two transactions racing on one fingerprint: one commits, the other conflicts', async () => {
    const schema = testSchema('race');
    const [one, two] = [await open(schema), await open(schema)];
    const org = fresh('org');
    const fingerprint = `sha256:${fresh('race')}`;
    const first = activity(org, { fingerprint });
    const second = activity(org, { fingerprint });

    let firstInserted!: () => void;
    const inserted = new Promise<void>((resolve) => {
      firstInserted = resolve;
    });
    // The first transaction inserts, then holds its transaction open until the second is
    // seen waiting on the unique index; only then does it commit.
    const a = one.transaction(async (tx) => {
      await tx.activities.insert(first);
      firstInserted();
      for (let i = 0; i < 200; i++) {
        const { rows } = await admin.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE wait_event_type = 'Lock' AND query LIKE 'INSERT INTO activities%'`,
        );
        if (rows[0].n > 0) return 'committed';
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      throw new Error('the second transaction never waited for the first');
    });
    await inserted;
    const b = two
      .transaction((tx) => tx.activities.insert(second))
      .then(
        () => 'committed',
        (e: unknown) => e,
      );
    expect(await a).toBe('committed');
    const lost = await b;
    expect(lost).toBeInstanceOf(StoreConflictError);
    expect((lost as StoreConflictError).constraint).toBe('activity_fingerprint');
    const found = await two.transaction((tx) => tx.activities.findByFingerprint(fingerprint));
    expect(found).toEqual(first);
  });

  it('many instances submitting one body at once store exactly one activity', async () => {
    const schema = testSchema('burst');
    const instances = await Promise.all([open(schema), open(schema), open(schema)]);
    const org = fresh('org');
    const fingerprint = `sha256:${fresh('burst')}`;
    const outcomes = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        instances[i % instances.length]!.transaction((tx) =>
          tx.activities.insert(activity(org, { fingerprint })),
        ).then(
          () => 'ok',
          (e: unknown) => (e instanceof StoreConflictError ? e.constraint : e),
        ),
      ),
    );
    expect(outcomes.filter((o) => o === 'ok')).toHaveLength(1);
    expect(outcomes.filter((o) => o === 'activity_fingerprint')).toHaveLength(11);
    const listed = await instances[2]!.transaction((tx) =>
      tx.activities.list(org, {}, { limit: 100 }),
    );
    expect(listed).toHaveLength(1);
  });

  it('what one instance commits, another reads', async () => {
    const schema = testSchema('shared');
    const [writer, reader] = [await open(schema), await open(schema)];
    const org = organization();
    await writer.transaction((tx) => tx.organizations.insert(org));
    expect(await reader.transaction((tx) => tx.organizations.get(org.organizationId))).toEqual(org);
  });

  it('instances starting together migrate once', async () => {
    const schema = testSchema('boot');
    await Promise.all([open(schema), open(schema), open(schema), open(schema)]);
    const { rows } = await admin.query(`SELECT version FROM "${schema}".keyhold_migrations`);
    expect(rows).toEqual([
      { version: 1 },
      { version: 2 },
      { version: 3 },
      { version: 4 },
      { version: 5 },
      { version: 6 },
      { version: 7 },
      { version: 8 },
      { version: 9 },
      { version: 10 },
      { version: 11 },
      { version: 12 },
      { version: 13 },
      { version: 14 },
      { version: 15 },
      { version: 16 },
      { version: 17 },
      { version: 18 },
      { version: 19 },
      { version: 20 },
      { version: 22 },
      { version: 23 },
      { version: 24 },
    ]);
  });

  it('a statement past statementTimeoutMs is cancelled as unavailable; the store goes on', async () => {
    const schema = testSchema('timeout');
    schemas.push(schema);
    const store = await createPostgresStore({
      connectionString: POSTGRES_URL,
      schema,
      statementTimeoutMs: 300,
    });
    stores.push(store);
    const org = fresh('org');
    const held = activity(org);
    await store.transaction((tx) => tx.activities.insert(held));
    // Another session holds the row lock, as a stuck transaction would.
    await admin.query('BEGIN');
    await admin.query(
      `SELECT 1 FROM ${schema}.activities WHERE organization_id = $1 AND id = $2 FOR UPDATE`,
      [org, held.id],
    );
    try {
      const started = Date.now();
      const waiting = store.transaction((tx) => tx.activities.getForUpdate(org, held.id));
      await expect(waiting).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(waiting).rejects.toThrow(/57014/);
      expect(Date.now() - started).toBeLessThan(10_000); // not the 30 s default, not forever
    } finally {
      await admin.query('ROLLBACK');
    }
    const found = await store.transaction((tx) => tx.activities.getForUpdate(org, held.id));
    expect(found?.id).toBe(held.id);
  });

  it('refuses a negative or fractional statement timeout', async () => {
    await expect(
      createPostgresStore({ connectionString: POSTGRES_URL, statementTimeoutMs: -1 }),
    ).rejects.toThrow(/statementTimeoutMs/);
  });

  it('an unreachable server is an immediate, clear error without credentials', async () => {
    const started = Date.now();
    const error = await createPostgresStore({
      connectionString: 'postgres://keyhold:s3cret@127.0.0.1:1/keyhold',
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreOpenError);
    expect((error as StoreOpenError).reason).toBe('unreachable');
    expect((error as Error).message).toContain('127.0.0.1:1');
    expect((error as Error).message).not.toContain('s3cret');
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('never ends a pool it was given; close waits for running transactions', async () => {
    const schema = testSchema('pool');
    schemas.push(schema);
    const pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 2 });
    const store = await createPostgresStore({ pool, schema });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const org = organization();
    const running = store.transaction(async (tx) => {
      await gate;
      await tx.organizations.insert(org);
      return 'done';
    });
    const closing = store.close();
    await expect(store.transaction(async () => 'late')).rejects.toThrow(/store is closed/);
    release();
    expect(await running).toBe('done');
    await closing;
    // The pool still works, and the running transaction committed.
    const { rows } = await pool.query(
      `SELECT organization_id FROM "${schema}".organizations WHERE organization_id = $1`,
      [org.organizationId],
    );
    expect(rows).toHaveLength(1);
    await pool.end();
  });
});

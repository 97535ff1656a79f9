/**
 * Postgres only: the store's fixed statements are named prepared statements, parsed once per
 * connection; on one connection shared by stores of two schemas each still reads its own
 * tables; and a connection whose statements a migration outdated is dropped, not reused.
 */
import { StoreUnavailableError } from '@keyhold/activities';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createPostgresStore } from './pg-driver.js';
import { statementName } from './prepared-statements.js';
import { organization } from './testing/records.js';
import { expectSchemasApart } from './testing/schemas-apart.js';
import { dropSchemas, POSTGRES_URL, postgresReachable, testSchema } from './testing/targets.js';

const withPostgres = await postgresReachable();

describe.skipIf(!withPostgres)('named prepared statements on Postgres', () => {
  const schemas: string[] = [];
  const pools: pg.Pool[] = [];
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.end()));
    await dropSchemas(schemas);
  });

  /** A pool of one connection, so every store on it shares that connection's statements. */
  function onePool(): pg.Pool {
    const pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 1 });
    pools.push(pool);
    return pool;
  }

  it('one connection, two schemas: each store reads its own rows through the same statement', async () => {
    const pool = onePool();
    const [a, b] = [testSchema('prep_a'), testSchema('prep_b')];
    schemas.push(a, b);
    const storeA = await createPostgresStore({ pool, schema: a });
    const storeB = await createPostgresStore({ pool, schema: b });
    await expectSchemasApart(storeA, storeB);
    // The lookup ran as one named statement on the connection, prepared once.
    const { rows } = await pool.query(
      `SELECT name, statement FROM pg_prepared_statements WHERE name LIKE 'kh\\_%'`,
    );
    const byKey = rows.filter((r) =>
      /FROM organizations WHERE organization_id = \$1$/.test(r.statement),
    );
    expect(byKey).toHaveLength(1);
    expect(byKey[0].name).toBe(statementName(byKey[0].statement));
  });

  it('statements a migration outdated: that transaction is unavailable (503), the next one works', async () => {
    const pool = onePool();
    const schema = testSchema('prep_stale');
    schemas.push(schema);
    const store = await createPostgresStore({ pool, schema });
    const org = organization();
    await store.transaction((tx) => tx.organizations.insert(org));
    expect(await store.transaction((tx) => tx.organizations.get(org.organizationId))).toEqual(org);
    // Another instance's migration adds a column to the table a prepared `SELECT *` reads.
    const admin = new pg.Client({ connectionString: POSTGRES_URL });
    await admin.connect();
    try {
      await admin.query(`ALTER TABLE "${schema}".organizations ADD COLUMN later text`);
    } finally {
      await admin.end();
    }
    const stale = await store
      .transaction((tx) => tx.organizations.get(org.organizationId))
      .catch((e: unknown) => e);
    expect(StoreUnavailableError.is(stale)).toBe(true);
    // The connection was dropped; a fresh one prepares the statement anew.
    expect(await store.transaction((tx) => tx.organizations.get(org.organizationId))).toEqual(org);
  });
});

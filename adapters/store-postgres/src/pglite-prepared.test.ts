/**
 * PGlite: the store's fixed statements as named prepared statements through the wire
 * protocol — rows typed as PGlite's `query` types them, one session shared by stores of two
 * schemas, statements a schema change outdated, and a statement that fails.
 */
import { PGlite } from '@electric-sql/pglite';
import { StoreUnavailableError } from '@keyhold/activities';
import { afterAll, describe, expect, it } from 'vitest';
import { createPgliteStore } from './pglite-driver.js';
import { queryPrepared } from './pglite-prepared.js';
import { statementName } from './prepared-statements.js';
import { organization } from './testing/records.js';
import { expectSchemasApart } from './testing/schemas-apart.js';

describe('named prepared statements on PGlite', () => {
  const open: PGlite[] = [];
  afterAll(async () => {
    await Promise.all(open.map((db) => db.close()));
  });
  async function pglite(): Promise<PGlite> {
    const db = await PGlite.create();
    open.push(db);
    return db;
  }

  it('rows and parameters typed as PGlite query types them', async () => {
    const db = await pglite();
    await db.exec(`CREATE TABLE typed (id text PRIMARY KEY, n bigint, i integer, b boolean,
      j jsonb, tags text[], f double precision, t timestamptz)`);
    const insert = 'INSERT INTO typed VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *';
    const rows = [
      [
        'a',
        9007199254740993n,
        7,
        true,
        JSON.stringify({ x: [1, 'two'] }),
        ['p', 'q'],
        1.5,
        new Date(0),
      ],
      ['b', null, null, false, null, [], null, null],
    ];
    await db.transaction(async () => {
      for (const row of rows) await queryPrepared(db, insert, row);
    });
    const select = 'SELECT * FROM typed WHERE id = ANY($1::text[]) ORDER BY id';
    const prepared = await db.transaction(() => queryPrepared(db, select, [['a', 'b']]));
    const plain = (await db.query(select, [['a', 'b']])).rows;
    expect(prepared).toEqual(plain);
    expect(prepared[0]).toMatchObject({ id: 'a', i: 7, b: true, j: { x: [1, 'two'] } });
    // Prepared once, used three times.
    const { rows: statements } = await db.query<{ name: string }>(
      'SELECT name FROM pg_prepared_statements',
    );
    expect(statements.map((s) => s.name).sort()).toEqual(
      [statementName(insert), statementName(select)].sort(),
    );
  });

  it('one PGlite, two schemas: each store reads its own rows through the same statement', async () => {
    const db = await pglite();
    const storeA = await createPgliteStore({ pglite: db, schema: 'prep_a' });
    const storeB = await createPgliteStore({ pglite: db, schema: 'prep_b' });
    await expectSchemasApart(storeA, storeB);
    const { rows } = await db.query<{ statement: string }>(
      `SELECT statement FROM pg_prepared_statements`,
    );
    expect(
      rows.filter((r) => /FROM organizations WHERE organization_id = \$1$/.test(r.statement)),
    ).toHaveLength(1);
  });

  it('statements a schema change outdated: that transaction is unavailable, the next one works', async () => {
    const db = await pglite();
    const store = await createPgliteStore({ pglite: db, schema: 'prep_stale' });
    const org = organization();
    await store.transaction((tx) => tx.organizations.insert(org));
    expect(await store.transaction((tx) => tx.organizations.get(org.organizationId))).toEqual(org);
    await db.exec('ALTER TABLE prep_stale.organizations ADD COLUMN later text');
    const stale = await store
      .transaction((tx) => tx.organizations.get(org.organizationId))
      .catch((e: unknown) => e);
    expect(StoreUnavailableError.is(stale)).toBe(true);
    expect(await store.transaction((tx) => tx.organizations.get(org.organizationId))).toEqual(org);
  });

  it('a statement that fails aborts its transaction only; the statement stays usable', async () => {
    const db = await pglite();
    await db.exec('CREATE TABLE n (v integer)');
    const insert = 'INSERT INTO n VALUES ($1) RETURNING v';
    const failed = await db
      .transaction(() => queryPrepared(db, insert, ['not a number']))
      .catch((e: unknown) => e);
    expect((failed as { code?: string }).code).toBe('22P02');
    expect(await db.transaction(() => queryPrepared(db, insert, [3]))).toEqual([{ v: 3 }]);
    const broken = await db
      .transaction(() => queryPrepared(db, 'SELECT * FROM missing WHERE v = $1', [1]))
      .catch((e: unknown) => e);
    expect((broken as { code?: string }).code).toBe('42P01');
    expect((await db.query('SELECT v FROM n')).rows).toEqual([{ v: 3 }]);
  });
});

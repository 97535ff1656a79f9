/**
 * The migrations agree with the table specs (@keyhold/store-tables) the SQL store builds its
 * statements from: every column a spec names exists, the tables with a creation time have a
 * `seq`, and every unique constraint a spec names exists on its table, over exactly the
 * columns of its fields (a conflict on it is reported under the spec's port name).
 */
import { PGlite } from '@electric-sql/pglite';
import { storeTableList, uniqueConstraints } from '@keyhold/store-tables';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgliteStore } from './pglite-driver.js';
import type { SqlStore } from './sql-store.js';

const pglite = new PGlite();
let store: SqlStore;
beforeAll(async () => {
  store = await createPgliteStore({ pglite }); // migrates the database
});
afterAll(async () => {
  await store.close();
  await pglite.close();
});

const query = async (text: string, params: unknown[]) =>
  (await pglite.query<Record<string, unknown>>(text, params)).rows;

describe('the migrations agree with the table specs', () => {
  for (const spec of storeTableList()) {
    it(`${spec.table}: columns, seq and unique constraints`, async () => {
      const columns = (
        await query(
          `SELECT column_name FROM information_schema.columns
            WHERE table_schema = current_schema() AND table_name = $1`,
          [spec.table],
        )
      ).map((r) => r.column_name);
      const named = [
        ...spec.fields.map((f) => f.column),
        ...(spec.derived ?? []).map((d) => d.column),
      ];
      expect(columns).toEqual(expect.arrayContaining(named));
      if (spec.createdAt !== undefined) expect(columns).toContain('seq');

      const constraints = await query(
        `SELECT c.conname AS name,
                array(SELECT a.attname::text FROM unnest(c.conkey) k
                        JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k
                      ORDER BY a.attname) AS columns
           FROM pg_constraint c
          WHERE c.conrelid = (quote_ident(current_schema()) || '.' || $1)::regclass
            AND c.contype IN ('p', 'u')`,
        [spec.table],
      );
      const actual = Object.fromEntries(constraints.map((c) => [c.name, c.columns]));
      const expected = Object.fromEntries(
        uniqueConstraints(spec).map((c) => [
          c.sqlName,
          c.fields.map((f) => spec.fields.find((x) => x.field === f)!.column).sort(),
        ]),
      );
      expect(actual).toEqual(expected);
    });
  }
});

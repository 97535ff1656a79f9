/**
 * What one organization's statements read of other organizations' rows, on Postgres with a
 * large tenant beside a small one. A statement that reads every organization's rows makes one
 * tenant's growth (or a tenant that copies another's public key into thousands of its own
 * organizations) every tenant's cost. The plans are asserted by what they read (`EXPLAIN
 * ANALYZE`: rows returned plus rows removed by filters on each scan), not by how long they took.
 *
 * Fixed statements are named prepared statements, and after five runs Postgres may keep a
 * generic plan for them, chosen without the parameters' values: those are explained with
 * `plan_cache_mode = force_generic_plan`, the plan a busy server ends up with.
 */

import type { ApiKeyCredential } from '@keyhold/activities';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgDriver } from './pg-driver.js';
import { SqlStore } from './sql-store.js';
import { explain, type PlanNode, planNodes, RecordingDriver } from './testing/plans.js';
import { dropSchemas, POSTGRES_URL, postgresReachable, testSchema } from './testing/targets.js';

const withPostgres = await postgresReachable();

/** The scans of `table` that ran, and the rows each read (returned plus filtered out). */
function scansOf(plan: PlanNode, table: string) {
  return planNodes(plan)
    .filter((n) => n['Relation Name'] === table && n['Actual Loops'] > 0)
    .map((n) => ({
      alias: n.Alias as string,
      node: `${n['Node Type']}${n['Index Name'] ? ` using ${n['Index Name']}` : ''}`,
      read:
        (n['Actual Rows'] +
          (n['Rows Removed by Filter'] ?? 0) +
          (n['Rows Removed by Index Recheck'] ?? 0)) *
        n['Actual Loops'],
    }));
}

const MONTH = Date.UTC(2026, 10, 1);
const VICTIM_KEY = `02${'ab'.repeat(32)}`;
/**
 * Activities of the other organizations (half of them the large tenant's), and organizations
 * holding a copy of the victim's public key.
 */
const LARGE_ACTIVITIES = 40_000;
const KEY_COPIES = 3_000;
/** The large tenant's own API keys, each its own public key (as keys are). */
const DISTINCT_KEYS = 20_000;

describe.skipIf(!withPostgres)('statements stay inside their tenant (Postgres)', () => {
  const schema = testSchema('tenant_plans');
  let pool: pg.Pool;
  let driver: RecordingDriver;
  let store: SqlStore;

  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 2 });
    driver = new RecordingDriver(new PgDriver(pool, schema, true));
    ({ store } = await SqlStore.open(driver, { schema }));
    await driver.inner.transaction(async (c) => {
      // A large root, a small tree (a root and two sub-organizations), and the copiers.
      await c.query(`
        INSERT INTO organizations (organization_id, name, parent_organization_id, root_quorum, created_at, updated_at)
        SELECT id, id, parent, '{"threshold":1,"userIds":[]}'::jsonb, 1700000000000, 1700000000000
          FROM (VALUES ('large', NULL), ('small', NULL), ('small-a', 'small'), ('small-b', 'small')) AS t(id, parent)
        UNION ALL
        SELECT 'copier-' || i, 'copier', NULL, '{"threshold":1,"userIds":[]}'::jsonb, 1700000000000, 1700000000000
          FROM generate_series(1, ${KEY_COPIES}) AS i`);
      await c.query(`
        INSERT INTO activities (id, organization_id, type, status, parameters, votes, fingerprint, timestamp_ms, created_at, updated_at)
        SELECT 'large-' || lpad(n::text, 8, '0'), CASE WHEN n % 2 = 0 THEN 'large' ELSE 'copier-' || (n % ${KEY_COPIES} + 1) END,
               'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2',
               'ACTIVITY_STATUS_COMPLETED', '{}', '[]', 'fp-large-' || n, '0', ${MONTH} + n, ${MONTH} + n
          FROM generate_series(1, ${LARGE_ACTIVITIES}) AS n`);
      // The small tree: in each organization, this month's and last month's signatures, a
      // failed one and a wallet, three times over.
      await c.query(`
        INSERT INTO activities (id, organization_id, type, status, parameters, votes, fingerprint, timestamp_ms, created_at, updated_at)
        SELECT o || '-' || k || '-' || n, o, t, s, '{}', '[]', 'fp-' || o || '-' || k || '-' || n, '0', at, at
          FROM unnest(ARRAY['small', 'small-a', 'small-b']) AS o,
               (VALUES (1, 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2', 'ACTIVITY_STATUS_COMPLETED', ${MONTH} + 5),
                       (2, 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2', 'ACTIVITY_STATUS_COMPLETED', ${MONTH} - 5),
                       (3, 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2', 'ACTIVITY_STATUS_FAILED', ${MONTH} + 5),
                       (4, 'ACTIVITY_TYPE_CREATE_WALLET', 'ACTIVITY_STATUS_COMPLETED', ${MONTH} + 5)) AS v(k, t, s, at),
               generate_series(1, 3) AS n`);
      await c.query(`
        INSERT INTO api_keys (organization_id, api_key_id, user_id, api_key_name, public_key, curve, created_at, updated_at)
        SELECT 'small-a', 'victim-key', 'victim', 'key', '${VICTIM_KEY}', 'API_KEY_CURVE_P256', 1700000000000, 1700000000000
        UNION ALL
        SELECT 'copier-' || i, 'copy', 'copier', 'key', '${VICTIM_KEY}', 'API_KEY_CURVE_P256', 1700000000000, 1700000000000
          FROM generate_series(1, ${KEY_COPIES}) AS i
        UNION ALL
        SELECT 'large', 'key-' || n, 'someone', 'key', '03' || lpad(to_hex(n), 64, '0'), 'API_KEY_CURVE_P256', 1700000000000, 1700000000000
          FROM generate_series(1, ${DISTINCT_KEYS}) AS n`);
      await c.query('ANALYZE organizations, activities, api_keys');
    });
  }, 120_000);

  afterAll(async () => {
    await store?.close();
    await pool?.end().catch(() => {});
    await dropSchemas([schema]);
  });

  it("a signing quota's count reads the tree's activities, not every organization's", async () => {
    let count: number | undefined;
    const statements = await driver.capture(async () => {
      count = await store.transaction((tx) =>
        tx.activities.countInTree(
          'small',
          {
            statuses: ['ACTIVITY_STATUS_COMPLETED'],
            types: ['ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2', 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2'],
          },
          MONTH,
        ),
      );
    });
    expect(count).toBe(9); // this month's completed signatures: three in each organization
    const statement = statements.find((s) => s.text.includes('count(*)'))!;
    const { plan } = await explain(driver.inner, statement);
    const scans = scansOf(plan, 'activities');
    expect(scans.length, JSON.stringify(plan)).toBeGreaterThan(0);
    // The tree holds 36 activities; the other organizations 40,000.
    expect(
      scans.reduce((sum, s) => sum + s.read, 0),
      JSON.stringify(scans),
    ).toBeLessThanOrEqual(36);
  });

  it("a credential lookup's kept plan reads the organization's and its parent's keys, not every copy", async () => {
    let found: ApiKeyCredential[] = [];
    const statements = await driver.capture(async () => {
      found = await store.transaction((tx) =>
        tx.credentials.findApiKeys(VICTIM_KEY, {
          organizationId: 'small-a',
          parentOrganizationId: 'small',
          includeChildren: false,
        }),
      );
    });
    expect(found.map((f) => [f.relation, f.apiKey.organizationId])).toEqual([['self', 'small-a']]);
    const statement = statements.find((s) => s.text.includes('FROM api_keys'))!;
    for (const generic of [false, true]) {
      const { plan } = await explain(driver.inner, statement, { generic });
      // The holder's own keys (alias `h`) are read per key found, by that holder: not counted.
      const scans = scansOf(plan, 'api_keys').filter((s) => s.alias !== 'h');
      expect(scans.length, JSON.stringify(plan)).toBeGreaterThan(0);
      // One key in the organization, none in its parent; 3,000 copies elsewhere.
      expect(
        scans.reduce((sum, s) => sum + s.read, 0),
        `generic: ${generic} ${JSON.stringify(scans)}`,
      ).toBeLessThanOrEqual(2);
    }
  });
});

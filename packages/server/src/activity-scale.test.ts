/**
 * 100 000 activities in one organization, on the SQL store (Postgres, and embedded PGlite):
 * list_activities pages and get_activity stay correct through the public API (stamped
 * requests into `keyhold.handle`), and the statements the store runs for them are index scans.
 *
 * The activities are copies of one real stamped sign_raw_payload activity (its vote, its
 * parameters and result shape), each with its own UUIDv7 id, fingerprint and payload,
 * inserted through the Store port's transaction API, BATCH per transaction.
 *
 * Correctness is asserted (newest first, no gap or duplicate across pages, `after` / `before`
 * cursor semantics at the start, deep in the middle and at the end, unknown cursors, lookups
 * at both ends and in the middle). Latency is only measured and logged — timing belongs to
 * benchmarks, not to assertions — but the query plans are asserted: the store's own listing
 * and lookup statements, captured as it runs them, are EXPLAINed after ANALYZE and must reach
 * `activities` only through an index, with no sort.
 *
 * `ACTIVITY_SCALE_COUNT` changes the 100 000. Without Postgres the Postgres run is skipped
 * loudly (CI: it fails).
 */
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import type { ActivityRecord } from '@keyhold/activities';
import { PgDriver, PgliteDriver, SqlStore } from '@keyhold/store-postgres';
import { bytesToHex } from '@noble/hashes/utils.js';
import { afterAll, describe, expect, it } from 'vitest';
// Test helpers of the SQL adapter (no package export: test-only code).
import { templatePglite } from '../../../adapters/store-postgres/src/testing/pglite-template.js';
import {
  explain,
  explainedPlan,
  type PlanNode,
  planNodes,
  RecordingDriver,
  type Statement,
} from '../../../adapters/store-postgres/src/testing/plans.js';
import {
  dropSchemas,
  POSTGRES_URL,
  postgresReachable,
  testSchema,
} from '../../../adapters/store-postgres/src/testing/targets.js';
import { generateApiKeyPair } from './api-key-signer.js';
import { createKeyhold, type Keyhold } from './keyhold.js';
import type { KeyholdClient } from './keyhold-client.js';
import { silentLogger } from './logger.js';

const COUNT = Number(process.env.ACTIVITY_SCALE_COUNT ?? 100_000);
const BATCH = 2_000;
const INSERT_WORKERS = 4;
/** Overrides how each store is filled: `store` (the port) or `sql` (one statement). */
const INSERT = process.env.ACTIVITY_SCALE_INSERT as 'store' | 'sql' | undefined;
const PAGE = 100;

interface Target {
  driver: RecordingDriver;
  schema: string;
  /** How the COUNT activities go in: through the Store port, or one SQL statement. */
  insert: 'store' | 'sql';
  dispose(): Promise<void>;
}

/** `pg`, from the SQL adapter's dependencies (the server package does not depend on it). */
const pg = createRequire(new URL('../../../adapters/store-postgres/package.json', import.meta.url))(
  'pg',
) as { Pool: new (config: { connectionString: string; max: number }) => unknown };

async function postgresTarget(schema: string): Promise<Target> {
  const pool = new pg.Pool({ connectionString: POSTGRES_URL, max: INSERT_WORKERS });
  const driver = new RecordingDriver(
    new PgDriver(pool as ConstructorParameters<typeof PgDriver>[0], schema, true),
  );
  return { driver, schema, insert: INSERT ?? 'store', dispose: () => dropSchemas([schema]) };
}

async function pgliteTarget(schema: string): Promise<Target> {
  const db = await templatePglite();
  const driver = new RecordingDriver(new PgliteDriver(db, schema, () => db.close()));
  return { driver, schema, insert: INSERT ?? 'sql', dispose: async () => {} };
}

// ---------------------------------------------------------------------------------------

/** A UUIDv7 of `ms` (RFC 9562): ids of distinct milliseconds sort in time order. */
function uuidv7(ms: number): string {
  const b = randomBytes(16);
  b.writeUIntBE(ms, 0, 6);
  b[6] = 0x70 | (b[6]! & 0x0f);
  b[8] = 0x80 | (b[8]! & 0x3f);
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

function stats(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p: number) =>
    sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
  return {
    n: sorted.length,
    medianMs: Number(at(0.5).toFixed(2)),
    p99Ms: Number(at(0.99).toFixed(2)),
    maxMs: Number(sorted[sorted.length - 1]!.toFixed(2)),
  };
}

/** The plan of a statement with the activities indexes dropped (rolled back afterwards). */
async function planWithoutIndexes(driver: RecordingDriver, statement: Statement) {
  class Rollback extends Error {}
  let plan: PlanNode | undefined;
  await driver.inner
    .transaction(async (client) => {
      await client.exec(
        'DROP INDEX activities_listing_idx; ALTER TABLE activities DROP CONSTRAINT activities_pkey',
      );
      const rows = await client.query(`EXPLAIN (FORMAT JSON) ${statement.text}`, statement.params);
      plan = explainedPlan(rows).plan;
      throw new Rollback();
    })
    .catch((error: unknown) => {
      if (!(error instanceof Rollback)) throw error;
    });
  return plan!;
}

/** Asserts a plan reads `activities` through an index only, never scanning or sorting it. */
function expectIndexOnly(plan: PlanNode, label: string) {
  const nodes = planNodes(plan);
  const onActivities = nodes.filter((n) => n['Relation Name'] === 'activities');
  expect(onActivities.length, `${label}: ${JSON.stringify(plan)}`).toBeGreaterThan(0);
  for (const node of onActivities) {
    expect(['Index Scan', 'Index Only Scan'], `${label}: ${JSON.stringify(node)}`).toContain(
      node['Node Type'],
    );
    expect(['activities_listing_idx', 'activities_pkey'], label).toContain(node['Index Name']);
  }
  expect(
    nodes.filter((n) => n['Node Type'] === 'Sort' || n['Node Type'] === 'Seq Scan'),
    label,
  ).toEqual([]);
  return onActivities.map((n) => `${n['Node Type']} using ${n['Index Name']}`);
}

async function hundredThousandActivities(name: string, target: Target) {
  const { store } = await SqlStore.open(target.driver, { schema: target.schema });
  const insertedBy = target.insert;
  const keyhold: Keyhold = createKeyhold({ store, logger: silentLogger });
  try {
    const apiKey = generateApiKeyPair();
    const { organizationId } = await keyhold.bootstrap({
      organizationName: 'Scale',
      apiPublicKey: apiKey.publicKey,
    });
    const client: KeyholdClient = keyhold.client({
      organizationId,
      apiPrivateKey: apiKey.privateKey,
    });

    // One real activity to copy: a stamped sign_raw_payload, with its vote.
    const { addresses } = await client.createWallet({
      walletName: 'scale',
      accounts: [
        {
          curve: 'CURVE_SECP256K1',
          pathFormat: 'PATH_FORMAT_BIP32',
          path: "m/44'/60'/0'/0/0",
          addressFormat: 'ADDRESS_FORMAT_ETHEREUM',
        },
      ],
    });
    const signed = await client.signRawPayload({
      signWith: addresses[0]!,
      payload: bytesToHex(randomBytes(32)),
      encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
      hashFunction: 'HASH_FUNCTION_NO_OP',
    });
    const real = (await store.transaction((tx) =>
      tx.activities.list(organizationId, {}, { limit: 10 }),
    )) as ActivityRecord[];
    const template = real.find((a) => a.id === signed.activity.id)!;
    expect(template.votes).toHaveLength(1);

    // COUNT copies, older than the real ones (one per millisecond, ending a day ago).
    const started = performance.now();
    const baseMs = Date.now() - 86_400_000 - COUNT;
    const inserted = Array.from({ length: COUNT }, (_, i) => uuidv7(baseMs + i));
    const payloads = Array.from({ length: COUNT }, () => bytesToHex(randomBytes(32)));
    const fingerprints = Array.from(
      { length: COUNT },
      () => `sha256:${bytesToHex(randomBytes(32))}`,
    );
    if (target.insert === 'store') {
      // Through the Store port: BATCH inserts per transaction, INSERT_WORKERS transactions at once.
      const copy = (i: number): ActivityRecord => {
        const ms = baseMs + i;
        const id = inserted[i]!;
        return {
          ...template,
          id,
          fingerprint: fingerprints[i]!,
          parameters: { ...template.parameters, payload: payloads[i]! },
          votes: template.votes.map((v) => ({ ...v, activityId: id, createdAt: ms })),
          timestampMs: String(ms),
          createdAt: ms,
          updatedAt: ms,
        };
      };
      let next = 0;
      const worker = async () => {
        for (let from = next; from < COUNT; from = next) {
          next += BATCH;
          const batch: ActivityRecord[] = [];
          for (let i = from; i < Math.min(COUNT, from + BATCH); i++) batch.push(copy(i));
          await store.transaction(async (tx) => {
            for (const record of batch) await tx.activities.insert(record);
          });
        }
      };
      await Promise.all(Array.from({ length: INSERT_WORKERS }, worker));
    } else {
      // One statement that copies the template row COUNT times (the same columns the store
      // writes); PGlite runs the port's one-row inserts at about 1 ms each.
      await target.driver.inner.transaction((client) =>
        client.query(
          `INSERT INTO activities (id, organization_id, type, status, parameters, result, failure,
                                   votes, fingerprint, timestamp_ms, created_at, updated_at)
           SELECT u.id, t.organization_id, t.type, t.status,
                  jsonb_set(t.parameters, '{payload}', to_jsonb(u.payload)), t.result, t.failure,
                  jsonb_set(jsonb_set(t.votes, '{0,activityId}', to_jsonb(u.id)),
                            '{0,createdAt}', to_jsonb(u.ms)),
                  u.fingerprint, u.ms::text, u.ms, u.ms
             FROM activities t,
                  unnest($2::text[], $3::text[], $4::text[], $5::bigint[])
                    AS u(id, fingerprint, payload, ms)
            WHERE t.id = $1`,
          [template.id, inserted, fingerprints, payloads, inserted.map((_, i) => baseMs + i)],
        ),
      );
    }
    const insertSeconds = (performance.now() - started) / 1000;

    // The whole listing, newest first: the real activities, then the copies, newest first.
    const expected = [...real.map((a) => a.id), ...[...inserted].reverse()];
    const N = expected.length;
    expect(N).toBe(COUNT + real.length);
    const listLatencies: number[] = [];
    const getLatencies: number[] = [];
    const page = async (paginationOptions: Record<string, string>) => {
      const t0 = performance.now();
      const { activities } = await client.query<{ activities: { id: string }[] }>(
        'list_activities',
        { paginationOptions },
      );
      listLatencies.push(performance.now() - t0);
      return activities.map((a) => a.id);
    };
    const get = async (activityId: string) => {
      const t0 = performance.now();
      const { activity } = await client.getActivity(activityId);
      getLatencies.push(performance.now() - t0);
      return activity;
    };
    /** `pages` pages of PAGE after `cursor` (from the start without one). */
    const walk = async (pages: number, cursor?: string) => {
      const ids: string[] = [];
      for (let p = 0; p < pages; p++) {
        const next = await page({
          limit: String(PAGE),
          ...(cursor === undefined ? {} : { after: cursor }),
        });
        expect(next.length).toBe(PAGE);
        ids.push(...next);
        cursor = next[next.length - 1];
      }
      return ids;
    };

    // From the start: 10 pages, contiguous, newest first, no gap or duplicate.
    const head = await walk(10);
    expect(head).toEqual(expected.slice(0, 10 * PAGE));
    expect(new Set(head).size).toBe(head.length);
    expect([...head].sort().reverse()).toEqual(head);
    // The default page (10) is the newest 10.
    expect(await page({})).toEqual(expected.slice(0, 10));

    // Deep in the middle: after a cursor, the records just older than it; before it, the
    // page just newer than it.
    const mid = Math.floor(N / 2);
    expect(await walk(5, expected[mid])).toEqual(expected.slice(mid + 1, mid + 1 + 5 * PAGE));
    expect(await page({ limit: String(PAGE), before: expected[mid]! })).toEqual(
      expected.slice(mid - PAGE, mid),
    );
    // Both cursors bound the listing.
    expect(
      await page({ limit: String(PAGE), after: expected[mid]!, before: expected[mid + 42]! }),
    ).toEqual(expected.slice(mid + 1, mid + 42));
    // Cursors are case-insensitive ids.
    expect(await page({ limit: '3', after: expected[mid]!.toUpperCase() })).toEqual(
      expected.slice(mid + 1, mid + 4),
    );

    // The end: the last partial page, then nothing.
    expect(await page({ limit: String(PAGE), after: expected[N - 51]! })).toEqual(
      expected.slice(N - 50),
    );
    expect(await page({ limit: String(PAGE), after: expected[N - 1]! })).toEqual([]);
    expect(await page({ limit: String(PAGE), before: expected[0]! })).toEqual([]);
    // An unknown cursor gives an empty page.
    expect(await page({ limit: String(PAGE), after: uuidv7(baseMs + 7) })).toEqual([]);

    // Lookups at the start, the middle and the end.
    for (const index of [0, real.length, mid, N - 1]) {
      const activity = await get(expected[index]!);
      expect(activity.id).toBe(expected[index]);
      expect(activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
      expect(activity.organizationId).toBe(organizationId);
    }

    // More timed calls, spread over the listing (every 997th record).
    for (let k = 1; k <= 60; k++) {
      const index = (k * 997 * 101) % (N - PAGE);
      expect(await page({ limit: String(PAGE), after: expected[index]! })).toEqual(
        expected.slice(index + 1, index + 1 + PAGE),
      );
      expect((await get(expected[index]!)).id).toBe(expected[index]);
    }

    // The plans of the statements the store runs for a deep page and a lookup.
    await target.driver.inner.transaction((c) => c.exec('ANALYZE activities'));
    const listing = (
      await target.driver.capture(() => page({ limit: String(PAGE), after: expected[mid]! }))
    ).filter((s) => /FROM activities\b/.test(s.text) && /ORDER BY/.test(s.text));
    const lookup = (await target.driver.capture(() => get(expected[mid]!))).filter((s) =>
      /FROM activities\b/.test(s.text),
    );
    expect(listing).toHaveLength(1);
    expect(lookup).toHaveLength(1);
    const before = (
      await target.driver.capture(() => page({ limit: String(PAGE), before: expected[mid]! }))
    ).filter((s) => /FROM activities\b/.test(s.text) && /ORDER BY/.test(s.text));
    expect(before).toHaveLength(1);
    const plans: Record<string, { scans: string[]; executionMs: number }> = {};
    for (const [label, statement] of [
      ['listAfter', listing[0]!],
      ['listBefore', before[0]!],
      ['get', lookup[0]!],
    ] as const) {
      const { plan, executionMs } = await explain(target.driver.inner, statement);
      plans[label] = { scans: expectIndexOnly(plan, label), executionMs };
    }

    // The plan check can fail: without the indexes the same statement scans and sorts.
    const unindexed = await planWithoutIndexes(target.driver, listing[0]!);
    expect(() => expectIndexOnly(unindexed, 'without indexes')).toThrow();
    expect(JSON.stringify(unindexed)).toMatch(/Seq Scan/);
    // The indexes are back (the DROP rolled back).
    expectIndexOnly((await explain(target.driver.inner, listing[0]!)).plan, 'after the rollback');
    const figures = {
      store: name,
      activities: N,
      insertedBy,
      insertSeconds: Number(insertSeconds.toFixed(1)),
      list_activities: stats(listLatencies),
      get_activity: stats(getLatencies),
      plans,
    };
    console.log(
      `activity scale (${name}), latency through keyhold.handle:`,
      JSON.stringify(figures),
    );
    return figures;
  } finally {
    await keyhold.close();
  }
}

const postgresUp = await postgresReachable();
const disposals: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const dispose of disposals.splice(0)) await dispose();
});

describe(`${COUNT} activities in one organization`, () => {
  it.skipIf(!postgresUp)(
    'Postgres: list_activities pages and get_activity are correct and use the index',
    async () => {
      const target = await postgresTarget(testSchema('scale'));
      disposals.push(target.dispose);
      await hundredThousandActivities('postgres', target);
    },
    180_000,
  );

  it('PGlite: list_activities pages and get_activity are correct and use the index', async () => {
    const target = await pgliteTarget(testSchema('scale'));
    disposals.push(target.dispose);
    await hundredThousandActivities('pglite', target);
  }, 180_000);
});

/**
 * Decided inserts that go together (the pg driver's write group, sql-client.ts `WriteGroup`):
 * signatures of one organization that arrive while one is in flight are written by one
 * statement, each as it would have been alone — conflicts, guards that no longer hold and a
 * write that fails included — and the audit chain stays whole, also with two instances racing.
 */
import { type ActivityRecord, StoreConflictError, verifyAuditChain } from '@keyhold/activities';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgDriver } from './pg-driver.js';
import { SqlStore } from './sql-store.js';
import { activity, fresh, organization, policyEvaluation } from './testing/records.js';
import { dropSchemas, POSTGRES_URL, postgresReachable, testSchema } from './testing/targets.js';

const withPostgres = await postgresReachable();

/** Resolves once `check` holds (polled), or fails after 5 s. */
async function until(check: () => Promise<boolean>): Promise<void> {
  for (let waited = 0; waited < 5_000; waited += 20) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('timed out waiting');
}

describe.skipIf(!withPostgres)('Postgres: decided inserts of one organization go together', () => {
  const schema = testSchema('groups');
  let a: { store: SqlStore; driver: PgDriver };
  let b: { store: SqlStore; driver: PgDriver };

  const instance = async () => {
    const driver = new PgDriver(
      new pg.Pool({ connectionString: POSTGRES_URL, max: 10 }),
      schema,
      true,
    );
    const { store } = await SqlStore.open(driver, { schema });
    return { store, driver };
  };

  beforeAll(async () => {
    a = await instance();
    b = await instance();
  });
  afterAll(async () => {
    await Promise.all([a?.store.close(), b?.store.close()]);
    await dropSchemas([schema]);
  });

  const newOrganization = async () => {
    const org = fresh('org');
    await a.store.transaction((tx) =>
      tx.organizations.insert(organization({ organizationId: org })),
    );
    return org;
  };

  /** The evaluation each signature wrote, by activity id. */
  const evaluations = new Map<string, ReturnType<typeof policyEvaluation>>();

  /** A signature's transaction: its organization and fingerprint read, then its one write. */
  const sign = (store: SqlStore, record: ActivityRecord) => {
    const evaluation = policyEvaluation(record.organizationId, record.id);
    evaluations.set(record.id, evaluation);
    return store
      .transaction(async (tx) => {
        await tx.organizations.getWithActivity(record.organizationId, record.fingerprint);
        await tx.activities.insertDecided(record, evaluation, {
          body: JSON.stringify({ organizationId: record.organizationId, id: record.id }),
          now: record.createdAt,
        });
        return 'stored';
      })
      .catch((e: unknown) =>
        StoreConflictError.is(e) ? e.constraint : `failed: ${(e as Error).message}`,
      );
  };

  /** The organization's chain is whole, and its entries are the bodies of `ids`, in some order. */
  const expectChain = async (org: string, ids: readonly string[]) => {
    const entries = await a.store.transaction((tx) => tx.auditLog.list(org, 1, 10_000));
    const head = (await a.store.transaction((tx) => tx.auditLog.heads())).find(
      (h) => h.organizationId === org,
    );
    expect(verifyAuditChain(entries, head)).toBeUndefined();
    expect(entries.map((e) => e.seq)).toEqual(ids.map((_, i) => i + 1));
    expect(entries.map((e) => (JSON.parse(e.body) as { id: string }).id).sort()).toEqual(
      [...ids].sort(),
    );
  };

  it('signatures sent at once: some go together, each is stored with its evaluation, the chain whole', async () => {
    const org = await newOrganization();
    const before = { ...a.driver.grouped };
    const records = Array.from({ length: 60 }, () => activity(org, { id: fresh('act') }));
    const outcomes = await Promise.all(records.map((r) => sign(a.store, r)));
    expect(outcomes).toEqual(records.map(() => 'stored'));
    expect(a.driver.grouped.statements).toBeGreaterThan(before.statements);
    expect(a.driver.grouped.writes - before.writes).toBeGreaterThan(
      a.driver.grouped.statements - before.statements,
    );
    for (const record of records) {
      expect(await b.store.transaction((tx) => tx.activities.get(org, record.id))).toEqual(record);
      const stored = await b.store.transaction((tx) =>
        tx.policyEvaluations.listByActivity(org, record.id),
      );
      expect(stored).toEqual([evaluations.get(record.id)]);
    }
    await expectChain(
      org,
      records.map((r) => r.id),
    );
  });

  it('the same bodies from two instances at once, on a chain not yet begun: one activity each, the chain whole', async () => {
    const org = await newOrganization();
    const fingerprints = Array.from({ length: 30 }, () => `sha256:${fresh('fp')}`);
    const attempts = fingerprints.flatMap((fingerprint) =>
      [a, b].map((side) => {
        const record = activity(org, { id: fresh('act'), fingerprint });
        return sign(side.store, record).then((outcome) => ({ outcome, record }));
      }),
    );
    const results = await Promise.all(attempts);
    for (let i = 0; i < fingerprints.length; i++) {
      expect(
        results
          .slice(2 * i, 2 * i + 2)
          .map((r) => r.outcome)
          .sort(),
      ).toEqual(['activity_fingerprint', 'stored']);
    }
    await expectChain(
      org,
      results.filter((r) => r.outcome === 'stored').map((r) => r.record.id),
    );
  });

  it('guards that no longer hold: the organization changed, every write is refused and run again on the truth', async () => {
    const org = await newOrganization();
    await sign(a.store, activity(org, { id: fresh('act') })); // a keeps the organization's row
    // Another instance changes the organization: what a assumes is stale.
    await b.store.transaction(async (tx) => {
      const row = (await tx.organizations.get(org))!;
      await tx.organizations.update({ ...row, name: `${row.name} 2` });
    });
    const failedBefore = a.store.cache!.assumptionsFailed;
    const records = Array.from({ length: 30 }, () => activity(org, { id: fresh('act') }));
    const outcomes = await Promise.all(records.map((r) => sign(a.store, r)));
    expect(outcomes).toEqual(records.map(() => 'stored'));
    // Each of the 30 assumed the stale row (retries wait behind them for a connection), and
    // each guard, alone or in a group, refused it.
    expect(a.store.cache!.assumptionsFailed - failedBefore).toBeGreaterThanOrEqual(20);
    const entries = await a.store.transaction((tx) => tx.auditLog.list(org, 1, 10_000));
    expect(entries).toHaveLength(31);
  });

  /**
   * Signs `records` while one more signature waits in the database on the organization's chain
   * head, held by another session, so all of `records` wait behind it in the driver; then lets
   * it go. Resolves with the one's outcome and each of theirs, and what the driver counted.
   */
  async function behindOneInFlight(org: string, records: readonly ActivityRecord[]) {
    await sign(a.store, activity(org, { id: fresh('act') })); // the chain's head exists
    const holder = new pg.Client({ connectionString: POSTGRES_URL });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(
        `SELECT 1 FROM "${schema}".audit_heads WHERE organization_id = $1 FOR UPDATE`,
        [org],
      );
      const inFlight = sign(a.store, activity(org, { id: fresh('act') }));
      await until(async () => {
        const { rows } = await holder.query(
          `SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
        );
        return rows.length > 0;
      });
      const before = { ...a.driver.grouped };
      const outcomes = Promise.all(records.map((r) => sign(a.store, r)));
      await new Promise((resolve) => setTimeout(resolve, 300)); // all of them wait behind it
      await holder.query('COMMIT');
      return {
        inFlight: await inFlight,
        outcomes: await outcomes,
        grouped: {
          statements: a.driver.grouped.statements - before.statements,
          writes: a.driver.grouped.writes - before.writes,
        },
      };
    } finally {
      await holder.end();
    }
  }

  it('writes that waited go in one statement once the one in flight ends', async () => {
    const org = await newOrganization();
    const records = Array.from({ length: 8 }, () => activity(org, { id: fresh('act') }));
    const { inFlight, outcomes, grouped } = await behindOneInFlight(org, records);
    expect(inFlight).toBe('stored');
    expect(outcomes).toEqual(records.map(() => 'stored'));
    expect(grouped).toEqual({ statements: 1, writes: 8 });
    const entries = await a.store.transaction((tx) => tx.auditLog.list(org, 1, 10_000));
    expect(entries).toHaveLength(10);
    expect(
      entries
        .slice(2)
        .map((e) => (JSON.parse(e.body) as { id: string }).id)
        .sort(),
    ).toEqual(records.map((r) => r.id).sort());
  });

  it('a write that fails goes alone after its group failed: it fails, the others are stored', async () => {
    const org = await newOrganization();
    const records = Array.from({ length: 8 }, () => activity(org, { id: fresh('act') }));
    // NOT NULL: the database refuses it, alone or with others.
    const broken = { ...records[3]!, status: null } as unknown as ActivityRecord;
    records[3] = broken;
    const { inFlight, outcomes, grouped } = await behindOneInFlight(org, records);
    expect(inFlight).toBe('stored');
    expect(outcomes[3]).toMatch(/^failed: /);
    expect(outcomes.filter((o) => o === 'stored')).toHaveLength(7);
    // The group's statement failed, so it is not counted; each then ran alone.
    expect(grouped).toEqual({ statements: 0, writes: 0 });
    expect(await b.store.transaction((tx) => tx.activities.get(org, broken.id))).toBeUndefined();
    const entries = await a.store.transaction((tx) => tx.auditLog.list(org, 1, 10_000));
    const head = (await a.store.transaction((tx) => tx.auditLog.heads())).find(
      (h) => h.organizationId === org,
    );
    expect(verifyAuditChain(entries, head)).toBeUndefined();
    expect(entries).toHaveLength(9);
  });
});

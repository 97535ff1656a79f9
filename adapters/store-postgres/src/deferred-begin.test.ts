/**
 * BEGIN at the first write (deferred-begin.ts): which statements may run before it, and what a
 * transaction sends and keeps — on Postgres, on the driver's own pool (deferred) and on a pool
 * it is given (BEGIN and `SET LOCAL`s first, as before); on PGlite, on a session the driver owns
 * (deferred, on the calling thread and on a worker) and on one it shares (BEGIN first).
 */

import type { PGlite } from '@electric-sql/pglite';
import { StoreConflictError, StoreUnavailableError, verifyAuditChain } from '@keyhold/activities';
import fc from 'fast-check';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPlainRead, needsBegin } from './deferred-begin.js';
import { runMigrations } from './migrations.js';
import { createPostgresStore, PgDriver } from './pg-driver.js';
import { createPgliteStore, PgliteDriver } from './pglite-driver.js';
import { SqlStore } from './sql-store.js';
import { observedPool } from './testing/observed-pool.js';
import { templatePglite } from './testing/pglite-template.js';
import { activity, fresh, organization, policyEvaluation, wallet } from './testing/records.js';
import { dropSchemas, POSTGRES_URL, postgresReachable, testSchema } from './testing/targets.js';

describe('isPlainRead and needsBegin', () => {
  it('a fixed plain SELECT runs before BEGIN; anything else opens the transaction', () => {
    expect(isPlainRead('SELECT * FROM users WHERE organization_id = $1', true)).toBe(true);
    expect(isPlainRead('  select 1', true)).toBe(true);
    // Built at run time, a write, a CTE that may write, locking reads, an advisory lock.
    expect(isPlainRead('SELECT * FROM users', false)).toBe(false);
    expect(isPlainRead('SELECT * FROM users', undefined)).toBe(false);
    expect(isPlainRead('INSERT INTO users (id) VALUES ($1)', true)).toBe(false);
    expect(isPlainRead('WITH x AS (DELETE FROM users RETURNING *) SELECT * FROM x', true)).toBe(
      false,
    );
    for (const lock of ['FOR UPDATE', 'for no key update', 'FOR SHARE', 'FOR KEY SHARE']) {
      expect(isPlainRead(`SELECT * FROM activities WHERE id = $1 ${lock}`, true)).toBe(false);
    }
    expect(isPlainRead('SELECT pg_advisory_xact_lock($1)', true)).toBe(false);
    expect(
      isPlainRead(
        `SELECT * FROM webhook_deliveries WHERE status = 'PENDING'
           FOR   UPDATE SKIP LOCKED`,
        true,
      ),
    ).toBe(false);
  });

  it('property: only a fixed text that starts with SELECT and takes no lock is a plain read', () => {
    fc.assert(
      fc.property(fc.string(), fc.boolean(), (text, fixed) => {
        const plain = isPlainRead(text, fixed);
        if (plain) {
          expect(fixed).toBe(true);
          expect(text.trimStart().slice(0, 6).toUpperCase()).toBe('SELECT');
          expect(/\bfor\s+(update|share|no\s+key|key\s+share)/i.test(text)).toBe(false);
        }
        // Once begun, nothing opens the transaction again.
        expect(needsBegin('begun', text, fixed, false)).toBe(false);
        // A last write with nothing written before it runs alone.
        expect(needsBegin('not begun', text, fixed, true)).toBe(false);
        expect(needsBegin('not begun', text, fixed, false)).toBe(!plain);
      }),
    );
  });
});

/** A store whose driver sends BEGIN at the first write, and how to see what it sends. */
interface DeferredTarget {
  owned: SqlStore;
  /** Another store on the same database, to see what was committed. */
  check: SqlStore;
  org: string;
  /** What one transaction sends (the first word of each statement the target records). */
  sends<T>(
    store: SqlStore,
    work: Parameters<SqlStore['transaction']>[0],
  ): Promise<{ words: string[]; value?: T; error?: unknown }>;
  /** The words the target records of the statements a pg connection would send. */
  words(sentByPg: readonly string[]): string[];
}

/** What every driver that sends BEGIN at the first write does, on Postgres and on PGlite. */
function deferredBeginCases(target: () => DeferredTarget): void {
  it('reads, then the decided insert: no BEGIN or COMMIT, and all of it kept', async () => {
    const { owned, check, org, sends, words: sent } = target();
    const record = activity(org, { id: fresh('act') });
    const evaluation = policyEvaluation(org, record.id);
    const { words } = await sends(owned, async (tx) => {
      await tx.organizations.getWithActivity(org, record.fingerprint);
      await tx.activities.insertDecided(record, evaluation, { body: '{"n":1}', now: 1 });
    });
    expect(words).toEqual(sent(['SELECT', 'WITH']));
    expect(await check.transaction((tx) => tx.activities.get(org, record.id))).toEqual(record);
    expect(
      await check.transaction((tx) => tx.policyEvaluations.listByActivity(org, record.id)),
    ).toEqual([evaluation]);
    const entries = await check.transaction((tx) => tx.auditLog.list(org, 1, 1000));
    expect(entries.at(-1)?.body).toBe('{"n":1}');
  });

  it('a conflicting decided insert writes nothing, and the work goes on in a transaction', async () => {
    const { owned, check, org, sends, words: sent } = target();
    const first = activity(org, { id: fresh('act') });
    await owned.transaction((tx) =>
      tx.activities.insertDecided(first, policyEvaluation(org, first.id), {
        body: '{"n":2}',
        now: 2,
      }),
    );
    const again = activity(org, { id: fresh('act'), fingerprint: first.fingerprint });
    const w = wallet(org);
    const { words, value } = await sends<string>(owned, async (tx) => {
      const refused = await tx.activities
        .insertDecided(again, policyEvaluation(org, again.id), { body: '{"n":3}', now: 3 })
        .catch((e: unknown) => (StoreConflictError.is(e) ? e.constraint : 'other'));
      await tx.wallets.insert(w);
      return refused;
    });
    expect(value).toBe('activity_fingerprint');
    // The refused insert, the probe that names its constraint, then a transaction for the rest.
    expect(words).toEqual(sent(['WITH', 'SELECT', 'BEGIN', 'INSERT', 'COMMIT']));
    expect(await check.transaction((tx) => tx.activities.get(org, again.id))).toBeUndefined();
    expect(await check.transaction((tx) => tx.wallets.get(org, w.walletId))).toEqual(w);
  });

  it('a write before the decided insert: one transaction, undone as a whole when the work fails', async () => {
    const { owned, check, org, sends, words: sent } = target();
    const record = activity(org, { id: fresh('act') });
    const w = wallet(org);
    const { words, error } = await sends(owned, async (tx) => {
      await tx.wallets.insert(w);
      await tx.activities.insertDecided(record, policyEvaluation(org, record.id), {
        body: '{"n":4}',
        now: 4,
      });
      throw new Error('the handler failed after its writes');
    });
    expect((error as Error).message).toBe('the handler failed after its writes');
    expect(words).toEqual(sent(['BEGIN', 'INSERT', 'WITH', 'ROLLBACK']));
    expect(await check.transaction((tx) => tx.activities.get(org, record.id))).toBeUndefined();
    expect(await check.transaction((tx) => tx.wallets.get(org, w.walletId))).toBeUndefined();
  });

  it('reads alone: no BEGIN, no COMMIT; a locking read opens the transaction', async () => {
    const { owned, org, sends, words: sent } = target();
    const record = activity(org, { id: fresh('act') });
    await owned.transaction((tx) => tx.activities.insert(record));
    expect((await sends(owned, (tx) => tx.activities.get(org, record.id))).words).toEqual(
      sent(['SELECT']),
    );
    const locked = await sends(owned, (tx) => tx.activities.getForUpdate(org, record.id));
    expect(locked.value).toEqual(record);
    expect(locked.words).toEqual(sent(['BEGIN', 'SELECT', 'COMMIT']));
  });
}

const withPostgres = await postgresReachable();

/** A pool of `max` 1 whose connections add the first word of each statement they send to `sent`. */
const recordingPool = (sent: string[]) =>
  observedPool(POSTGRES_URL, 1, (text) => sent.push(text.trim().split(/\s+/)[0]!));

describe.skipIf(!withPostgres)('Postgres: BEGIN at the first write', () => {
  const schema = testSchema('deferred');
  const sent: string[] = [];
  let owned: SqlStore; // deferred: the driver's own pool
  let given: SqlStore; // a pool the driver is given: BEGIN first
  let givenPool: pg.Pool;
  let check: SqlStore; // another instance, to see what was committed
  const org = fresh('org');

  beforeAll(async () => {
    check = await createPostgresStore({ connectionString: POSTGRES_URL, schema });
    await check.transaction((tx) => tx.organizations.insert(organization({ organizationId: org })));
    owned = new SqlStore(new PgDriver(recordingPool(sent), schema, true), { cache: false });
    givenPool = recordingPool(sent);
    given = new SqlStore(new PgDriver(givenPool, schema, false), { cache: false });
  });
  afterAll(async () => {
    await Promise.all([owned?.close(), given?.close(), check?.close()]);
    await givenPool?.end();
    await dropSchemas([schema]);
  });

  /** What one transaction sends (each statement's first word), after a warm-up one. */
  async function sends<T>(store: SqlStore, work: Parameters<SqlStore['transaction']>[0]) {
    await store.transaction((tx) => tx.organizations.get(org)); // the session is set
    sent.length = 0;
    const outcome = await store.transaction(work).then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );
    return { words: [...sent], ...(outcome as { value?: T; error?: unknown }) };
  }

  deferredBeginCases(() => ({ owned, check, org, sends, words: (all) => [...all] }));

  it('on a pool it is given, every transaction starts with BEGIN and its SET LOCALs', async () => {
    const record = activity(org, { id: fresh('act') });
    const { words } = await sends(given, async (tx) => {
      await tx.organizations.getWithActivity(org, record.fingerprint);
      await tx.activities.insertDecided(record, policyEvaluation(org, record.id), {
        body: '{"n":5}',
        now: 5,
      });
    });
    expect(words).toEqual(['BEGIN;', 'SELECT', 'WITH', 'COMMIT']);
    expect(await check.transaction((tx) => tx.activities.get(org, record.id))).toEqual(record);
  });

  it('decided inserts racing from two instances, each on its own: one activity per fingerprint, an unbroken audit chain', async () => {
    const raceOrg = fresh('race-org');
    await check.transaction((tx) =>
      tx.organizations.insert(organization({ organizationId: raceOrg })),
    );
    const other = await createPostgresStore({ connectionString: POSTGRES_URL, schema });
    try {
      const stores = [owned, other];
      const fingerprints = Array.from({ length: 20 }, () => `sha256:${fresh('race')}`);
      // Every fingerprint twice, once from each instance, all at once.
      const attempts = fingerprints.flatMap((fingerprint, i) =>
        stores.map((store, s) => {
          const record = activity(raceOrg, { id: fresh('act'), fingerprint });
          return store
            .transaction(async (tx) => {
              await tx.organizations.getWithActivity(raceOrg, fingerprint);
              await tx.activities.insertDecided(record, policyEvaluation(raceOrg, record.id), {
                body: JSON.stringify({ organizationId: raceOrg, i, s }),
                now: 1_000 + i,
              });
              return 'stored';
            })
            .catch((e: unknown) =>
              StoreConflictError.is(e) ? e.constraint : `unexpected: ${String(e)}`,
            );
        }),
      );
      const outcomes = await Promise.all(attempts);
      for (let i = 0; i < fingerprints.length; i++) {
        expect(outcomes.slice(2 * i, 2 * i + 2).sort()).toEqual(['activity_fingerprint', 'stored']);
      }
      const entries = await check.transaction((tx) => tx.auditLog.list(raceOrg, 1, 1000));
      expect(entries.map((e) => e.seq)).toEqual(fingerprints.map((_, i) => i + 1));
      const head = (await check.transaction((tx) => tx.auditLog.heads())).find(
        (h) => h.organizationId === raceOrg,
      );
      expect(verifyAuditChain(entries, head)).toBeUndefined();
      const stored = await check.transaction((tx) =>
        tx.activities.list(raceOrg, {}, { limit: 100 }),
      );
      expect(stored).toHaveLength(fingerprints.length);
    } finally {
      await other.close();
    }
  });

  it("the session's statement timeout bounds a read that runs before BEGIN", async () => {
    const driver = new PgDriver(recordingPool([]), schema, true, 100);
    const store = new SqlStore(driver, { cache: false });
    try {
      await expect(
        driver.transaction((c) => c.query('SELECT pg_sleep(2)', [], true)),
      ).rejects.toBeInstanceOf(StoreUnavailableError);
      // …and its search_path is the store's schema.
      expect(await store.transaction((tx) => tx.organizations.get(org))).toMatchObject({
        organizationId: org,
      });
    } finally {
      await store.close();
    }
  });
});

/** A PGlite whose BEGIN, COMMIT and ROLLBACK (simple Query messages, 'Q') are added to `sent`. */
async function recordingPglite(sent: string[]): Promise<PGlite> {
  const db = await templatePglite();
  const exchange = db.execProtocolStream.bind(db);
  db.execProtocolStream = (message, options) => {
    if (message[0] === 0x51) {
      const word = new TextDecoder().decode(message.subarray(5, message.length - 1)).trim();
      if (/^(BEGIN|COMMIT|ROLLBACK)$/i.test(word)) sent.push(word.toUpperCase());
    }
    return exchange(message, options);
  };
  return db;
}

describe('PGlite: BEGIN at the first write', () => {
  const sent: string[] = [];
  let db: PGlite;
  let owned: SqlStore; // the driver's own session: deferred
  let shared: SqlStore; // a PGlite the caller shares: BEGIN first, as before
  const org = fresh('org');

  beforeAll(async () => {
    db = await recordingPglite(sent);
    await db.exec('SET search_path TO public');
    const driver = new PgliteDriver(db, 'public', async () => {}, true);
    await runMigrations(driver, { schema: 'public' });
    owned = new SqlStore(driver, { cache: false });
    await owned.transaction((tx) => tx.organizations.insert(organization({ organizationId: org })));
    shared = await createPgliteStore({ pglite: db, schema: 'public', cache: false });
  });
  afterAll(async () => {
    await Promise.all([owned?.close(), shared?.close()]);
    await db?.close();
  });

  async function sends<T>(store: SqlStore, work: Parameters<SqlStore['transaction']>[0]) {
    sent.length = 0;
    const outcome = await store.transaction(work).then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );
    return { words: [...sent], ...(outcome as { value?: T; error?: unknown }) };
  }

  // PGlite's BEGIN, COMMIT and ROLLBACK are what is recorded: the rest of what pg would send is not.
  deferredBeginCases(() => ({
    owned,
    check: shared,
    org,
    sends,
    words: (all) => all.filter((word) => /^(BEGIN|COMMIT|ROLLBACK)$/.test(word)),
  }));

  it('on a PGlite it shares, every transaction starts with BEGIN', async () => {
    const record = activity(org, { id: fresh('act') });
    const { words } = await sends(shared, async (tx) => {
      await tx.organizations.getWithActivity(org, record.fingerprint);
      await tx.activities.insertDecided(record, policyEvaluation(org, record.id), {
        body: '{}',
        now: 5,
      });
    });
    expect(words).toEqual(['BEGIN', 'COMMIT']);
  });
});

describe.each([
  ['on the calling thread', () => createPgliteStore({ cache: false })],
  ['on a worker thread', () => createPgliteStore({ cache: false, thread: 'worker' })],
])('PGlite %s: a statement run alone waits for the open transaction', (_, open) => {
  let store: SqlStore;
  const org = fresh('org');
  beforeAll(async () => {
    store = await open();
    await store.transaction((tx) => tx.organizations.insert(organization({ organizationId: org })));
  });
  afterAll(() => store?.close());

  it('never runs inside it: it reads what was committed once that transaction ends', async () => {
    const w = wallet(org);
    let wrote!: () => void;
    const written = new Promise<void>((resolve) => {
      wrote = resolve;
    });
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const writer = store
      .transaction(async (tx) => {
        await tx.wallets.insert(w);
        wrote();
        await held;
        throw new Error('undone');
      })
      .catch((e: Error) => e.message);
    await written;
    // A plain read alone, and a last write alone, while the writer's transaction is open.
    const reader = store.transaction((tx) => tx.wallets.get(org, w.walletId));
    const record = activity(org, { id: fresh('act') });
    const decided = store.transaction((tx) =>
      tx.activities.insertDecided(record, policyEvaluation(org, record.id), {
        body: '{}',
        now: 6,
      }),
    );
    // Had either run inside the open transaction, the rollback would take its effect too.
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();
    expect(await writer).toBe('undone');
    expect(await reader).toBeUndefined();
    await decided;
    expect(await store.transaction((tx) => tx.activities.get(org, record.id))).toEqual(record);
    expect(await store.transaction((tx) => tx.wallets.get(org, w.walletId))).toBeUndefined();
  });
});

/**
 * The Store contract (@keyhold/conformance/store) against the SQL store on PGlite (on the
 * calling thread and on a worker thread) and on Postgres; then what only the SQL store does (a transaction object refused after its end, an
 * aborted database transaction, the readiness ping).
 */
import type { StoreConflictError, StoreTransaction } from '@keyhold/activities';
import { storeContract } from '@keyhold/conformance/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TransactionAbortedError } from './sql-client.js';
import type { SqlStore } from './sql-store.js';
import { activity, fresh } from './testing/records.js';
import {
  type OutboxStore,
  pgliteTarget,
  postgresReachable,
  postgresTarget,
  type Target,
} from './testing/targets.js';

const withPostgres = await postgresReachable();
const targets: Target[] = [pgliteTarget('owned'), pgliteTarget('worker'), postgresTarget()];

describe.each(targets)('Store contract: $name', (target) => {
  const skip = target.name === 'postgres' && !withPostgres;
  let store: OutboxStore;
  const tx = <T>(work: (t: StoreTransaction) => Promise<T>) => store.transaction(work);

  beforeAll(async () => {
    if (!skip) store = await target.open();
  });
  afterAll(async () => {
    if (!skip) {
      await store.close();
      await target.dispose();
    }
  });

  describe.skipIf(skip)('the contract', () => {
    for (const check of storeContract({ store: () => store })) it(check.name, check.run);
  });

  describe.skipIf(skip)('SQL store only', () => {
    it('refuses a transaction object used after its transaction ended', async () => {
      let escaped: StoreTransaction | undefined;
      await tx(async (t) => {
        escaped = t;
      });
      await expect(escaped!.users.list(fresh('org'))).rejects.toThrow(/transaction is closed/);
    });

    it('a failed upsert aborts the database transaction: COMMIT reports it, nothing is kept', async () => {
      // The memory store would commit here: a StoreConflictError from an *update* is
      // caught and the work returns normally. Postgres cannot continue an aborted
      // transaction, so the store throws TransactionAbortedError (reported as a gap).
      const o = fresh('org');
      const a = activity(o);
      const b = activity(o);
      await tx((t) => t.activities.insert(a));
      const outcome = await tx(async (t) => {
        await t.activities.insert(b);
        const constraint = await t.activities.update({ ...b, fingerprint: a.fingerprint }).then(
          () => 'none',
          (e: StoreConflictError) => e.constraint,
        );
        expect(constraint).toBe('activity_fingerprint');
      }).catch((e: unknown) => e);
      expect(outcome).toBeInstanceOf(TransactionAbortedError);
      expect(await tx((t) => t.activities.get(o, b.id))).toBeUndefined();
    });

    it('answers a readiness ping', async () => {
      await (store as SqlStore).ping();
    });
  });
});

/**
 * The outbox under concurrent dispatchers (Postgres only): two stores on one schema — two
 * instances — claim in parallel, each with two claim loops; no delivery is claimed twice and
 * none is left out. Claims lock rows `FOR UPDATE SKIP LOCKED` and lease them, so a claim never
 * takes a row another claim holds or has just leased.
 */
import type { WebhookDelivery } from '@keyhold/webhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresStore } from './pg-driver.js';
import type { SqlStore } from './sql-store.js';
import { fresh, webhookDelivery } from './testing/records.js';
import { dropSchemas, POSTGRES_URL, postgresReachable, testSchema } from './testing/targets.js';

const withPostgres = await postgresReachable();

describe.skipIf(!withPostgres)('outbox: concurrent claims on Postgres', () => {
  const schema = testSchema('outbox');
  let a: SqlStore;
  let b: SqlStore;

  beforeAll(async () => {
    a = await createPostgresStore({ connectionString: POSTGRES_URL, schema });
    b = await createPostgresStore({ connectionString: POSTGRES_URL, schema });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await dropSchemas([schema]);
  });

  it('two instances claiming in parallel never get the same delivery; together they get all', async () => {
    const org = fresh('org');
    const T = 1_000_000;
    const deliveries = Array.from({ length: 300 }, (_, i) =>
      webhookDelivery(org, fresh('endpoint'), { createdAt: T + (i % 17), nextAttemptAt: T }),
    );
    await a.transaction(async (t) => {
      for (const d of deliveries) await t.webhookDeliveries.insert(d);
    });

    /** Claims small batches until a claim comes back empty. */
    const claimer = async (store: SqlStore): Promise<WebhookDelivery[]> => {
      const got: WebhookDelivery[] = [];
      for (;;) {
        const batch = await store.claimDue(T + 10, 7, 600_000);
        if (batch.length === 0) return got;
        got.push(...batch);
      }
    };
    const claims = await Promise.all([claimer(a), claimer(b), claimer(a), claimer(b)]);

    const all = claims.flat().map((d) => d.deliveryId);
    expect(new Set(all).size).toBe(all.length); // no delivery claimed twice
    expect(new Set(all)).toEqual(new Set(deliveries.map((d) => d.deliveryId)));
    // Both instances took part.
    expect(claims[0]!.length + claims[2]!.length).toBeGreaterThan(0);
    expect(claims[1]!.length + claims[3]!.length).toBeGreaterThan(0);
    // Leased: nothing is claimable again before the lease runs out.
    expect(await b.claimDue(T + 10, 1000, 600_000)).toEqual([]);
  });
});

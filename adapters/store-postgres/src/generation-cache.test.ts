/**
 * The generation cache (generation-cache.ts, migration 0023), on PGlite and Postgres: two store
 * instances share one database, as two servers would; one keeps answers, the other changes
 * what they were read from, and every change of every kind shows at once in the first one's
 * next read — compared with a third instance that keeps nothing. A transaction sees its own
 * writes. The triggers are on exactly the tables the cacheable reads select from.
 */
import { randomUUID } from 'node:crypto';
import type { Store, StoreTransaction } from '@keyhold/activities';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AssumptionFailed } from './generation-cache.js';
import { createPostgresStore } from './pg-driver.js';
import { createPgliteStore } from './pglite-driver.js';
import { GENERATION_CACHE, type SqlStore } from './sql-store.js';
import { templatePglite } from './testing/pglite-template.js';
import {
  account,
  activity,
  apiKey,
  authenticator,
  organization,
  policy,
  policyEvaluation,
  privateKey,
  user,
  wallet,
  webhookEndpoint,
} from './testing/records.js';
import { dropSchemas, POSTGRES_URL, postgresReachable, testSchema } from './testing/targets.js';

interface Instances {
  /** Keeps answers. */
  cached: SqlStore;
  /** Changes things. */
  other: SqlStore;
  /** Keeps nothing: the truth. */
  uncached: SqlStore;
}

/** What one signing request reads through the cache, in one transaction. */
async function requestReads(store: Store, o: Seeded) {
  return store.transaction(async (tx: StoreTransaction) => {
    await tx.organizations.get(o.organizationId);
    return {
      apiKeys: await tx.credentials.findApiKeys(o.publicKey, {
        organizationId: o.organizationId,
        includeChildren: false,
      }),
      passkeys: await tx.credentials.findAuthenticators(o.credentialId, {
        organizationId: o.organizationId,
        includeChildren: false,
      }),
      policies: await tx.policies.list(o.organizationId),
      account: await tx.walletAccounts.findByAddress(o.organizationId, o.address),
      privateKey: await tx.privateKeys.findByAddress(o.organizationId, o.keyAddress),
      endpoints: await tx.webhookEndpoints.list(o.organizationId),
      // What a policy's condition reads besides.
      user: await tx.users.get(o.organizationId, o.userId),
      wallet: await tx.wallets.get(o.organizationId, o.walletId),
    };
  });
}

/**
 * A signature's transaction, as ActivityService.create runs it: the organization with the
 * body's activity, the cached reads, and, when `decide` allows it, the decided insert last.
 * What it saw is returned (or thrown, as a refusal would be).
 */
async function signing(
  store: Store,
  o: Seeded,
  fingerprint: string,
  decide: (seen: Seen) => void = () => {},
) {
  return store.transaction(async (tx) => {
    const first = await tx.organizations.getWithActivity(o.organizationId, fingerprint);
    if (first.activity) return { stored: first.activity.id };
    const seen: Seen = {
      apiKeys: (
        await tx.credentials.findApiKeys(o.publicKey, {
          organizationId: o.organizationId,
          includeChildren: false,
        })
      ).length,
      policies: (await tx.policies.list(o.organizationId)).map((p) => p.effect).sort(),
      exported: (await tx.walletAccounts.findByAddress(o.organizationId, o.address))?.exported,
    };
    decide(seen);
    const record = activity(o.organizationId, { fingerprint });
    await tx.activities.insertDecided(record, policyEvaluation(o.organizationId, record.id), {
      body: JSON.stringify({ organizationId: o.organizationId, fingerprint }),
      now: 1,
    });
    return { inserted: record.id, seen };
  });
}

interface Seen {
  apiKeys: number;
  policies: string[];
  exported: boolean | undefined;
}

interface Seeded {
  organizationId: string;
  userId: string;
  publicKey: string;
  credentialId: string;
  address: string;
  keyAddress: string;
  walletId: string;
}

async function seed(store: Store): Promise<Seeded> {
  const org = organization();
  const u = user(org.organizationId);
  const key = apiKey(org.organizationId, u.userId);
  const passkey = authenticator(org.organizationId, u.userId);
  const w = wallet(org.organizationId);
  const a = account(org.organizationId, w.walletId);
  const k = privateKey(org.organizationId);
  await store.transaction(async (tx) => {
    await tx.organizations.insert(org);
    await tx.users.insert(u);
    await tx.apiKeys.insert(key);
    await tx.authenticators.insert(passkey);
    await tx.policies.insert(policy(org.organizationId));
    await tx.wallets.insert(w);
    await tx.walletAccounts.insert(a);
    await tx.privateKeys.insert(k);
    await tx.webhookEndpoints.insert(webhookEndpoint(org.organizationId));
  });
  return {
    organizationId: org.organizationId,
    userId: u.userId,
    publicKey: key.publicKey,
    credentialId: passkey.credentialId,
    address: a.address,
    keyAddress: k.addresses[0]!.address,
    walletId: w.walletId,
  };
}

/** Every kind of change to what the cached reads select, made by the other instance. */
const CHANGES: [string, (tx: StoreTransaction, o: Seeded) => Promise<unknown>][] = [
  [
    'a user renamed',
    async (tx, o) => {
      const u = (await tx.users.get(o.organizationId, o.userId))!;
      await tx.users.update({ ...u, userName: 'Renamed' });
    },
  ],
  [
    'a second API key for the user',
    (tx, o) => tx.apiKeys.insert(apiKey(o.organizationId, o.userId, { apiKeyName: 'second' })),
  ],
  [
    'the API key deleted',
    async (tx, o) => {
      const [found] = await tx.credentials.findApiKeys(o.publicKey, {
        organizationId: o.organizationId,
        includeChildren: false,
      });
      await tx.apiKeys.delete(o.organizationId, found!.apiKey.apiKeyId);
    },
  ],
  [
    'a passkey added',
    (tx, o) => tx.authenticators.insert(authenticator(o.organizationId, o.userId)),
  ],
  [
    'a policy added',
    (tx, o) => tx.policies.insert(policy(o.organizationId, { effect: 'EFFECT_DENY' })),
  ],
  [
    'every policy deleted',
    async (tx, o) => {
      for (const p of await tx.policies.list(o.organizationId)) {
        await tx.policies.delete(o.organizationId, p.policyId);
      }
    },
  ],
  [
    'the account exported',
    async (tx, o) => {
      const a = (await tx.walletAccounts.findByAddress(o.organizationId, o.address))!;
      await tx.walletAccounts.markExported(o.organizationId, a.walletAccountId, 1_800_000_000_000);
    },
  ],
  [
    'the private key disabled',
    async (tx, o) => {
      const k = (await tx.privateKeys.findByAddress(o.organizationId, o.keyAddress))!;
      await tx.privateKeys.update({ ...k, disabled: true });
    },
  ],
  [
    'the wallet renamed',
    async (tx, o) => {
      const w = (await tx.wallets.get(o.organizationId, o.walletId))!;
      await tx.wallets.update({ ...w, walletName: `renamed ${randomUUID()}` });
    },
  ],
  [
    'a webhook endpoint added',
    (tx, o) => tx.webhookEndpoints.insert(webhookEndpoint(o.organizationId)),
  ],
  [
    'the private key deleted',
    async (tx, o) => {
      const k = (await tx.privateKeys.findByAddress(o.organizationId, o.keyAddress))!;
      await tx.privateKeys.delete(o.organizationId, k.privateKeyId);
    },
  ],
];

function cacheSuite(name: string, open: () => Promise<Instances & { dispose(): Promise<void> }>) {
  describe(`the generation cache on ${name}`, () => {
    let stores: Instances & { dispose(): Promise<void> };
    let o: Seeded;
    beforeAll(async () => {
      stores = await open();
      o = await seed(stores.other);
    }, 60_000);
    afterAll(async () => {
      await stores?.dispose();
    });

    it('answers a repeated read while the generation stands', async () => {
      const first = await requestReads(stores.cached, o);
      const hits = stores.cached.cache!.hits;
      const again = await requestReads(stores.cached, o);
      expect(stores.cached.cache!.hits - hits).toBe(8);
      expect(again).toEqual(first);
      expect(again).toEqual(await requestReads(stores.uncached, o));
      // An answer is a copy: changing it changes nothing kept.
      again.policies[0]!.policyName = 'changed by the caller';
      expect((await requestReads(stores.cached, o)).policies[0]!.policyName).not.toBe(
        'changed by the caller',
      );
    });

    it.each(CHANGES)('shows at once what another instance changed: %s', async (_, change) => {
      await requestReads(stores.cached, o); // kept
      await stores.other.transaction((tx) => change(tx, o));
      expect(await requestReads(stores.cached, o)).toEqual(await requestReads(stores.uncached, o));
    });

    it('keeps a sub-organization’s credential lookup, which reads the parent’s credentials too, and follows the parent’s changes', async () => {
      const parent = await seed(stores.other);
      const child = organization({ parentOrganizationId: parent.organizationId });
      await stores.other.transaction((tx) => tx.organizations.insert(child));
      const lookup = (store: Store) =>
        store.transaction(async (tx) => {
          await tx.organizations.getWithActivity(child.organizationId, `sha256:${randomUUID()}`);
          return tx.credentials.findApiKeys(parent.publicKey, {
            organizationId: child.organizationId,
            parentOrganizationId: parent.organizationId,
            includeChildren: false,
          });
        });
      const first = await lookup(stores.cached);
      expect(first.map((c) => c.relation)).toEqual(['parent']);
      const hits = stores.cached.cache!.hits;
      expect(await lookup(stores.cached)).toEqual(first);
      expect(stores.cached.cache!.hits - hits).toBe(1);
      // The parent's API key deleted by the other instance: gone at once in the child.
      await stores.other.transaction(async (tx) => {
        const [found] = await tx.credentials.findApiKeys(parent.publicKey, {
          organizationId: parent.organizationId,
          includeChildren: false,
        });
        await tx.apiKeys.delete(parent.organizationId, found!.apiKey.apiKeyId);
      });
      expect(await lookup(stores.cached)).toEqual([]);
      expect(await lookup(stores.uncached)).toEqual([]);
    });

    it('a transaction sees its own writes, and what it read after them is not kept', async () => {
      await requestReads(stores.cached, o);
      const added = policy(o.organizationId, { policyName: `own ${randomUUID()}` });
      const seen = await stores.cached.transaction(async (tx) => {
        await tx.organizations.get(o.organizationId);
        await tx.policies.list(o.organizationId);
        await tx.policies.insert(added);
        return tx.policies.list(o.organizationId);
      });
      expect(seen.map((p) => p.policyId)).toContain(added.policyId);
      await expect(
        stores.cached.transaction(async (tx) => {
          await tx.organizations.get(o.organizationId);
          await tx.policies.insert(policy(o.organizationId));
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      expect(await requestReads(stores.cached, o)).toEqual(await requestReads(stores.uncached, o));
    });

    describe('a signature’s transaction assumes its organization', () => {
      // An organization of its own: the changes below are made to it once more.
      let s: Seeded;
      beforeAll(async () => {
        s = await seed(stores.other);
      });
      const fingerprint = () => `sha256:${randomUUID()}`;
      const counts = () => ({
        assumed: stores.cached.cache!.assumed,
        failed: stores.cached.cache!.assumptionsFailed,
      });
      const since = (before: ReturnType<typeof counts>) => {
        const now = counts();
        return { assumed: now.assumed - before.assumed, failed: now.failed - before.failed };
      };
      const stored = async (id: string) =>
        stores.uncached.transaction((tx) => tx.activities.get(s.organizationId, id));

      it('answers the organization from the last read, and the one write checks it', async () => {
        await signing(stores.cached, s, fingerprint()); // the organization is kept
        const before = counts();
        const outcome = await signing(stores.cached, s, fingerprint());
        expect(since(before)).toEqual({ assumed: 1, failed: 0 });
        expect(outcome.seen).toEqual((await signing(stores.uncached, s, fingerprint())).seen);
        expect(await stored(outcome.inserted!)).toBeDefined();
      });

      it.each(CHANGES)(
        'a change by another instance fails it, and the transaction runs again on what is there now: %s',
        async (_, change) => {
          await signing(stores.cached, s, fingerprint()); // kept
          await stores.other.transaction((tx) => change(tx, s));
          const before = counts();
          const outcome = await signing(stores.cached, s, fingerprint());
          expect(since(before)).toEqual({ assumed: 1, failed: 1 });
          expect(outcome.seen).toEqual((await signing(stores.uncached, s, fingerprint())).seen);
          // Written once, by the second run.
          expect(await stored(outcome.inserted!)).toBeDefined();
        },
      );

      it('the same body again: read for real here, and found after the write when another instance stored it', async () => {
        const body = fingerprint();
        const first = await signing(stores.cached, s, body);
        let before = counts();
        // Assumed lately with these parameters: read for real, the stored activity found first.
        expect(await signing(stores.cached, s, body)).toEqual({ stored: first.inserted });
        expect(since(before)).toEqual({ assumed: 0, failed: 0 });
        // Stored by the other instance: assumed here, refused by the guarded write (a conflict),
        // and found by the second run; nothing written twice.
        const elsewhere = fingerprint();
        const theirs = await signing(stores.other, s, elsewhere);
        before = counts();
        expect(await signing(stores.cached, s, elsewhere)).toEqual({ stored: theirs.inserted });
        expect(since(before)).toEqual({ assumed: 1, failed: 1 });
        const listed = await stores.uncached.transaction((tx) =>
          tx.activities.findByFingerprint(elsewhere),
        );
        expect(listed?.id).toBe(theirs.inserted);
      });

      it('a refusal worked out from an assumed organization counts only once it is confirmed', async () => {
        await signing(stores.cached, s, fingerprint()); // kept
        // Another instance adds a DENY policy; the kept answers still say ALLOW only.
        await stores.other.transaction((tx) =>
          tx.policies.insert(policy(s.organizationId, { effect: 'EFFECT_DENY' })),
        );
        const refuseOnDeny = (seen: Seen) => {
          if (seen.policies.includes('EFFECT_DENY')) throw new Error('denied');
        };
        // Denied, as the database says now: the first run saw no DENY and wrote nothing.
        const before = counts();
        await expect(signing(stores.cached, s, fingerprint(), refuseOnDeny)).rejects.toThrow(
          'denied',
        );
        expect(since(before)).toEqual({ assumed: 1, failed: 1 });
        // And the other way: a refusal from a kept DENY that is gone is not the answer.
        await signing(stores.cached, s, fingerprint(), () => {}); // keeps the DENY
        await stores.other.transaction(async (tx) => {
          for (const p of await tx.policies.list(s.organizationId)) {
            if (p.effect === 'EFFECT_DENY') await tx.policies.delete(s.organizationId, p.policyId);
          }
        });
        const next = counts();
        const allowed = await signing(stores.cached, s, fingerprint(), refuseOnDeny);
        expect(since(next)).toEqual({ assumed: 1, failed: 1 });
        expect(await stored(allowed.inserted!)).toBeDefined();
      });

      it('a statement the cache cannot answer reads the organization first; once it failed, nothing more runs', async () => {
        await signing(stores.cached, s, fingerprint()); // kept
        await stores.other.transaction((tx) =>
          tx.policies.insert(policy(s.organizationId, { policyName: `p ${randomUUID()}` })),
        );
        const w = wallet(s.organizationId);
        let caught: unknown;
        let runs = 0;
        await stores.cached.transaction(async (tx) => {
          runs++;
          await tx.organizations.getWithActivity(s.organizationId, fingerprint());
          try {
            await tx.wallets.insert(w); // not answerable: the organization is read, and failed
          } catch (error) {
            caught ??= error;
            // A handler that swallows it cannot write on what was assumed.
            await expect(tx.wallets.get(s.organizationId, w.walletId)).rejects.toBeInstanceOf(
              AssumptionFailed,
            );
            return;
          }
        });
        expect(caught).toBeInstanceOf(AssumptionFailed);
        expect(runs).toBe(2); // and the second run, not assuming, wrote the wallet
        expect(
          await stores.uncached.transaction((tx) => tx.wallets.get(s.organizationId, w.walletId)),
        ).toBeDefined();
      });
    });

    it('a read before the organization’s goes to the database', async () => {
      const misses = stores.cached.cache!.misses;
      const hits = stores.cached.cache!.hits;
      await stores.cached.transaction((tx) => tx.policies.list(o.organizationId));
      expect([stores.cached.cache!.hits, stores.cached.cache!.misses]).toEqual([hits, misses]);
    });

    it('has triggers on exactly the tables the cacheable reads select from', async () => {
      const triggered = await stores.uncached.sqlTransaction(async (sql) =>
        (
          await sql.query<{ table_name: string }>(
            `SELECT DISTINCT c.relname AS table_name FROM pg_trigger t
               JOIN pg_class c ON c.oid = t.tgrelid
               JOIN pg_namespace n ON n.oid = c.relnamespace
              WHERE n.nspname = current_schema() AND t.tgname LIKE '%\\_generation\\_%'`,
          )
        ).map((r) => r.table_name),
      );
      expect(triggered.sort()).toEqual([...GENERATION_CACHE.generationTables].sort());
      for (const text of GENERATION_CACHE.cacheable.keys()) {
        const tables = [...text.matchAll(/\b(?:FROM|JOIN)\s+([a-z_]+)/gi)].map((m) => m[1]!);
        expect(tables.length).toBeGreaterThan(0);
        for (const table of tables) expect(GENERATION_CACHE.generationTables).toContain(table);
      }
    });
  });
}

/** Three instances on one database: one keeps answers, one changes things, one keeps nothing. */
async function threeInstances(
  open: (cache: boolean) => Promise<SqlStore>,
  release: () => Promise<void>,
): Promise<Instances & { dispose(): Promise<void> }> {
  const cached = await open(true);
  const other = await open(true);
  const uncached = await open(false);
  return {
    cached,
    other,
    uncached,
    async dispose() {
      for (const s of [cached, other, uncached]) await s.close();
      await release();
    },
  };
}

cacheSuite('PGlite', async () => {
  const pglite = await templatePglite();
  const schema = testSchema('generation');
  return threeInstances(
    (cache) => createPgliteStore({ pglite, schema, cache }),
    () => pglite.close(),
  );
});

const reachable = await postgresReachable();
(reachable ? cacheSuite : describe.skip)('Postgres', async () => {
  const schema = testSchema('generation');
  return threeInstances(
    (cache) => createPostgresStore({ connectionString: POSTGRES_URL, schema, cache }),
    () => dropSchemas([schema]),
  );
});

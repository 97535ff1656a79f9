/**
 * An unknown API key costs the same at 10 and at 10 000 sub-organizations (issue #10): whoami
 * at a parent with a key nobody holds used to look in every sub-organization, one store query
 * each. The stamp check is now one credential lookup (`tx.credentials.findApiKeys`).
 *
 * The sub-organizations (each with a user and an API key) are written through the Store port,
 * not HTTP, on the memory store and on Postgres. The requests are real stamped whoami bodies
 * into `keyhold.handle`. What is asserted is the number of store calls a request makes (and,
 * on Postgres, of SQL statements, and that the lookup's plan only reads indexes); wall times
 * are printed, not asserted. The old walk, replayed over the same counting store, shows what
 * the counter would have seen before: one call per sub-organization.
 *
 * `CREDENTIAL_COST_COUNT` changes the 10 000. Without Postgres its run is skipped loudly.
 */
import { createRequire } from 'node:module';
import type { Store, StoreTransaction } from '@keyhold/activities';
import { MemoryStore } from '@keyhold/store-memory';
import { PgDriver, type SqlClient, type SqlDriver, SqlStore } from '@keyhold/store-postgres';
import { afterAll, describe, expect, it } from 'vitest';
// Test helpers of the SQL adapter (no package export: test-only code).
import { explain, planNodes } from '../../../adapters/store-postgres/src/testing/plans.js';
import {
  dropSchemas,
  POSTGRES_URL,
  postgresReachable,
  testSchema,
} from '../../../adapters/store-postgres/src/testing/targets.js';
import { generateApiKeyPair } from './api-key-signer.js';
import { createKeyhold, type Keyhold } from './keyhold.js';
import { KeyholdRequestError } from './keyhold-client.js';
import { silentLogger } from './logger.js';

const LARGE = Number(process.env.CREDENTIAL_COST_COUNT ?? 10_000);
const SMALL = 10;
const BATCH = 1_000;
const SAMPLES = 20;

// ---------------------------------------------------------------------------------------
// Counting: every repository call a transaction makes, and (SQL) every statement it runs.

class Counter {
  calls: string[] = [];
  statements: { text: string; params: unknown[] }[] = [];
  reset(): void {
    this.calls = [];
    this.statements = [];
  }
}

/** The Store, with every repository method call of every transaction recorded. */
function countingStore(inner: Store, counter: Counter): Store {
  const repository = (name: string, repo: object) =>
    new Proxy(repo, {
      get(target, method, receiver) {
        const value = Reflect.get(target, method, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          counter.calls.push(`${name}.${String(method)}`);
          return value.apply(target, args);
        };
      },
    });
  const transaction = (tx: StoreTransaction) =>
    new Proxy(tx, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver);
        return typeof value === 'object' && value !== null
          ? repository(String(name), value)
          : value;
      },
    });
  return {
    transaction: (work) => inner.transaction((tx) => work(transaction(tx))),
    close: () => inner.close(),
  };
}

/** A driver that records the statements the store runs. */
function countingDriver(inner: SqlDriver, counter: Counter): SqlDriver {
  return {
    kind: inner.kind,
    transaction: (work) =>
      inner.transaction((client: SqlClient) =>
        work({
          query: (text, params) => {
            counter.statements.push({ text, params: [...(params ?? [])] });
            return client.query(text, params);
          },
          exec: (script) => client.exec(script),
        }),
      ),
    close: () => inner.close(),
  };
}

// ---------------------------------------------------------------------------------------

interface Target {
  name: string;
  open(counter: Counter): Promise<{ store: Store; raw: Store; driver?: SqlDriver }>;
  dispose(): Promise<void>;
}

/** `pg`, from the SQL adapter's dependencies (the server package does not depend on it). */
const pg = createRequire(new URL('../../../adapters/store-postgres/package.json', import.meta.url))(
  'pg',
) as { Pool: new (config: { connectionString: string; max: number }) => unknown };

const memory: Target = {
  name: 'memory',
  async open(counter) {
    const raw = new MemoryStore();
    return { raw, store: countingStore(raw, counter) };
  },
  dispose: async () => {},
};

function postgres(): Target {
  const schema = testSchema('credential_cost');
  return {
    name: 'postgres',
    async open(counter) {
      const pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 4 });
      const driver = new PgDriver(pool as ConstructorParameters<typeof PgDriver>[0], schema, true);
      const { store: raw } = await SqlStore.open(countingDriver(driver, counter), { schema });
      return { raw, store: countingStore(raw, counter), driver };
    },
    dispose: () => dropSchemas([schema]),
  };
}

const withPostgres = await postgresReachable();

/** Sub-organizations `from`..`to - 1` of `parent`, each with a root user and an API key. */
async function addSubOrganizations(store: Store, parent: string, from: number, to: number) {
  const batches: Promise<void>[] = [];
  for (let start = from; start < to; start += BATCH) {
    const end = Math.min(to, start + BATCH);
    batches.push(
      store.transaction(async (tx) => {
        for (let i = start; i < end; i++) {
          const organizationId = `${parent}-sub-${i}`;
          const userId = `${organizationId}-root`;
          const at = 1_700_000_000_000 + i;
          await tx.organizations.insert({
            organizationId,
            name: `customer ${i}`,
            parentOrganizationId: parent,
            rootQuorum: { threshold: 1, userIds: [userId] },
            createdAt: at,
            updatedAt: at,
          });
          await tx.users.insert({
            organizationId,
            userId,
            userName: `root ${i}`,
            userTags: [],
            createdAt: at,
            updatedAt: at,
          });
          await tx.apiKeys.insert({
            organizationId,
            userId,
            apiKeyId: `${organizationId}-key`,
            apiKeyName: 'root key',
            // Distinct compressed-P-256-shaped keys nobody can sign with.
            publicKey: `03${i.toString(16).padStart(64, '0')}`,
            curve: 'API_KEY_CURVE_P256',
            createdAt: at,
            updatedAt: at,
          });
        }
      }),
    );
  }
  await Promise.all(batches);
}

/**
 * The sub-organization walk whoami made before the credential lookup (listChildren, then one
 * findByPublicKey per child), over the same counting store: what the counter would have seen.
 */
async function oldWalk(store: Store, parent: string, publicKey: string): Promise<number> {
  return store.transaction(async (tx) => {
    let holders = 0;
    for (const child of await tx.organizations.listChildren(parent)) {
      if (await tx.apiKeys.findByPublicKey(child.organizationId, publicKey)) holders++;
    }
    return holders;
  });
}

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return Number(sorted[Math.floor(sorted.length / 2)]!.toFixed(2));
}

interface Measure {
  calls: string[];
  statements: number;
  medianMs: number;
  lookup?: { text: string; params: unknown[] };
}

describe.each([
  ['memory', () => memory, false],
  ['postgres', postgres, !withPostgres],
] as const)('credential lookup cost on %s', (_name, create, skip) => {
  const target = create();
  const counter = new Counter();
  let keyhold: Keyhold | undefined;
  let driver: SqlDriver | undefined;
  afterAll(async () => {
    if (skip) return;
    await keyhold?.close();
    await target.dispose();
  });

  it.skipIf(skip)(
    `an unknown key's whoami at the parent makes the same store calls at ${SMALL} and ${LARGE} sub-organizations`,
    async () => {
      const opened = await target.open(counter);
      driver = opened.driver;
      keyhold = createKeyhold({ store: opened.store, logger: silentLogger });
      const rootKey = generateApiKeyPair();
      const { organizationId: parent } = await keyhold.bootstrap({
        organizationName: `cost-${Date.now()}`,
        apiPublicKey: rootKey.publicKey,
      });
      const root = keyhold.client({ organizationId: parent, apiPrivateKey: rootKey.privateKey });
      const stranger = generateApiKeyPair();
      const attacker = keyhold.client({
        organizationId: parent,
        apiPrivateKey: stranger.privateKey,
      });
      // One sub-organization's user holds a key we can sign with: whoami at the parent finds it.
      const subKey = generateApiKeyPair();
      const subOrg = `${parent}-sub-member`;

      const measure = async (request: () => Promise<unknown>, expectError: boolean) => {
        const times: number[] = [];
        let first: Measure | undefined;
        for (let i = 0; i < SAMPLES; i++) {
          counter.reset();
          const t0 = performance.now();
          const outcome = await request().then(
            (value) => ({ value }),
            (error: unknown) => ({ error }),
          );
          times.push(performance.now() - t0);
          if (expectError) {
            expect('error' in outcome && outcome.error).toBeInstanceOf(KeyholdRequestError);
            expect((outcome as { error: KeyholdRequestError }).error.status.message).toContain(
              'could not find public key',
            );
          } else {
            expect(outcome).toHaveProperty('value');
          }
          first ??= {
            calls: counter.calls,
            statements: counter.statements.length,
            medianMs: 0,
            lookup: counter.statements.find((s) => /FROM api_keys/.test(s.text)),
          };
        }
        return { ...first!, medianMs: median(times) };
      };

      const report: Record<string, unknown> = {};
      const at = async (size: number) => {
        const unknown = await measure(() => attacker.whoami(), true);
        const legitimate = await measure(() => root.whoami(), false);
        const member = await measure(
          () =>
            keyhold!
              .client({ organizationId: parent, apiPrivateKey: subKey.privateKey })
              .whoami()
              .then((me) => expect(me.organizationId).toBe(subOrg)),
          false,
        );
        counter.reset();
        const t0 = performance.now();
        expect(await oldWalk(opened.store, parent, stranger.publicKey)).toBe(0);
        const old = {
          calls: counter.calls.length,
          ms: Number((performance.now() - t0).toFixed(2)),
        };
        report[`${size} sub-organizations`] = {
          unknownKeyWhoami: {
            storeCalls: unknown.calls.length,
            sqlStatements: unknown.statements,
            medianMs: unknown.medianMs,
          },
          legitimateWhoami: { storeCalls: legitimate.calls.length, medianMs: legitimate.medianMs },
          subOrganizationUserWhoamiAtParent: {
            storeCalls: member.calls.length,
            medianMs: member.medianMs,
          },
          oldSubOrganizationWalk: { storeCalls: old.calls, ms: old.ms },
        };
        return { unknown, legitimate, member, old };
      };

      // The member sub-organization first, then SMALL - 1 others.
      await opened.store.transaction(async (tx) => {
        await tx.organizations.insert({
          organizationId: subOrg,
          name: 'member',
          parentOrganizationId: parent,
          rootQuorum: { threshold: 1, userIds: ['member-root'] },
          createdAt: 1,
          updatedAt: 1,
        });
        await tx.users.insert({
          organizationId: subOrg,
          userId: 'member-root',
          userName: 'member root',
          userTags: [],
          createdAt: 1,
          updatedAt: 1,
        });
        await tx.apiKeys.insert({
          organizationId: subOrg,
          userId: 'member-root',
          apiKeyId: 'member-key',
          apiKeyName: 'member key',
          publicKey: subKey.publicKey,
          curve: 'API_KEY_CURVE_P256',
          createdAt: 1,
          updatedAt: 1,
        });
      });
      await addSubOrganizations(opened.raw, parent, 1, SMALL);
      if (driver) await driver.transaction((c) => c.exec('ANALYZE'));
      const small = await at(SMALL);

      const t0 = performance.now();
      await addSubOrganizations(opened.raw, parent, SMALL, LARGE);
      const buildSeconds = Number(((performance.now() - t0) / 1000).toFixed(1));
      if (driver) await driver.transaction((c) => c.exec('ANALYZE'));
      expect(
        await opened.raw.transaction((tx) => tx.organizations.listChildren(parent)),
      ).toHaveLength(LARGE);
      const large = await at(LARGE);

      // The same calls, in the same order, at both sizes: organization, then one lookup.
      expect(large.unknown.calls).toEqual(small.unknown.calls);
      expect(small.unknown.calls).toEqual(['organizations.get', 'credentials.findApiKeys']);
      expect(large.unknown.calls.length).toBeLessThan(10);
      expect(large.unknown.statements).toBe(small.unknown.statements);
      expect(large.member.calls).toEqual(small.member.calls);
      expect(large.legitimate.calls).toEqual(small.legitimate.calls);
      // The counter sees what the old walk cost: one call per sub-organization, and one more.
      expect(small.old.calls).toBe(SMALL + 1);
      expect(large.old.calls).toBe(LARGE + 1);

      if (driver) {
        // Two statements on SQL: the organization, then the credential lookup.
        expect(large.unknown.statements).toBe(2);
        // The lookup reads api_keys, organizations and users through indexes only.
        const statement = large.unknown.lookup!;
        const { plan, executionMs } = await explain(driver, statement);
        const nodes = planNodes(plan);
        const scans = nodes
          .filter((n) => n['Relation Name'])
          .map((n) => `${n['Node Type']} on ${n['Relation Name']} using ${n['Index Name']}`);
        // Only what ran counts: the holder's API keys and passkeys are sub-plans that run per
        // key found, never for an unknown key (and an empty table is always scanned as a seq
        // scan, whatever its indexes: authenticators here).
        expect(
          nodes.filter((n) => n['Node Type'] === 'Seq Scan' && n['Actual Loops'] > 0),
          JSON.stringify(plan),
        ).toEqual([]);
        report.lookupPlan = { scans, executionMs };
      }
      console.log(
        `credential lookup cost on ${target.name} (built ${LARGE - SMALL} sub-organizations in ${buildSeconds} s):\n` +
          JSON.stringify(report, null, 2),
      );
    },
    600_000,
  );
});

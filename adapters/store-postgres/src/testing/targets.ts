/**
 * The stores a test runs against: the memory store (the reference), PGlite and Postgres.
 * Postgres is 127.0.0.1:5432 (or KEYHOLD_TEST_POSTGRES_URL), database `test`; each run
 * works in schemas of its own, dropped afterwards. Without a reachable Postgres the
 * Postgres runs are skipped with a loud warning — unless CI is set, where that fails.
 * @module
 */

import type { PGlite } from '@electric-sql/pglite';
import type { Store } from '@keyhold/activities';
// The reference implementation the SQL store must be indistinguishable from.
import { MemoryStore } from '@keyhold/store-memory';
import type { Outbox } from '@keyhold/webhooks';
import pg from 'pg';
import { createPostgresStore } from '../pg-driver.js';
import { createPgliteStore } from '../pglite-driver.js';
import { templatePglite } from './pglite-template.js';

export { MemoryStore };

export const POSTGRES_URL =
  process.env.KEYHOLD_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** The URL for messages, without a password. */
const shownUrl = (): string => {
  try {
    const url = new URL(POSTGRES_URL);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return 'the test Postgres';
  }
};

const inCi = (): boolean => {
  const ci = process.env.CI;
  return ci !== undefined && ci !== '' && ci !== '0' && ci.toLowerCase() !== 'false';
};

/**
 * Whether the Postgres runs can happen. In CI a missing Postgres throws (the test file
 * fails); elsewhere it warns loudly and the Postgres runs are skipped.
 */
export async function postgresReachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch (error) {
    const why = error instanceof Error ? error.message || error.name : String(error);
    if (inCi()) {
      throw new Error(`CI requires Postgres at ${shownUrl()}, which is unreachable: ${why}`);
    }
    const bar = '!'.repeat(78);
    console.warn(
      `\n${bar}\n!! Postgres at ${shownUrl()} is unreachable (${why}).\n` +
        `!! SKIPPING every Postgres run of the store tests. Start Postgres to run them;\n` +
        `!! with CI=true this is a failure.\n${bar}\n`,
    );
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

const runTag = `${process.pid.toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
let schemas = 0;

/** A schema name unique to this run (and this call). */
export const testSchema = (label: string): string => `keyhold_test_${label}_${runTag}_${++schemas}`;

/** Drops the given schemas (Postgres). */
export async function dropSchemas(names: readonly string[]): Promise<void> {
  if (names.length === 0) return;
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    for (const name of names) await client.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
  } finally {
    await client.end();
  }
}

/** Every adapter's store is also the Outbox of the deliveries it holds. */
export type OutboxStore = Store & Outbox;

/** A store under test, and how to wipe it between property runs. */
export interface Target {
  name: 'memory' | 'pglite' | 'pglite in a worker' | 'postgres';
  open(): Promise<OutboxStore>;
  /** Deletes every record (SQL targets) so a run starts from an empty store. */
  truncate?(store: Store): Promise<void>;
  /** Releases what the target created (after its stores are closed). */
  dispose(): Promise<void>;
}

const TRUNCATE =
  'TRUNCATE organizations, users, api_keys, wallets, wallet_accounts, private_keys, activities, ' +
  'policies, user_tags, private_key_tags, policy_evaluations, webhook_endpoints, ' +
  'webhook_deliveries RESTART IDENTITY';

/**
 * PGlite in memory. `owned`: each store opens its own in-memory PGlite (the factory's
 * default path; seconds per store). `shared`: one PGlite for the whole file, one schema
 * per store (and truncation between property runs).
 */
export function pgliteTarget(mode: 'owned' | 'shared' | 'worker'): Target {
  if (mode === 'owned') {
    return { name: 'pglite', open: () => createPgliteStore(), dispose: async () => {} };
  }
  if (mode === 'worker') {
    return {
      name: 'pglite in a worker',
      open: () => createPgliteStore({ thread: 'worker' }),
      dispose: async () => {},
    };
  }
  let db: Promise<PGlite> | undefined;
  const schemasOf = new WeakMap<Store, string>();
  return {
    name: 'pglite',
    async open() {
      db ??= templatePglite();
      const schema = testSchema('pglite');
      const store = await createPgliteStore({ pglite: await db, schema });
      schemasOf.set(store, schema);
      return store;
    },
    async truncate(store) {
      const instance = await db!;
      await instance.exec(`SET search_path TO "${schemasOf.get(store)}"; ${TRUNCATE}`);
    },
    async dispose() {
      if (db) await (await db).close();
    },
  };
}

/** Postgres: one schema per store, dropped on dispose. */
export function postgresTarget(): Target {
  const created: string[] = [];
  const schemasOf = new WeakMap<Store, string>();
  let admin: pg.Client | undefined;
  return {
    name: 'postgres',
    async open() {
      const schema = testSchema('pg');
      created.push(schema);
      const store = await createPostgresStore({ connectionString: POSTGRES_URL, schema });
      schemasOf.set(store, schema);
      return store;
    },
    async truncate(store) {
      if (!admin) {
        admin = new pg.Client({ connectionString: POSTGRES_URL });
        await admin.connect();
      }
      await admin.query(`SET search_path TO "${schemasOf.get(store)}"; ${TRUNCATE}`);
    },
    async dispose() {
      await admin?.end();
      await dropSchemas(created);
    },
  };
}

export function memoryTarget(): Target {
  return { name: 'memory', open: async () => new MemoryStore(), dispose: async () => {} };
}

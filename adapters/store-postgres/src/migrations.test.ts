/**
 * The migration runner on both drivers (PGlite in memory, Postgres), one schema per case:
 * first start, restart, upgrade, and every refusal.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadMigrations, type Migration, runMigrations } from './migrations.js';
import { PgDriver } from './pg-driver.js';
import { PgliteDriver } from './pglite-driver.js';
import type { SqlDriver } from './sql-client.js';
import { SqlStore } from './sql-store.js';
import { StoreOpenError, type StoreOpenFailure } from './store-open-error.js';
import { templatePglite } from './testing/pglite-template.js';
import { dropSchemas, POSTGRES_URL, postgresReachable, testSchema } from './testing/targets.js';

const withPostgres = await postgresReachable();
const shipped = loadMigrations();
/** The newest shipped version; test migrations come after it. */
const LATEST = shipped.at(-1)!.version;
const SHIPPED_VERSIONS = shipped.map((m) => ({ version: m.version }));
const [NEXT, AFTER] = [LATEST + 1, LATEST + 2];

const extra = (version: number, sql: string): Migration => ({
  version,
  name: `test_${version}`,
  sql,
  checksum: `checksum-${version}-${sql.length}`,
});

describe('loadMigrations', () => {
  it('reads the shipped files in version order', () => {
    expect(shipped.map((m) => [m.version, m.name])).toEqual([
      [1, 'initial'],
      [2, 'policies_and_tags'],
      [3, 'wallet_account_exported'],
      [4, 'webhooks'],
      [5, 'sub_organization_index'],
      [6, 'credential_lookup'],
      [7, 'webhook_endpoint_health'],
      [8, 'authenticators'],
      [9, 'api_key_credential_type'],
      [10, 'otps'],
      [11, 'invitations'],
      [12, 'oauth_providers'],
      [13, 'oauth2_credentials'],
      [14, 'payments'],
      [15, 'audit_log'],
      [16, 'send_transactions'],
      [17, 'smart_contract_interfaces'],
      [18, 'organization_documents'],
      [19, 'vault_state'],
      [20, 'fiat_on_ramp'],
      [22, 'otp_signup_use'],
      [23, 'organization_generation'],
      [24, 'wallet_generation'],
    ]);
    expect(shipped[0]!.checksum).toMatch(/^[0-9a-f]{64}$/);
  });

  it('sorts by version, skips other files, refuses duplicate versions', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'keyhold-migrations-'));
    try {
      await writeFile(join(dir, '0002_second.sql'), 'SELECT 2;');
      await writeFile(join(dir, '0001_first.sql'), 'SELECT 1;\r\n');
      await writeFile(join(dir, 'README.md'), '# notes');
      const loaded = loadMigrations(dir);
      expect(loaded.map((m) => m.name)).toEqual(['first', 'second']);
      // Line endings do not change a checksum.
      await writeFile(join(dir, '0001_first.sql'), 'SELECT 1;\n');
      expect(loadMigrations(dir)[0]!.checksum).toBe(loaded[0]!.checksum);
      await writeFile(join(dir, '0002_again.sql'), 'SELECT 2;');
      expect(() => loadMigrations(dir)).toThrow(/duplicate migration version 2/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

interface Engine {
  name: string;
  driver(schema: string): SqlDriver;
  dispose(): Promise<void>;
}

function pgliteEngine(): Engine {
  const db = templatePglite();
  let instance: PGlite | undefined;
  return {
    name: 'pglite',
    driver(schema) {
      return {
        kind: 'pglite',
        transaction: async (work) => {
          instance ??= await db;
          return new PgliteDriver(instance, schema).transaction(work);
        },
        close: async () => {},
      };
    },
    async dispose() {
      await (await db).close();
    },
  };
}

function postgresEngine(): Engine {
  const pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 4 });
  const schemas: string[] = [];
  return {
    name: 'postgres',
    driver(schema) {
      schemas.push(schema);
      return new PgDriver(pool, schema);
    },
    async dispose() {
      await pool.end();
      await dropSchemas(schemas);
    },
  };
}

async function refusal(promise: Promise<unknown>): Promise<[StoreOpenFailure, string]> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StoreOpenError);
  return [(error as StoreOpenError).reason, (error as Error).message];
}

const engines: [string, () => Engine][] = [
  ['pglite', pgliteEngine],
  ['postgres', postgresEngine],
];

describe.each(engines)('runMigrations on %s', (name, create) => {
  const skip = name === 'postgres' && !withPostgres;
  let engine: Engine;
  beforeAll(() => {
    if (!skip) engine = create();
  });
  afterAll(async () => {
    if (!skip) await engine.dispose();
  });

  /** A driver on a fresh schema, and a way to run SQL there. */
  const fresh = () => {
    const schema = testSchema(`mig_${name}`);
    const driver = engine.driver(schema);
    const sql = (script: string) => driver.transaction((c) => c.exec(script));
    const versions = () =>
      driver.transaction((c) =>
        c.query<{ version: number }>('SELECT version FROM keyhold_migrations ORDER BY version'),
      );
    return { schema, driver, sql, versions };
  };

  it.skipIf(skip)('applies every migration once; a restart applies nothing', async () => {
    const { schema, driver, versions } = fresh();
    expect(await runMigrations(driver, { schema })).toEqual({
      applied: shipped.map((m) => m.version),
      version: LATEST,
    });
    expect(await runMigrations(driver, { schema })).toEqual({ applied: [], version: LATEST });
    expect(await versions()).toEqual(SHIPPED_VERSIONS);
  });

  it.skipIf(skip)('an upgrade applies only the new migrations, in order', async () => {
    const { schema, driver, sql, versions } = fresh();
    await runMigrations(driver, { schema });
    const upgraded = [
      ...shipped,
      extra(AFTER, 'ALTER TABLE t2 ADD COLUMN b int;'),
      extra(NEXT, 'CREATE TABLE t2 (a int);'),
    ].sort((a, b) => a.version - b.version);
    expect(await runMigrations(driver, { schema, migrations: upgraded })).toEqual({
      applied: [NEXT, AFTER],
      version: AFTER,
    });
    expect(await versions()).toEqual([...SHIPPED_VERSIONS, { version: NEXT }, { version: AFTER }]);
    await sql('INSERT INTO t2 (a, b) VALUES (1, 2)');
  });

  it.skipIf(skip)('a failing migration leaves the database as it was', async () => {
    const { schema, driver, versions } = fresh();
    await runMigrations(driver, { schema });
    const broken = [...shipped, extra(NEXT, 'CREATE TABLE t2 (a int);'), extra(AFTER, 'NOT SQL;')];
    await expect(runMigrations(driver, { schema, migrations: broken })).rejects.toThrow();
    expect(await versions()).toEqual(SHIPPED_VERSIONS);
    const tables = await driver.transaction((c) =>
      c.query("SELECT 1 FROM pg_tables WHERE schemaname = $1 AND tablename = 't2'", [schema]),
    );
    expect(tables).toEqual([]);
  });

  it.skipIf(skip)('refuses a database newer than the code', async () => {
    const { schema, driver } = fresh();
    await runMigrations(driver, { schema, migrations: [...shipped, extra(NEXT, 'SELECT 1;')] });
    const [reason, message] = await refusal(runMigrations(driver, { schema }));
    expect(reason).toBe('newer-schema');
    expect(message).toContain(`is at migration ${NEXT}, newer than this Keyhold knows (${LATEST})`);
  });

  it.skipIf(skip)(
    'upgrades a version-2 database: its wallet accounts read exported: false',
    async () => {
      const { schema, driver, sql, versions } = fresh();
      const upToTwo = shipped.filter((m) => m.version <= 2);
      const later = shipped.filter((m) => m.version > 2).map((m) => m.version);
      expect(later[0]).toBe(3);
      expect(await runMigrations(driver, { schema, migrations: upToTwo })).toEqual({
        applied: [1, 2],
        version: 2,
      });
      // Rows as Keyhold at version 2 wrote them (no exported column), one wallet exported.
      await sql(
        `INSERT INTO wallets (organization_id, wallet_id, wallet_name, seed, mnemonic_length,
                            exported, imported, created_at, updated_at)
       VALUES ('o', 'w1', 'Treasury', 'sealed:s', 12, true, false, 1, 1);
       INSERT INTO wallet_accounts (organization_id, wallet_id, wallet_account_id, curve,
                                    path_format, path, address_format, address, address_key,
                                    public_key, key, created_at, updated_at)
       VALUES ('o', 'w1', 'a1', 'CURVE_SECP256K1', 'PATH_FORMAT_BIP32', 'm/0', 'ADDRESS_FORMAT_ETHEREUM',
               '0xAa01', '0xaa01', '02p1', 'sealed:k1', 1, 2),
              ('o', 'w2', 'a2', 'CURVE_ED25519', 'PATH_FORMAT_BIP32', 'm/1', 'ADDRESS_FORMAT_SOLANA',
               'So1', 'So1', 'p2', 'sealed:k2', 3, 4);`,
      );

      expect(await runMigrations(driver, { schema })).toEqual({ applied: later, version: LATEST });
      expect(await versions()).toEqual(SHIPPED_VERSIONS);
      const column = await driver.transaction((c) =>
        c.query(
          `SELECT data_type, is_nullable, column_default FROM information_schema.columns
          WHERE table_schema = $1 AND table_name = 'wallet_accounts' AND column_name = 'exported'`,
          [schema],
        ),
      );
      expect(column).toEqual([
        { data_type: 'boolean', is_nullable: 'NO', column_default: 'false' },
      ]);

      const store = new SqlStore(driver);
      const accounts = await store.transaction((t) => t.walletAccounts.list('o'));
      expect(accounts).toEqual([
        {
          organizationId: 'o',
          walletId: 'w1',
          walletAccountId: 'a1',
          curve: 'CURVE_SECP256K1',
          pathFormat: 'PATH_FORMAT_BIP32',
          path: 'm/0',
          addressFormat: 'ADDRESS_FORMAT_ETHEREUM',
          address: '0xAa01',
          publicKey: '02p1',
          key: 'sealed:k1',
          exported: false,
          createdAt: 1,
          updatedAt: 2,
        },
        expect.objectContaining({ walletAccountId: 'a2', exported: false, updatedAt: 4 }),
      ]);
      // The upgraded rows take the new flag; the wallet's own flag is unchanged.
      await store.transaction((t) => t.walletAccounts.markExported('o', 'a2', 9));
      const after = await store.transaction(async (t) => ({
        a2: await t.walletAccounts.findByPath('o', 'w2', 'm/1'),
        wallet: await t.wallets.get('o', 'w1'),
      }));
      expect(after.a2).toMatchObject({ exported: true, updatedAt: 9 });
      expect(after.wallet).toMatchObject({ exported: true });

      // Keyhold at version 2 refuses the upgraded database rather than misread it.
      const [reason, message] = await refusal(
        runMigrations(driver, { schema, migrations: upToTwo }),
      );
      expect(reason).toBe('newer-schema');
      expect(message).toContain(`is at migration ${LATEST}, newer than this Keyhold knows (2)`);
    },
  );

  it.skipIf(skip)(
    'upgrades a version-6 database: its webhook endpoints read without a disabled reason and count failures from 0',
    async () => {
      const { schema, driver, sql } = fresh();
      const upToSix = shipped.filter((m) => m.version <= 6);
      await runMigrations(driver, { schema, migrations: upToSix });
      await sql(
        `INSERT INTO webhook_endpoints (organization_id, endpoint_id, url, name, is_active,
                                       subscriptions, created_at, updated_at)
         VALUES ('o', 'e1', 'https://hooks.example.com/', 'hook', true,
                 '[{"eventType":"ACTIVITY_UPDATES","isActive":true}]', 1, 2);`,
      );
      expect((await runMigrations(driver, { schema })).applied).toContain(7);
      const store = new SqlStore(driver);
      expect(await store.transaction((t) => t.webhookEndpoints.get('o', 'e1'))).toEqual({
        organizationId: 'o',
        endpointId: 'e1',
        url: 'https://hooks.example.com/',
        name: 'hook',
        isActive: true,
        subscriptions: [{ eventType: 'ACTIVITY_UPDATES', isActive: true }],
        createdAt: 1,
        updatedAt: 2,
      });
      expect(await store.endpointFailed('o', 'e1')).toBe(1);
    },
  );

  it.skipIf(skip)('refuses an applied migration that changed, and a gap', async () => {
    const { schema, driver, sql } = fresh();
    await runMigrations(driver, { schema });
    await sql("UPDATE keyhold_migrations SET checksum = 'edited'");
    expect((await refusal(runMigrations(driver, { schema })))[0]).toBe('migration-mismatch');

    const other = fresh();
    const two = extra(NEXT, 'SELECT 2;');
    const three = extra(AFTER, 'SELECT 3;');
    await runMigrations(other.driver, { schema: other.schema, migrations: [...shipped, three] });
    const [reason, message] = await refusal(
      runMigrations(other.driver, { schema: other.schema, migrations: [...shipped, two, three] }),
    );
    expect(reason).toBe('migration-mismatch');
    expect(message).toContain(`migration ${NEXT} is missing`);
  });

  it.skipIf(skip)('refuses a schema with tables of someone else, creating nothing', async () => {
    const { schema, driver } = fresh();
    await driver.transaction((c) =>
      c.exec(`CREATE SCHEMA "${schema}"; CREATE TABLE "${schema}".invoices (id int);`),
    );
    const [reason, message] = await refusal(runMigrations(driver, { schema }));
    expect(reason).toBe('foreign');
    expect(message).toContain('not a Keyhold database');
    const tables = await driver.transaction((c) =>
      c.query<{ tablename: string }>('SELECT tablename FROM pg_tables WHERE schemaname = $1', [
        schema,
      ]),
    );
    expect(tables).toEqual([{ tablename: 'invoices' }]);
  });

  it.skipIf(skip)('refuses a Keyhold database with a missing table', async () => {
    const { schema, driver, sql } = fresh();
    await runMigrations(driver, { schema });
    await sql('DROP TABLE wallet_accounts');
    const [reason, message] = await refusal(runMigrations(driver, { schema }));
    expect(reason).toBe('corrupt');
    expect(message).toContain('wallet_accounts');
  });
});

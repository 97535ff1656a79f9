/**
 * Versioned migrations: `migrations/NNNN_name.sql`, applied in version order at start, all
 * pending ones in one transaction, each recorded in `keyhold_migrations` with a checksum.
 * A transaction-scoped advisory lock serializes instances that start together. The runner
 * refuses a database that is newer than the code, one whose applied migrations differ from
 * the files, and a schema that holds tables but is not a Keyhold database.
 * @module
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { quoteSchema, tablesAtVersion } from './schema.js';
import type { SqlClient, SqlDriver } from './sql-client.js';
import { StoreOpenError } from './store-open-error.js';

export interface Migration {
  version: number;
  /** The file name without version and extension, e.g. `initial`. */
  name: string;
  sql: string;
  /** sha256 hex of the file, line endings normalized to LF. */
  checksum: string;
}

export interface MigrationReport {
  /** Versions applied by this run, ascending. */
  applied: number[];
  /** The version the database is at now. */
  version: number;
}

const FILE_NAME = /^(\d{4})_([a-z0-9_]+)\.sql$/;

/** Advisory lock class for migrations ("KH" + "mg"); the second key is hashtext(schema). */
const MIGRATION_LOCK_CLASS = 0x4b486d67;

/**
 * The migration directory: beside this module in the sources; from the compiled `dist/`,
 * the `src/migrations` the package ships (tsc does not copy .sql files).
 */
function defaultDirectory(): string {
  const candidates = [
    new URL('./migrations/', import.meta.url),
    new URL('../src/migrations/', import.meta.url),
  ];
  for (const url of candidates) {
    const path = fileURLToPath(url);
    if (existsSync(path)) return path;
  }
  throw new Error('@keyhold/store-postgres: migrations directory not found');
}

/** Reads `NNNN_name.sql` files, sorted by version; duplicate versions are an error. */
export function loadMigrations(directory: string = defaultDirectory()): Migration[] {
  const migrations: Migration[] = [];
  for (const file of readdirSync(directory)) {
    const match = FILE_NAME.exec(file);
    if (!match) continue;
    const sql = readFileSync(`${directory}/${file}`, 'utf8').replace(/\r\n/g, '\n');
    migrations.push({
      version: Number(match[1]),
      name: match[2]!,
      sql,
      checksum: createHash('sha256').update(sql).digest('hex'),
    });
  }
  migrations.sort((a, b) => a.version - b.version);
  for (let i = 1; i < migrations.length; i++) {
    if (migrations[i]!.version === migrations[i - 1]!.version) {
      throw new Error(`duplicate migration version ${migrations[i]!.version} in ${directory}`);
    }
  }
  return migrations;
}

export interface RunMigrationsOptions {
  /** The schema that holds (or will hold) the Keyhold tables. */
  schema: string;
  /** Defaults to the files shipped with this package. */
  migrations?: readonly Migration[];
}

interface AppliedRow {
  version: number;
  name: string;
  checksum: string;
}

/**
 * Brings the schema to the newest known version, atomically, or throws a StoreOpenError
 * saying why the database cannot be used. Safe to call from several instances at once.
 */
export async function runMigrations(
  driver: SqlDriver,
  options: RunMigrationsOptions,
): Promise<MigrationReport> {
  const { schema } = options;
  const quoted = quoteSchema(schema);
  const migrations = options.migrations ?? loadMigrations();
  const known = migrations.at(-1)?.version ?? 0;
  return driver.transaction(async (client) => {
    // A migration may rewrite a large table: the per-statement bound of requests is lifted.
    await client.exec('SET LOCAL statement_timeout = 0');
    await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [
      MIGRATION_LOCK_CLASS,
      schema,
    ]);
    await refuseForeignSchema(client, schema);
    await client.exec(
      `CREATE SCHEMA IF NOT EXISTS ${quoted};
       SET LOCAL search_path TO ${quoted};
       CREATE TABLE IF NOT EXISTS keyhold_migrations (
         version integer PRIMARY KEY,
         name text NOT NULL,
         checksum text NOT NULL,
         applied_at timestamptz NOT NULL DEFAULT now()
       );`,
    );
    const applied = await client.query<AppliedRow>(
      'SELECT version, name, checksum FROM keyhold_migrations ORDER BY version',
    );
    const newest = applied.at(-1)?.version ?? 0;
    if (newest > known) {
      throw new StoreOpenError(
        'newer-schema',
        `the database (schema ${schema}) is at migration ${newest}, newer than this Keyhold knows ` +
          `(${known}); upgrade Keyhold, or restore a backup taken before the upgrade`,
      );
    }
    const byVersion = new Map(migrations.map((m) => [m.version, m]));
    for (const row of applied) {
      const file = byVersion.get(row.version);
      if (!file || file.checksum !== row.checksum) {
        throw new StoreOpenError(
          'migration-mismatch',
          `migration ${row.version} (${row.name}) applied to schema ${schema} differs from the ` +
            `migration files of this Keyhold; released migrations must never change`,
        );
      }
    }
    const done = new Set(applied.map((row) => row.version));
    const pending = migrations.filter((m) => !done.has(m.version));
    if (pending.length > 0 && pending[0]!.version < newest) {
      throw new StoreOpenError(
        'migration-mismatch',
        `migration ${pending[0]!.version} is missing from schema ${schema}, which is already at ` +
          `${newest}; out-of-order migrations are refused`,
      );
    }
    for (const migration of pending) {
      await client.exec(migration.sql);
      await client.query(
        'INSERT INTO keyhold_migrations (version, name, checksum) VALUES ($1, $2, $3)',
        [migration.version, migration.name, migration.checksum],
      );
    }
    const version = Math.max(newest, known);
    await refuseIncompleteSchema(client, schema, version);
    return { applied: pending.map((m) => m.version), version };
  });
}

/** A schema with tables but no `keyhold_migrations` belongs to someone else. */
async function refuseForeignSchema(client: SqlClient, schema: string): Promise<void> {
  const rows = await client.query<{ tables: number; keyhold: boolean }>(
    `SELECT count(*)::int AS tables,
            coalesce(bool_or(c.relname = 'keyhold_migrations'), false) AS keyhold
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'v', 'm', 'f')`,
    [schema],
  );
  const { tables, keyhold } = rows[0]!;
  if (tables > 0 && !keyhold) {
    throw new StoreOpenError(
      'foreign',
      `schema ${schema} holds ${tables} table(s) but no keyhold_migrations table: it is not a ` +
        `Keyhold database; use an empty database or another schema`,
    );
  }
}

/** After migrating, every table of that version must be there; a missing one means damage. */
async function refuseIncompleteSchema(
  client: SqlClient,
  schema: string,
  version: number,
): Promise<void> {
  const expected = tablesAtVersion(version);
  const rows = await client.query<{ relname: string }>(
    `SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND c.relkind IN ('r', 'p') AND c.relname = ANY($2::text[])`,
    [schema, expected],
  );
  const present = new Set(rows.map((r) => r.relname));
  const missing = expected.filter((t) => !present.has(t));
  if (missing.length > 0) {
    throw new StoreOpenError(
      'corrupt',
      `schema ${schema} is a Keyhold database with missing tables (${missing.join(', ')}); ` +
        `restore it from a backup`,
    );
  }
}

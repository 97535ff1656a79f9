/**
 * @keyhold/store-postgres — the SQL Store adapter: one implementation of the Store port
 * over a `pg` pool (a Postgres server shared by many instances) or embedded PGlite (in
 * memory or a data directory), with versioned migrations applied at start.
 * @module
 */
export {
  loadMigrations,
  type Migration,
  type MigrationReport,
  type RunMigrationsOptions,
  runMigrations,
} from './migrations.js';
export { createPostgresStore, PgDriver, type PostgresStoreOptions } from './pg-driver.js';
export { createPgliteStore, PgliteDriver, type PgliteStoreOptions } from './pglite-driver.js';
export { PgliteWorkerDriver } from './pglite-worker-driver.js';
export { CONSTRAINT_NAMES, DEFAULT_SCHEMA, KEYHOLD_TABLES } from './schema.js';
export {
  type GroupedWrite,
  type Row,
  type SqlClient,
  type SqlDriver,
  TransactionAbortedError,
  translateDatabaseError,
  type WriteGroup,
} from './sql-client.js';
export { SqlStore } from './sql-store.js';
export { StoreOpenError, type StoreOpenFailure } from './store-open-error.js';

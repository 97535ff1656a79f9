/**
 * Names the SQL schema defines and how they map onto the Store port: the constraint map
 * that turns a Postgres unique violation into the port's StoreConflictError, the tables a
 * migrated database must have, and the rules for a schema name.
 * @module
 */
import { storeTableList, uniqueConstraints } from '@keyhold/store-tables';

/**
 * Real constraint (index) names of the migrations → the port's constraint names, from the
 * table specs (the migrations must use the names the specs give).
 */
export const CONSTRAINT_NAMES: Readonly<Record<string, string>> = Object.fromEntries(
  storeTableList()
    .flatMap((spec) => uniqueConstraints(spec))
    .map((c) => [c.sqlName, c.name]),
);

/** The migration version that creates each table (0: the runner's own). */
const TABLE_VERSIONS = {
  keyhold_migrations: 0,
  organizations: 1,
  users: 1,
  api_keys: 1,
  wallets: 1,
  wallet_accounts: 1,
  private_keys: 1,
  activities: 1,
  policies: 2,
  user_tags: 2,
  private_key_tags: 2,
  policy_evaluations: 2,
  webhook_endpoints: 4,
  webhook_deliveries: 4,
  authenticators: 8,
  otps: 10,
  audit_entries: 15,
  audit_heads: 15,
  invitations: 11,
  oauth2_credentials: 13,
  payments: 14,
  oauth_providers: 12,
  smart_contract_interfaces: 17,
  organization_documents: 18,
  send_transactions: 16,
  gas_usage_configs: 16,
  vault_state: 19,
  fiat_on_ramp_credentials: 20,
  on_ramp_transactions: 20,
} as const;

export type KeyholdTable = keyof typeof TABLE_VERSIONS;

/** The tables a Keyhold database holds once every known migration has run. */
export const KEYHOLD_TABLES = Object.keys(TABLE_VERSIONS) as readonly KeyholdTable[];

/** The tables a Keyhold database at migration `version` holds. */
export function tablesAtVersion(version: number): KeyholdTable[] {
  return KEYHOLD_TABLES.filter((t) => TABLE_VERSIONS[t] <= version);
}

export const DEFAULT_SCHEMA = 'public';

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** Checks a schema name (lower-case identifier, at most 63 bytes) and quotes it for SQL. */
export function quoteSchema(schema: string): string {
  if (!SCHEMA_NAME.test(schema)) {
    throw new TypeError(
      `invalid schema name ${JSON.stringify(schema)}: use lower-case letters, digits and _`,
    );
  }
  return `"${schema}"`;
}

/**
 * Names the SQL schema defines and how they map onto the Store port: the constraint map
 * that turns a Postgres unique violation into the port's StoreConflictError, the tables a
 * migrated database must have, and the rules for a schema name.
 * @module
 */

/** Real constraint (index) names of the migrations → the port's constraint names. */
export const CONSTRAINT_NAMES: Readonly<Record<string, string>> = {
  organizations_pkey: 'organization_pkey',
  users_pkey: 'user_pkey',
  api_keys_pkey: 'api_key_pkey',
  api_keys_public_key_key: 'api_key_public_key',
  wallets_pkey: 'wallet_pkey',
  wallet_accounts_pkey: 'wallet_account_pkey',
  wallet_accounts_path_key: 'wallet_account_path',
  private_keys_pkey: 'private_key_pkey',
  activities_pkey: 'activity_pkey',
  activities_fingerprint_key: 'activity_fingerprint',
  // 0002
  policies_pkey: 'policy_pkey',
  policies_name_key: 'policy_name',
  user_tags_pkey: 'user_tag_pkey',
  user_tags_name_key: 'user_tag_name',
  private_key_tags_pkey: 'private_key_tag_pkey',
  private_key_tags_name_key: 'private_key_tag_name',
  policy_evaluations_pkey: 'policy_evaluation_pkey',
};

/** The tables a Keyhold database holds once every known migration has run. */
export const KEYHOLD_TABLES = [
  'keyhold_migrations',
  'organizations',
  'users',
  'api_keys',
  'wallets',
  'wallet_accounts',
  'private_keys',
  'activities',
  'policies',
  'user_tags',
  'private_key_tags',
  'policy_evaluations',
] as const;

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

/**
 * Every table spec, by the name of its repository in a Store transaction, for the adapters
 * (one import for all their tables) and for what concerns every table (the SQL
 * constraint-name map, the test that holds the migrations to the specs).
 * @module
 */
import type { TableSpec } from './table-spec.js';
import { ACTIVITIES } from './tables/activities.js';
import { API_KEYS } from './tables/api-keys.js';
import { AUDIT_ENTRIES, AUDIT_HEADS } from './tables/audit-log.js';
import { AUTHENTICATORS } from './tables/authenticators.js';
import { FIAT_ON_RAMP_CREDENTIALS } from './tables/fiat-on-ramp-credentials.js';
import { INVITATIONS } from './tables/invitations.js';
import { OAUTH_PROVIDERS } from './tables/oauth-providers.js';
import { OAUTH2_CREDENTIALS } from './tables/oauth2-credentials.js';
import { ON_RAMP_TRANSACTIONS } from './tables/on-ramp-transactions.js';
import { ORGANIZATION_DOCUMENTS } from './tables/organization-documents.js';
import { ORGANIZATIONS } from './tables/organizations.js';
import { OTPS } from './tables/otps.js';
import { PAYMENTS } from './tables/payments.js';
import { POLICIES } from './tables/policies.js';
import { POLICY_EVALUATIONS } from './tables/policy-evaluations.js';
import { PRIVATE_KEYS } from './tables/private-keys.js';
import { GAS_USAGE_CONFIGS, SEND_TRANSACTIONS } from './tables/send-transactions.js';
import { SMART_CONTRACT_INTERFACES } from './tables/smart-contract-interfaces.js';
import { PRIVATE_KEY_TAGS, USER_TAGS } from './tables/tags.js';
import { USERS } from './tables/users.js';
import { WALLET_ACCOUNTS } from './tables/wallet-accounts.js';
import { WALLETS } from './tables/wallets.js';
import { WEBHOOK_DELIVERIES } from './tables/webhook-deliveries.js';
import { WEBHOOK_ENDPOINTS } from './tables/webhook-endpoints.js';

/**
 * The specs of every table behind the Store port, by repository name, in migration order.
 * @example
 * new SqlTable(STORE_TABLES.users);
 * Object.values(STORE_TABLES).map((t) => t.table); // ['organizations', 'users', …]
 */
export const STORE_TABLES = {
  organizations: ORGANIZATIONS,
  users: USERS,
  apiKeys: API_KEYS,
  wallets: WALLETS,
  walletAccounts: WALLET_ACCOUNTS,
  privateKeys: PRIVATE_KEYS,
  activities: ACTIVITIES,
  policies: POLICIES,
  userTags: USER_TAGS,
  privateKeyTags: PRIVATE_KEY_TAGS,
  policyEvaluations: POLICY_EVALUATIONS,
  webhookEndpoints: WEBHOOK_ENDPOINTS,
  webhookDeliveries: WEBHOOK_DELIVERIES,
  authenticators: AUTHENTICATORS,
  otps: OTPS,
  auditEntries: AUDIT_ENTRIES,
  auditHeads: AUDIT_HEADS,
  invitations: INVITATIONS,
  oauth2Credentials: OAUTH2_CREDENTIALS,
  smartContractInterfaces: SMART_CONTRACT_INTERFACES,
  fiatOnRampCredentials: FIAT_ON_RAMP_CREDENTIALS,
  onRampTransactions: ON_RAMP_TRANSACTIONS,
  payments: PAYMENTS,
  oauthProviders: OAUTH_PROVIDERS,
  organizationDocuments: ORGANIZATION_DOCUMENTS,
  sendTransactions: SEND_TRANSACTIONS,
  gasUsageConfigs: GAS_USAGE_CONFIGS,
} as const;

/**
 * Every spec, in migration order.
 * @example
 * for (const spec of storeTableList()) console.log(spec.table);
 */
export function storeTableList(): readonly TableSpec<never>[] {
  return Object.values(STORE_TABLES) as readonly TableSpec<never>[];
}

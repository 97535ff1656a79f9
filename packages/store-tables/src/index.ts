/**
 * @keyhold/store-tables — the declarative specs of the tables behind the Store port of
 * @keyhold/activities, one per table, from which the store adapters build their repositories.
 * @module
 */

export { STORE_TABLES, storeTableList } from './store-tables.js';
export {
  type ColumnDeclaration,
  type ColumnType,
  type DerivedColumn,
  type FieldColumn,
  fieldColumns,
  keyFields,
  type TableRepository,
  type TableSpec,
  type UniqueConstraint,
  uniqueConstraints,
} from './table-spec.js';
export { ACTIVITIES } from './tables/activities.js';
export { API_KEYS } from './tables/api-keys.js';
export { AUTHENTICATORS } from './tables/authenticators.js';
export { FIAT_ON_RAMP_CREDENTIALS } from './tables/fiat-on-ramp-credentials.js';
export { INVITATIONS } from './tables/invitations.js';
export { OAUTH_PROVIDERS } from './tables/oauth-providers.js';
export { OAUTH2_CREDENTIALS } from './tables/oauth2-credentials.js';
export { ON_RAMP_TRANSACTIONS } from './tables/on-ramp-transactions.js';
export { ORGANIZATIONS } from './tables/organizations.js';
export { OTPS } from './tables/otps.js';
export { PAYMENTS } from './tables/payments.js';
export { POLICIES } from './tables/policies.js';
export { POLICY_EVALUATIONS } from './tables/policy-evaluations.js';
export { PRIVATE_KEYS } from './tables/private-keys.js';
export { SMART_CONTRACT_INTERFACES } from './tables/smart-contract-interfaces.js';
export { PRIVATE_KEY_TAGS, USER_TAGS } from './tables/tags.js';
export { USERS } from './tables/users.js';
export { WALLET_ACCOUNTS } from './tables/wallet-accounts.js';
export { WALLETS } from './tables/wallets.js';
export { WEBHOOK_DELIVERIES } from './tables/webhook-deliveries.js';
export { WEBHOOK_ENDPOINTS } from './tables/webhook-endpoints.js';

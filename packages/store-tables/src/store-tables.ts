/**
 * Every table spec, for what concerns them all (the SQL constraint-name map, tests that hold
 * the migrations to the specs).
 * @module
 */
import type { TableSpec } from './table-spec.js';
import { ACTIVITIES } from './tables/activities.js';
import { API_KEYS } from './tables/api-keys.js';
import { ORGANIZATIONS } from './tables/organizations.js';
import { POLICIES } from './tables/policies.js';
import { POLICY_EVALUATIONS } from './tables/policy-evaluations.js';
import { PRIVATE_KEYS } from './tables/private-keys.js';
import { PRIVATE_KEY_TAGS, USER_TAGS } from './tables/tags.js';
import { USERS } from './tables/users.js';
import { WALLET_ACCOUNTS } from './tables/wallet-accounts.js';
import { WALLETS } from './tables/wallets.js';
import { WEBHOOK_DELIVERIES } from './tables/webhook-deliveries.js';
import { WEBHOOK_ENDPOINTS } from './tables/webhook-endpoints.js';

/**
 * The specs of every table behind the Store port, in migration order.
 * @example
 * STORE_TABLES.map((t) => t.table); // ['organizations', 'users', …]
 */
export const STORE_TABLES: readonly TableSpec<never>[] = [
  ORGANIZATIONS,
  USERS,
  API_KEYS,
  WALLETS,
  WALLET_ACCOUNTS,
  PRIVATE_KEYS,
  ACTIVITIES,
  POLICIES,
  USER_TAGS,
  PRIVATE_KEY_TAGS,
  POLICY_EVALUATIONS,
  WEBHOOK_ENDPOINTS,
  WEBHOOK_DELIVERIES,
] as readonly TableSpec<never>[];

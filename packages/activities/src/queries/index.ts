/**
 * The handler of every query Keyhold serves, by path name.
 * @module
 */
import { getActivity, listActivities } from './activity-queries.js';
import {
  getPrivateKey,
  getWallet,
  getWalletAccount,
  listPrivateKeys,
  listWalletAccounts,
  listWallets,
} from './key-queries.js';
import {
  getApiKey,
  getApiKeys,
  getOrganization,
  getUser,
  listUsers,
  whoami,
} from './organization-queries.js';
import {
  getPolicy,
  getPolicyEvaluations,
  listPolicies,
  listPrivateKeyTags,
  listUserTags,
} from './policy-queries.js';
import type { QueryHandler } from './query-handler.js';
import { listSubOrganizations } from './sub-organization-queries.js';
import { listWebhookEndpoints } from './webhook-queries.js';

export type { QueryContext, QueryHandler } from './query-handler.js';

export const QUERY_HANDLERS: Readonly<Record<string, QueryHandler>> = {
  whoami,
  get_organization: getOrganization,
  get_activity: getActivity,
  list_activities: listActivities,
  get_user: getUser,
  list_users: listUsers,
  get_api_keys: getApiKeys,
  get_api_key: getApiKey,
  list_wallets: listWallets,
  get_wallet: getWallet,
  list_wallet_accounts: listWalletAccounts,
  get_wallet_account: getWalletAccount,
  list_private_keys: listPrivateKeys,
  get_private_key: getPrivateKey,
  list_policies: listPolicies,
  get_policy: getPolicy,
  get_policy_evaluations: getPolicyEvaluations,
  list_user_tags: listUserTags,
  list_private_key_tags: listPrivateKeyTags,
  list_webhook_endpoints: listWebhookEndpoints,
  list_suborgs: listSubOrganizations,
};

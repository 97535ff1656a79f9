/**
 * The handler of every query Keyhold serves, by path name.
 * @module
 */
import { getActivity, listActivities } from './activity-queries.js';
import { getOnRampTransactionStatus, listFiatOnRampCredentials } from './fiat-on-ramp-queries.js';
import {
  getPrivateKey,
  getWallet,
  getWalletAccount,
  listPrivateKeys,
  listWalletAccounts,
  listWallets,
} from './key-queries.js';
import { getOauth2Credential, listOauth2Credentials } from './oauth2-queries.js';
import {
  getApiKey,
  getApiKeys,
  getAuthenticator,
  getAuthenticators,
  getOauthProviders,
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
import { getBootProof, getLatestBootProof, listAppProofs } from './proof-queries.js';
import type { QueryHandler, QueryHandlerMap } from './query-handler.js';
import {
  getGasUsage,
  getNonces,
  getSendTransactionStatus,
  getWalletAddressBalances,
} from './send-transaction-queries.js';
import { getOrganizationConfigs } from './settings-queries.js';
import {
  getSmartContractInterface,
  listSmartContractInterfaces,
} from './smart-contract-interface-queries.js';
import { listSubOrganizations, listVerifiedSubOrganizations } from './sub-organization-queries.js';
import { getTvcApp, getTvcDeployment, listTvcAppDeployments, listTvcApps } from './tvc-queries.js';
import { listWebhookEndpoints } from './webhook-queries.js';

export type {
  QueryContext,
  QueryHandler,
  QueryHandlerMap,
  QueryHandlerOf,
  ValidatedQuery,
} from './query-handler.js';

/**
 * Query handlers by path name, each checked against its query's body type.
 * @example
 * await HANDLERS_BY_QUERY.get_wallet(ctx, { organizationId, walletId });
 */
export const HANDLERS_BY_QUERY: QueryHandlerMap = {
  whoami,
  get_organization: getOrganization,
  get_activity: getActivity,
  list_activities: listActivities,
  get_user: getUser,
  list_users: listUsers,
  get_api_keys: getApiKeys,
  get_api_key: getApiKey,
  get_authenticators: getAuthenticators,
  get_authenticator: getAuthenticator,
  get_oauth_providers: getOauthProviders,
  list_wallets: listWallets,
  get_wallet: getWallet,
  list_wallet_accounts: listWalletAccounts,
  get_wallet_account: getWalletAccount,
  get_send_transaction_status: getSendTransactionStatus,
  get_nonces: getNonces,
  get_wallet_address_balances: getWalletAddressBalances,
  get_gas_usage: getGasUsage,
  list_private_keys: listPrivateKeys,
  get_private_key: getPrivateKey,
  list_policies: listPolicies,
  get_policy: getPolicy,
  get_policy_evaluations: getPolicyEvaluations,
  list_user_tags: listUserTags,
  list_private_key_tags: listPrivateKeyTags,
  list_webhook_endpoints: listWebhookEndpoints,
  get_oauth2_credential: getOauth2Credential,
  list_oauth2_credentials: listOauth2Credentials,
  list_fiat_on_ramp_credentials: listFiatOnRampCredentials,
  get_onramp_transaction_status: getOnRampTransactionStatus,
  get_smart_contract_interface: getSmartContractInterface,
  list_smart_contract_interfaces: listSmartContractInterfaces,
  list_suborgs: listSubOrganizations,
  list_verified_suborgs: listVerifiedSubOrganizations,
  get_organization_configs: getOrganizationConfigs,
  list_app_proofs: listAppProofs,
  get_boot_proof: getBootProof,
  get_latest_boot_proof: getLatestBootProof,
  get_tvc_app: getTvcApp,
  list_tvc_apps: listTvcApps,
  get_tvc_deployment: getTvcDeployment,
  list_tvc_app_deployments: listTvcAppDeployments,
};

/**
 * The same handlers looked up by a name known only at run time. Their body types are
 * forgotten here, and only here: the service passes the body after `validateQuery(name, …)`
 * has checked it against the schema `QueryOf<name>` is read from.
 * @example
 * const handler = Object.hasOwn(QUERY_HANDLERS, name) ? QUERY_HANDLERS[name] : undefined;
 */
export const QUERY_HANDLERS: Readonly<Record<string, QueryHandler>> =
  HANDLERS_BY_QUERY as unknown as Readonly<Record<string, QueryHandler>>;

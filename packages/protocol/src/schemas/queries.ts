/**
 * Request schemas of the query endpoints (`/public/v1/query/<name>`). Unknown members are
 * tolerated here (`openObj`): a query body is read, never stored or echoed.
 * @module
 */
import { ACTIVITY_STATUSES, ACTIVITY_TYPES } from '../enums.js';
import {
  arr,
  bool,
  enumOf,
  matching,
  openObj,
  type Properties,
  type Schema,
  str,
  unboundedStr,
  uuid,
  withError,
} from './schema-builders.js';

/** `paginationOptions {limit, before, after}`; limit is a decimal string 1–100. */
export const paginationOptions = openObj({
  limit: matching('^(100|[1-9][0-9]?)$'),
  before: str({ maxLength: 64 }),
  after: str({ maxLength: 64 }),
});

/** A query body: `organizationId` (required) and the query's own members. */
const q = <P extends Properties, R extends keyof P & string = never>(
  props: P,
  required: readonly R[] = [],
) => openObj({ organizationId: unboundedStr(), ...props }, ['organizationId', ...required]);

/** `filterType` of list_suborgs (wire-compat §2.6). */
export const SUB_ORG_FILTER_TYPES = [
  'CREDENTIAL_ID',
  'NAME',
  'USERNAME',
  'EMAIL',
  'PHONE_NUMBER',
  'OIDC_TOKEN',
  'WALLET_ACCOUNT_ADDRESS',
  'PUBLIC_KEY',
] as const;

/**
 * Query request schemas by path name: what ajv checks, and (`QueryOf<Name>`) the type of the
 * body a query handler receives.
 * @example
 * validateQuery('get_wallet', body); // checks QUERY_SCHEMAS.get_wallet
 */
export const QUERY_SCHEMAS = {
  whoami: q({}),
  get_organization: q({}),
  get_activity: q({ activityId: uuid() }, ['activityId']),
  list_activities: q({
    filterByStatus: arr(enumOf(ACTIVITY_STATUSES)),
    filterByType: arr(enumOf(ACTIVITY_TYPES), { maxItems: 200 }),
    paginationOptions,
  }),
  get_user: q({ userId: uuid() }, ['userId']),
  list_users: q({}),
  get_api_keys: q({ userId: uuid() }),
  get_api_key: q({ apiKeyId: uuid() }, ['apiKeyId']),
  get_authenticators: q({ userId: uuid() }, ['userId']),
  get_authenticator: q({ authenticatorId: uuid() }, ['authenticatorId']),
  get_oauth_providers: q({ userId: uuid() }),
  list_wallets: q({}),
  get_wallet: q({ walletId: uuid() }, ['walletId']),
  list_wallet_accounts: q({ walletId: uuid(), includeWalletDetails: bool(), paginationOptions }),
  get_wallet_account: q(
    { walletId: uuid(), address: str({ maxLength: 256 }), path: str({ maxLength: 256 }) },
    ['walletId'],
  ),
  list_private_keys: q({}),
  get_send_transaction_status: q({ sendTransactionStatusId: uuid() }, ['sendTransactionStatusId']),
  get_nonces: q(
    {
      address: withError(matching('^0x[0-9a-fA-F]{40}$'), 'INVALID_EVM_ADDRESS'),
      caip2: withError(matching('^eip155:[0-9]{1,20}$'), 'EVM_NETWORK_UNSUPPORTED'),
      nonce: bool(),
      gasStationNonce: bool(),
    },
    ['address', 'caip2'],
  ),
  get_wallet_address_balances: q(
    {
      address: withError(matching('^0x[0-9a-fA-F]{40}$'), 'INVALID_EVM_ADDRESS'),
      caip2: withError(matching('^eip155:[0-9]{1,20}$'), 'EVM_NETWORK_UNSUPPORTED'),
    },
    ['address', 'caip2'],
  ),
  get_gas_usage: q({}),
  get_private_key: q({ privateKeyId: withError(uuid(), 'REQUEST_INVALID') }, ['privateKeyId']),
  list_policies: q({}),
  get_policy: q({ policyId: uuid() }, ['policyId']),
  get_policy_evaluations: q({ activityId: uuid() }, ['activityId']),
  list_user_tags: q({}),
  list_private_key_tags: q({}),
  list_webhook_endpoints: q({}),
  get_oauth2_credential: q({ oauth2CredentialId: uuid() }, ['oauth2CredentialId']),
  list_oauth2_credentials: q({}),
  get_smart_contract_interface: q({ smartContractInterfaceId: uuid() }, [
    'smartContractInterfaceId',
  ]),
  list_smart_contract_interfaces: q({}),
  list_fiat_on_ramp_credentials: q({}),
  get_onramp_transaction_status: q({ transactionId: uuid(), refresh: bool() }, ['transactionId']),
  list_suborgs: q({
    filterType: enumOf(SUB_ORG_FILTER_TYPES),
    filterValue: str({ maxLength: 8192 }),
    paginationOptions,
  }),
  // The sub-organizations whose user proved the contact with a verification token (sign-up).
  list_verified_suborgs: q({
    filterType: enumOf(SUB_ORG_FILTER_TYPES),
    filterValue: str({ maxLength: 8192 }),
    paginationOptions,
  }),
  get_organization_configs: q({}),
  list_app_proofs: q({ activityId: uuid() }, ['activityId']),
  get_boot_proof: q({ ephemeralKey: str({ maxLength: 1024 }) }, ['ephemeralKey']),
  get_latest_boot_proof: q({ appName: str({ maxLength: 256 }) }),
  get_tvc_app: q({ tvcAppId: uuid() }, ['tvcAppId']),
  list_tvc_apps: q({}),
  get_tvc_deployment: q({ deploymentId: uuid() }, ['deploymentId']),
  list_tvc_app_deployments: q({ appId: uuid() }, ['appId']),
} as const satisfies Record<string, Schema>;

/**
 * Names of public endpoints Keyhold knows but does not serve yet, so that a client calling
 * one gets "not supported" (501) rather than "not found" (404).
 * @module
 */
import { ACTIVITY_TYPES } from '@keyhold/protocol';

/** Submit path names derived from every activity type (version suffix removed). */
export const KNOWN_SUBMIT_PATHS: ReadonlySet<string> = new Set(
  ACTIVITY_TYPES.map((t) =>
    t
      .replace(/^ACTIVITY_TYPE_/, '')
      .replace(/_V\d+$/, '')
      .toLowerCase(),
  ),
);

/** Query path names of the public API (wire-compat §2.6). */
export const KNOWN_QUERY_PATHS: ReadonlySet<string> = new Set(
  `get_activity get_api_key get_api_keys get_app_status get_authenticator get_authenticators get_boot_proof
   get_latest_boot_proof get_gas_usage get_mfa_policies get_mfa_policy get_nonces get_oauth2_credential
   get_oauth_providers get_onramp_transaction_status get_organization get_organization_configs get_policy
   get_policy_evaluations get_private_key get_send_transaction_status get_smart_contract_interface get_user
   get_wallet get_wallet_account get_wallet_address_balances list_activities list_app_proofs
   list_fiat_on_ramp_credentials list_oauth2_credentials list_policies list_private_key_tags list_private_keys
   list_smart_contract_interfaces list_suborgs list_user_tags list_users list_verified_suborgs
   list_wallet_accounts list_wallets list_webhook_endpoints whoami`.split(/\s+/),
);

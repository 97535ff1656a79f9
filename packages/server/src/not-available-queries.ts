/**
 * Queries the published client (`@turnkey/http`) calls beyond the interface spec that Keyhold
 * does not serve, each with why: they answer `not available in Keyhold: <name> — <why>`
 * (FAILED_PRECONDITION, 400, errorCode QUERY_NOT_AVAILABLE) rather than "query not supported",
 * so the gap is visible and specific. The README lists them ("Not available").
 * @module
 */

const EARN = 'Earn (yield vaults) is a hosted service; Keyhold has no vaults';
const TVC_RUNTIME =
  'Keyhold keeps TVC apps, deployments and approvals as records but runs no enclaves: there are no logs, provisioning, images or quorum key shares';
const TX_HISTORY = 'transaction history needs a chain indexer; Keyhold keeps none';

/**
 * The queries Keyhold answers as not available, by path name, with the reason each gives.
 * @example
 * NOT_AVAILABLE_QUERIES.get_swap_status; // 'swaps are a hosted service …'
 */
export const NOT_AVAILABLE_QUERIES: Readonly<Record<string, string>> = {
  get_active_policies: 'not implemented; list_policies answers every policy of the organization',
  get_app_status: 'the hosted service status is not Keyhold’s; ask GET /health and GET /ready',
  get_claim_earn_fees_status: EARN,
  get_earn_claim_rewards_status: EARN,
  get_earn_deploy_status: EARN,
  get_earn_deposit_status: EARN,
  get_earn_withdraw_status: EARN,
  list_earn_enabled_vaults: EARN,
  list_earn_positions: EARN,
  list_earn_rewards: EARN,
  list_earn_vaults: EARN,
  get_ip_allowlist:
    'IP allowlists are not implemented; restrict client addresses at your reverse proxy',
  get_mfa_policies:
    'MFA policies are not implemented; require a second approval with a consensus policy',
  get_mfa_policy:
    'MFA policies are not implemented; require a second approval with a consensus policy',
  get_mfa_status:
    'MFA policies are not implemented; require a second approval with a consensus policy',
  get_session_profile:
    'session profiles are not implemented; a session takes its lifetime from its request',
  get_session_profiles:
    'session profiles are not implemented; a session takes its lifetime from its request',
  get_swap_status: 'swaps are a hosted service of the provider’s partners; Keyhold has none',
  get_velocity_control:
    'velocity controls are not implemented; express spending limits as policies',
  list_velocity_controls:
    'velocity controls are not implemented; express spending limits as policies',
  get_tvc_deployment_debug_logs: TVC_RUNTIME,
  get_tvc_deployment_provisioning_details: TVC_RUNTIME,
  get_tvc_qos_versions: TVC_RUNTIME,
  validate_tvc_image: TVC_RUNTIME,
  list_tvc_operators: TVC_RUNTIME,
  list_tvc_quorum_keys: TVC_RUNTIME,
  list_email_events:
    'email delivery events are the hosted mail service’s; Keyhold sends through your SMTP server',
  list_eth_transaction_history: TX_HISTORY,
  list_sol_transaction_history: TX_HISTORY,
  list_secrets: 'secret storage (import and export of arbitrary secrets) is not implemented',
  list_supported_assets: 'asset lists belong to the hosted balances and on-ramp services',
};

/**
 * The wire catalogue of the activities Keyhold executes: for each activity type, its submit
 * path, version-less kind, intent and result keys, and the resource/action pair that policies
 * see. One path accepts every version of its kind, so older and newer clients both work.
 * @module
 */
import type { ActivityType } from './enums.js';

export type ActivityResource =
  | 'ORGANIZATION'
  | 'USER'
  | 'CREDENTIAL'
  | 'WALLET'
  | 'PRIVATE_KEY'
  | 'POLICY'
  | 'WEBHOOK_ENDPOINT'
  | 'AUTH'
  | 'OTP'
  | 'SMART_CONTRACT_INTERFACE'
  | 'ON_RAMP_CREDENTIALS'
  | 'FIAT_TRANSACTION';
export type ActivityAction =
  | 'CREATE'
  | 'UPDATE'
  | 'DELETE'
  | 'SIGN'
  | 'EXPORT'
  | 'IMPORT'
  | 'VERIFY';

export interface ActivityDefinition {
  readonly type: ActivityType;
  /** The type without `ACTIVITY_TYPE_` and version suffix, e.g. `SIGN_RAW_PAYLOAD`. */
  readonly kind: string;
  readonly version: number;
  /** The last path segment: `/public/v1/submit/<path>`. */
  readonly path: string;
  readonly intentKey: string;
  readonly resultKey: string;
  readonly resource: ActivityResource;
  readonly action: ActivityAction;
}

const camel = (snake: string) =>
  snake.toLowerCase().replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

function define(
  kind: string,
  versions: number[],
  resource: ActivityResource,
  action: ActivityAction,
  resultKeyOf: (version: number) => string = () => `${camel(kind)}Result`,
): ActivityDefinition[] {
  return versions.map((version) => ({
    type: `ACTIVITY_TYPE_${kind}${version > 1 ? `_V${version}` : ''}` as ActivityType,
    kind,
    version,
    path: kind.toLowerCase(),
    intentKey: `${camel(kind)}Intent${version > 1 ? `V${version}` : ''}`,
    resultKey: resultKeyOf(version),
    resource,
    action,
  }));
}

/** Every activity definition Keyhold serves. */
export const ACTIVITY_DEFINITIONS: readonly ActivityDefinition[] = [
  ...define('CREATE_USERS', [1, 2, 3, 4], 'USER', 'CREATE'),
  ...define('CREATE_API_ONLY_USERS', [1], 'USER', 'CREATE'),
  ...define('DELETE_USERS', [1], 'USER', 'DELETE'),
  ...define('UPDATE_USER', [1], 'USER', 'UPDATE'),
  ...define('UPDATE_USER_NAME', [1], 'USER', 'UPDATE'),
  ...define('CREATE_API_KEYS', [1, 2], 'CREDENTIAL', 'CREATE'),
  ...define('DELETE_API_KEYS', [1], 'CREDENTIAL', 'DELETE'),
  ...define('UPDATE_ROOT_QUORUM', [1], 'ORGANIZATION', 'UPDATE'),
  ...define('UPDATE_ORGANIZATION_NAME', [1], 'ORGANIZATION', 'UPDATE'),
  ...define('UPDATE_ALLOWED_ORIGINS', [1], 'ORGANIZATION', 'UPDATE'),
  // Both versions answer under `createAuthenticatorsResult`.
  ...define('CREATE_AUTHENTICATORS', [1, 2], 'CREDENTIAL', 'CREATE'),
  ...define('DELETE_AUTHENTICATORS', [1], 'CREDENTIAL', 'DELETE'),
  // V1 (one root authenticator) and V2 answer under the unversioned result key.
  ...define('CREATE_SUB_ORGANIZATION', [1, 2, 3, 4, 5, 6, 7, 8], 'ORGANIZATION', 'CREATE', (v) =>
    v <= 2 ? 'createSubOrganizationResult' : `createSubOrganizationResultV${v}`,
  ),
  ...define('DELETE_SUB_ORGANIZATION', [1], 'ORGANIZATION', 'DELETE'),
  ...define('CREATE_WALLET', [1], 'WALLET', 'CREATE'),
  ...define('CREATE_WALLET_ACCOUNTS', [1], 'WALLET', 'CREATE'),
  ...define('UPDATE_WALLET', [1], 'WALLET', 'UPDATE'),
  ...define('CREATE_PRIVATE_KEYS', [1, 2], 'PRIVATE_KEY', 'CREATE', (v) =>
    v === 1 ? 'createPrivateKeysResult' : 'createPrivateKeysResultV2',
  ),
  // Sign activities count as resource PRIVATE_KEY even when they sign with a wallet account.
  ...define('SIGN_RAW_PAYLOAD', [1, 2], 'PRIVATE_KEY', 'SIGN'),
  ...define('SIGN_RAW_PAYLOADS', [1], 'PRIVATE_KEY', 'SIGN'),
  // Both versions answer under `signTransactionResult` (no version suffix, wire-compat §2.2).
  ...define('SIGN_TRANSACTION', [1, 2], 'PRIVATE_KEY', 'SIGN'),
  ...define('EXPORT_WALLET', [1], 'WALLET', 'EXPORT'),
  ...define('EXPORT_WALLET_ACCOUNT', [1], 'WALLET', 'EXPORT'),
  ...define('EXPORT_PRIVATE_KEY', [1], 'PRIVATE_KEY', 'EXPORT'),
  ...define('INIT_IMPORT_WALLET', [1], 'WALLET', 'IMPORT'),
  ...define('IMPORT_WALLET', [1], 'WALLET', 'IMPORT'),
  ...define('INIT_IMPORT_PRIVATE_KEY', [1], 'PRIVATE_KEY', 'IMPORT'),
  ...define('IMPORT_PRIVATE_KEY', [1], 'PRIVATE_KEY', 'IMPORT'),
  ...define('DISABLE_PRIVATE_KEY', [1], 'PRIVATE_KEY', 'UPDATE'),
  ...define('DELETE_PRIVATE_KEYS', [1], 'PRIVATE_KEY', 'DELETE'),
  ...define('DELETE_WALLETS', [1], 'WALLET', 'DELETE'),
  ...define('DELETE_WALLET_ACCOUNTS', [1], 'WALLET', 'DELETE'),
  // CREATE_POLICY V1 and V2 (selector-based) are refused with SELECTOR_POLICY_NOT_AVAILABLE
  // (nothing stored). V3 is what every current client sends.
  ...define('CREATE_POLICY', [1, 2, 3], 'POLICY', 'CREATE', () => 'createPolicyResult'),
  ...define('CREATE_POLICIES', [1], 'POLICY', 'CREATE'),
  ...define('UPDATE_POLICY', [1, 2], 'POLICY', 'UPDATE', (v) =>
    v === 1 ? 'updatePolicyResult' : 'updatePolicyResultV2',
  ),
  ...define('DELETE_POLICY', [1], 'POLICY', 'DELETE'),
  ...define('DELETE_POLICIES', [1], 'POLICY', 'DELETE'),
  ...define('CREATE_USER_TAG', [1], 'USER', 'CREATE'),
  ...define('UPDATE_USER_TAG', [1], 'USER', 'UPDATE'),
  ...define('DELETE_USER_TAGS', [1], 'USER', 'DELETE'),
  ...define('CREATE_PRIVATE_KEY_TAG', [1], 'PRIVATE_KEY', 'CREATE'),
  ...define('UPDATE_PRIVATE_KEY_TAG', [1], 'PRIVATE_KEY', 'UPDATE'),
  ...define('DELETE_PRIVATE_KEY_TAGS', [1], 'PRIVATE_KEY', 'DELETE'),
  ...define('CREATE_WEBHOOK_ENDPOINT', [1], 'WEBHOOK_ENDPOINT', 'CREATE'),
  ...define('UPDATE_WEBHOOK_ENDPOINT', [1], 'WEBHOOK_ENDPOINT', 'UPDATE'),
  ...define('DELETE_WEBHOOK_ENDPOINT', [1], 'WEBHOOK_ENDPOINT', 'DELETE'),
  // Sessions: a user logs in (STAMP_LOGIN) or has a session key made for them.
  ...define('STAMP_LOGIN', [1], 'AUTH', 'CREATE'),
  ...define('CREATE_READ_WRITE_SESSION', [1, 2], 'AUTH', 'CREATE', (v) =>
    v === 1 ? 'createReadWriteSessionResult' : 'createReadWriteSessionResultV2',
  ),
  ...define('CREATE_READ_ONLY_SESSION', [1], 'AUTH', 'CREATE'),
  // One-time codes: sent (INIT_OTP), verified into a verification token (VERIFY_OTP), and the
  // token exchanged for a session (OTP_LOGIN). Policies see resource OTP / AUTH (docs).
  ...define('INIT_OTP', [1, 2, 3], 'OTP', 'CREATE', (v) =>
    v === 1 ? 'initOtpResult' : 'initOtpResultV2',
  ),
  ...define('VERIFY_OTP', [1, 2], 'OTP', 'VERIFY', () => 'verifyOtpResult'),
  ...define('OTP_LOGIN', [1, 2], 'AUTH', 'CREATE', () => 'otpLoginResult'),
  // The legacy OTP auth: the code itself buys an API key, handed over in a credential bundle.
  ...define('INIT_OTP_AUTH', [1, 2, 3], 'OTP', 'CREATE', (v) =>
    v === 1 ? 'initOtpAuthResult' : 'initOtpAuthResultV2',
  ),
  ...define('OTP_AUTH', [1], 'AUTH', 'CREATE'),
  // Email auth and recovery: a credential bundle mailed to a user of the organization
  // (the mailbox is the proof); RECOVER_USER adds a passkey with the recovery credential.
  ...define('EMAIL_AUTH', [1, 2, 3], 'AUTH', 'CREATE', () => 'emailAuthResult'),
  ...define(
    'INIT_USER_EMAIL_RECOVERY',
    [1, 2],
    'AUTH',
    'CREATE',
    () => 'initUserEmailRecoveryResult',
  ),
  ...define('RECOVER_USER', [1], 'CREDENTIAL', 'CREATE'),
  // A user's contact, proven by a verification token of VERIFY_OTP (optional).
  ...define('UPDATE_USER_EMAIL', [1], 'USER', 'UPDATE'),
  ...define('UPDATE_USER_PHONE_NUMBER', [1], 'USER', 'UPDATE'),
  // Invitations: mailed, accepted with the invitee's passkey, revoked.
  ...define('CREATE_INVITATIONS', [1], 'USER', 'CREATE'),
  ...define('ACCEPT_INVITATION', [1, 2], 'USER', 'UPDATE', () => 'acceptInvitationResult'),
  ...define('DELETE_INVITATION', [1], 'USER', 'DELETE'),
  // OAuth 2.0 credentials of the organization's apps at providers without OIDC (X, Discord),
  // and the code exchange that turns a provider's authorization code into an OIDC token
  // Keyhold issues.
  ...define('CREATE_OAUTH2_CREDENTIAL', [1], 'ORGANIZATION', 'CREATE'),
  ...define('UPDATE_OAUTH2_CREDENTIAL', [1], 'ORGANIZATION', 'UPDATE'),
  ...define('DELETE_OAUTH2_CREDENTIAL', [1], 'ORGANIZATION', 'DELETE'),
  ...define('OAUTH2_AUTHENTICATE', [1], 'AUTH', 'CREATE'),
  // OIDC: a user's OAuth providers (issuer, audience, subject), and the logins an id_token
  // whose nonce binds the client's key buys: a session (OAUTH_LOGIN) or, legacy, an API key in
  // a credential bundle (OAUTH).
  ...define('CREATE_OAUTH_PROVIDERS', [1, 2], 'USER', 'CREATE', (v) =>
    v === 1 ? 'createOauthProvidersResult' : 'createOauthProvidersResultV2',
  ),
  ...define('DELETE_OAUTH_PROVIDERS', [1], 'USER', 'DELETE'),
  ...define('OAUTH_LOGIN', [1], 'AUTH', 'CREATE'),
  ...define('OAUTH', [1], 'AUTH', 'CREATE'),
  // Fiat on-ramp: the organization's provider credentials (resource ON_RAMP_CREDENTIALS) and
  // the signed widget URL of a purchase (resource FIAT_TRANSACTION), as Turnkey's policies see them.
  ...define('CREATE_FIAT_ON_RAMP_CREDENTIAL', [1], 'ON_RAMP_CREDENTIALS', 'CREATE'),
  ...define('UPDATE_FIAT_ON_RAMP_CREDENTIAL', [1], 'ON_RAMP_CREDENTIALS', 'UPDATE'),
  ...define('DELETE_FIAT_ON_RAMP_CREDENTIAL', [1], 'ON_RAMP_CREDENTIALS', 'DELETE'),
  ...define('INIT_FIAT_ON_RAMP', [1], 'FIAT_TRANSACTION', 'CREATE'),
  // Ethereum ABIs and Solana IDLs that let policies read decoded calls (wire-compat §5 names
  // the resource SMART_CONTRACT_INTERFACE).
  ...define('CREATE_SMART_CONTRACT_INTERFACE', [1], 'SMART_CONTRACT_INTERFACE', 'CREATE'),
  ...define('DELETE_SMART_CONTRACT_INTERFACE', [1], 'SMART_CONTRACT_INTERFACE', 'DELETE'),
  // Organization settings: features (root quorum only), and the auth proxy's configuration,
  // stored for the proxy to read.
  ...define('SET_ORGANIZATION_FEATURE', [1], 'ORGANIZATION', 'UPDATE'),
  ...define('REMOVE_ORGANIZATION_FEATURE', [1], 'ORGANIZATION', 'UPDATE'),
  ...define('ENABLE_AUTH_PROXY', [1], 'ORGANIZATION', 'UPDATE'),
  ...define('DISABLE_AUTH_PROXY', [1], 'ORGANIZATION', 'UPDATE'),
  ...define('UPDATE_AUTH_PROXY_CONFIG', [1], 'ORGANIZATION', 'UPDATE'),
  // TVC apps, deployments and manifest approvals: records, decided like any activity.
  ...define('CREATE_TVC_APP', [1], 'ORGANIZATION', 'CREATE'),
  ...define('CREATE_TVC_DEPLOYMENT', [1], 'ORGANIZATION', 'CREATE'),
  ...define('CREATE_TVC_MANIFEST_APPROVALS', [1], 'ORGANIZATION', 'CREATE'),
  // Legacy and billing: refused with a specific message (organizations), or kept as records
  // (a payment method's last four digits and holder, the billing tier); nothing is charged.
  ...define(
    'CREATE_ORGANIZATION',
    [1, 2],
    'ORGANIZATION',
    'CREATE',
    () => 'createOrganizationResult',
  ),
  ...define('DELETE_ORGANIZATION', [1], 'ORGANIZATION', 'DELETE'),
  ...define('SET_PAYMENT_METHOD', [1, 2], 'ORGANIZATION', 'UPDATE', () => 'setPaymentMethodResult'),
  ...define('DELETE_PAYMENT_METHOD', [1], 'ORGANIZATION', 'DELETE'),
  ...define('ACTIVATE_BILLING_TIER', [1], 'ORGANIZATION', 'UPDATE'),
  // Send-transaction (an EVM chain through `keyhold serve --evm-rpc`): a signed transaction
  // broadcast as it is, or one signed with the organization's key and broadcast; the gas
  // sponsorship limits of the organization.
  ...define('ETH_SEND_RAW_TRANSACTION', [1], 'PRIVATE_KEY', 'SIGN'),
  // V2 (what the published clients send) gives the transaction as `calls` (one: Keyhold
  // sends no EIP-7702 batches).
  ...define('ETH_SEND_TRANSACTION', [1, 2], 'PRIVATE_KEY', 'SIGN', (v) =>
    v === 1 ? 'ethSendTransactionResult' : 'ethSendTransactionResultV2',
  ),
  // A Solana transaction (`keyhold serve --solana-rpc`) signed with the organization's keys as
  // SIGN_TRANSACTION signs one, and broadcast. V1 gives it in base64 with one `signWith`; V2
  // (what the published clients send) in hex with `signWiths`.
  ...define('SOL_SEND_TRANSACTION', [1, 2], 'PRIVATE_KEY', 'SIGN', (v) =>
    v === 1 ? 'solSendTransactionResult' : 'solSendTransactionResultV2',
  ),
  ...define('UPSERT_GAS_USAGE_CONFIG', [1], 'ORGANIZATION', 'UPDATE'),
  // Votes by fingerprint. They are not activities of their own: the answer is the target
  // activity after the vote, so these result keys never appear on the wire.
  ...define('APPROVE_ACTIVITY', [1], 'ORGANIZATION', 'UPDATE'),
  ...define('REJECT_ACTIVITY', [1], 'ORGANIZATION', 'UPDATE'),
];

/** Kinds decided by the root quorum alone (wire-compat §5): policies never apply to them. */
export const ROOT_QUORUM_ONLY_KINDS: ReadonlySet<string> = new Set([
  'UPDATE_ROOT_QUORUM',
  'SET_ORGANIZATION_FEATURE',
  'REMOVE_ORGANIZATION_FEATURE',
  'UPDATE_ORGANIZATION_NAME',
  // Which origins passkeys may stamp from: as sensitive as the root quorum itself.
  'UPDATE_ALLOWED_ORIGINS',
]);

/**
 * Delegated access (interface spec, Authentication §7): a parent organization acts in a
 * sub-organization only through a user of that sub-organization; its own users' stamps may
 * read a sub-organization and run these kinds there, nothing else. They are the login and
 * auth activities a parent's backend runs for its sub-organizations' end users, where the end
 * user's verification token, OIDC token or mailbox is the proof: OTP_LOGIN, INIT_OTP_AUTH,
 * OTP_AUTH, OAUTH_LOGIN, OAUTH, EMAIL_AUTH and INIT_USER_EMAIL_RECOVERY, all served).
 */
export const PARENT_RUN_KINDS: ReadonlySet<string> = new Set([
  'OTP_LOGIN',
  // Sends the code OTP_AUTH then checks, to a user of the sub-organization.
  'INIT_OTP_AUTH',
  'OAUTH_LOGIN',
  'OTP_AUTH',
  'OAUTH',
  'EMAIL_AUTH',
  'INIT_USER_EMAIL_RECOVERY',
]);

/**
 * Kinds a sub-organization's user may submit naming the parent organization, as
 * `@turnkey/core` does for STAMP_LOGIN (its `organizationId` defaults to the parent): the
 * activity runs in the sub-organization whose user holds the stamp's credential.
 */
export const LOGIN_AT_PARENT_KINDS: ReadonlySet<string> = new Set(['STAMP_LOGIN']);

/** The vote kinds: APPROVE_ACTIVITY and REJECT_ACTIVITY. */
export const VOTE_KINDS: ReadonlySet<string> = new Set(['APPROVE_ACTIVITY', 'REJECT_ACTIVITY']);

const BY_TYPE = new Map(ACTIVITY_DEFINITIONS.map((d) => [d.type as string, d]));
const BY_PATH = new Map<string, ActivityDefinition[]>();
for (const d of ACTIVITY_DEFINITIONS) BY_PATH.set(d.path, [...(BY_PATH.get(d.path) ?? []), d]);

/** The definition of an activity type, if Keyhold executes it. */
export function activityDefinitionOf(type: string): ActivityDefinition | undefined {
  return BY_TYPE.get(type);
}

/** The definitions served at a submit path (every version of one kind). */
export function activityDefinitionsAt(path: string): readonly ActivityDefinition[] {
  return BY_PATH.get(path) ?? [];
}

/** The submit path of any activity type of the wire protocol, served or not. */
export function submitPathOf(type: string): string {
  return type
    .replace(/^ACTIVITY_TYPE_/, '')
    .replace(/_V\d+$/, '')
    .toLowerCase();
}

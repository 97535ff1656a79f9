/**
 * The error-message catalogue: every refusal Keyhold makes, with the exact text of the
 * interface spec where the spec names it, its status code, and a stable machine-readable
 * `errorCode` (carried in `details`, never parsed from `message`).
 *
 * The key of an entry is its wire `errorCode`, by construction: `e()` takes no errorCode.
 * The only exceptions are message variants (`variant()`): a second Turnkey text under an
 * errorCode another refusal also answers with (see the package README, "Errors").
 * @module
 */
import { StatusCode } from './status-code.js';

/** One catalogue entry. */
export interface MessageEntry {
  readonly code: StatusCode;
  readonly errorCode: string;
  readonly message: string;
  /** An HTTP status more precise than the code's default (413, 405). */
  readonly http?: number;
  /**
   * The Status body carries `details: []`, as Turnkey's does for this refusal: the published
   * clients append `details` to their error message, which then reads exactly like Turnkey's.
   */
  readonly withoutDetails?: true;
}

/** An entry before its key is known: `errorCode` is set only on a message variant. */
type EntrySpec = Omit<MessageEntry, 'errorCode'> & { readonly errorCode?: string };

/** An entry whose wire errorCode is its own key. */
const e = (code: StatusCode, message: string, http?: number): EntrySpec => ({
  code,
  message,
  ...(http !== undefined ? { http } : {}),
});

/**
 * A message variant: the wire `errorCode` (and status) of another refusal, with a more
 * specific text. Its key names the variant; tests pin the list of variants.
 */
const variant = (errorCode: string, code: StatusCode, message: string): EntrySpec => ({
  code,
  errorCode,
  message,
});
const { INVALID_ARGUMENT, UNAUTHENTICATED, PERMISSION_DENIED, NOT_FOUND, INTERNAL } = StatusCode;

const CATALOGUE = {
  // Request shape
  REQUEST_INVALID: e(INVALID_ARGUMENT, 'bad request body'),
  /**
   * A member the schema of the envelope or of the activity's parameters does not list; the
   * refusal names it (`unknown field: /parameters/x`). Nothing is stored.
   */
  UNKNOWN_FIELD: e(INVALID_ARGUMENT, 'unknown field'),
  /** A member named twice in one object (`duplicate field: /parameters/x`), as protobuf JSON refuses it. */
  DUPLICATE_FIELD: e(INVALID_ARGUMENT, 'duplicate field'),
  INVALID_ORGANIZATION_ID: e(INVALID_ARGUMENT, 'malformed organization ID provided'),
  ORGANIZATION_NOT_FOUND: e(NOT_FOUND, 'no organization found with the given ID'),
  NOT_FOUND: e(NOT_FOUND, 'not found'),
  METHOD_NOT_ALLOWED: e(StatusCode.UNIMPLEMENTED, 'method not allowed', 405),
  UNSUPPORTED_ACTIVITY_TYPE: e(StatusCode.UNIMPLEMENTED, 'activity type not supported'),
  UNSUPPORTED_QUERY: e(StatusCode.UNIMPLEMENTED, 'query not supported'),
  REQUEST_TOO_LARGE: e(StatusCode.RESOURCE_EXHAUSTED, 'request body too large', 413),
  /**
   * Request headers over the HTTP server's `maxHeaderSize`, answered by the server before any
   * handler runs (in place of Node's bare 431).
   */
  REQUEST_HEADERS_TOO_LARGE: e(StatusCode.RESOURCE_EXHAUSTED, 'request headers too large', 431),
  /** The headers or the body did not arrive within the HTTP server's timeouts (a stalled upload). */
  REQUEST_TIMEOUT: e(StatusCode.DEADLINE_EXCEEDED, 'request not received in time', 408),
  /** Bytes the HTTP parser cannot read as an HTTP/1.1 request (in place of Node's bare 400). */
  MALFORMED_REQUEST: e(INVALID_ARGUMENT, 'malformed HTTP request', 400),
  TIMESTAMP_INVALID: e(
    INVALID_ARGUMENT,
    'timestampMs is outside the allowed window; sign a fresh request with the current time',
  ),

  // Authentication
  SIGNATURE_MISSING: e(
    UNAUTHENTICATED,
    'cannot authenticate public API activity request without a stamp (X-Stamp/X-Stamp-Webauthn header)',
  ),
  MALFORMED_STAMP: variant('SIGNATURE_INVALID', UNAUTHENTICATED, 'malformed activity stamp'),
  SIGNATURE_INVALID: e(UNAUTHENTICATED, 'could not verify api key signature'),
  PUBLIC_KEY_NOT_FOUND: e(
    UNAUTHENTICATED,
    'could not find public key in organization or its parent organization',
  ),
  API_KEY_EXPIRED: e(UNAUTHENTICATED, 'expired api key'),
  CREDENTIAL_NOT_FOUND: e(
    UNAUTHENTICATED,
    'webauthn authenticator not found in organization or parent organization',
  ),
  UNAUTHENTICATED: e(UNAUTHENTICATED, 'authentication failed'),
  /**
   * A passkey stamp that does not verify: its signature, its challenge (not the body's), its
   * type, user presence, rpId hash, origin, or a signature counter that did not move forward.
   * `details` say which.
   */
  WEBAUTHN_SIGNATURE_INVALID: variant(
    'SIGNATURE_INVALID',
    UNAUTHENTICATED,
    'could not verify WebAuthN signature',
  ),

  // Authorization
  /** No policy allows the request (implicit deny), or only the root quorum may. */
  REQUEST_NOT_AUTHORIZED: e(PERMISSION_DENIED, 'request not authorized'),
  /**
   * A policy with EFFECT_DENY applies. Turnkey's exact text and empty details: clients match
   * on it. The deciding policies are not on the wire.
   */
  POLICY_DENIED_EXPLICITLY: {
    ...e(PERMISSION_DENIED, 'policy engine denied request explicitly'),
    withoutDetails: true,
  },
  ORGANIZATION_MISMATCH: e(PERMISSION_DENIED, 'organization mismatch'),

  // Policies
  INVALID_POLICY_CONDITION: e(INVALID_ARGUMENT, 'invalid policy condition'),
  INVALID_POLICY_CONSENSUS: e(INVALID_ARGUMENT, 'invalid policy consensus'),
  INVALID_POLICY_TIME: e(INVALID_ARGUMENT, 'invalid policy time'),
  POLICY_NAME_NOT_UNIQUE: e(INVALID_ARGUMENT, 'policy label must be unique'),
  USER_TAG_NAME_NOT_UNIQUE: e(INVALID_ARGUMENT, 'user tag name must be unique'),
  PRIVATE_KEY_TAG_NAME_NOT_UNIQUE: e(INVALID_ARGUMENT, 'private key tag name must be unique'),

  // Consensus (votes by fingerprint)
  NO_ACTIVITY_WITH_FINGERPRINT: variant(
    'ACTIVITY_NOT_FOUND',
    NOT_FOUND,
    'No activity found with fingerprint. Consensus activities must target an existing activity by fingerprint',
  ),
  ALREADY_VOTED: e(StatusCode.FAILED_PRECONDITION, 'user has already voted on this activity'),
  ACTIVITY_FINISHED: e(
    StatusCode.FAILED_PRECONDITION,
    'activity is not awaiting consensus: votes are accepted only while its status is ACTIVITY_STATUS_CONSENSUS_NEEDED',
  ),
  CONSENSUS_EXPIRED: e(
    StatusCode.FAILED_PRECONDITION,
    'consensus expired: the approval window of this activity has closed; submit it again',
  ),

  // Parameters
  INVALID_PAYLOAD_ENCODING: e(INVALID_ARGUMENT, 'invalid payload encoding'),
  INVALID_HASH_FUNCTION: e(INVALID_ARGUMENT, 'invalid hash function'),
  INVALID_PATH_FORMAT: e(INVALID_ARGUMENT, 'invalid path format'),
  INVALID_PATH: e(INVALID_ARGUMENT, 'invalid path'),
  INVALID_ADDRESS_FORMAT: e(INVALID_ARGUMENT, 'invalid address format'),
  INVALID_CURVE: e(INVALID_ARGUMENT, 'invalid curve'),
  CURVE_REQUIRED: e(INVALID_ARGUMENT, 'curve required'),
  INVALID_API_KEY_EXPIRATION: e(INVALID_ARGUMENT, 'invalid api key expiration'),
  INVALID_PUBLIC_KEY: e(INVALID_ARGUMENT, 'invalid public key'),
  INVALID_PAYLOAD: e(INVALID_ARGUMENT, 'invalid payload'),
  INVALID_MNEMONIC_LENGTH: e(
    INVALID_ARGUMENT,
    'invalid mnemonic length: must be 12, 15, 18, 21 or 24',
  ),
  INVALID_MNEMONIC: e(INVALID_ARGUMENT, 'invalid mnemonic'),
  INVALID_PRIVATE_KEY: e(INVALID_ARGUMENT, 'invalid private key'),
  INVALID_QUORUM_THRESHOLD: e(INVALID_ARGUMENT, 'quorum threshold must be non-zero integer'),
  MISSING_WALLET_PARAMS: e(INVALID_ARGUMENT, 'missing wallet params'),
  AUTHENTICATOR_ATTESTATION_MISSING: variant(
    'INVALID_ATTESTATION',
    INVALID_ARGUMENT,
    'missing parameter: user authenticator attestation',
  ),
  /** An attestation that does not parse or verify (format, challenge, origin, rpId, signature). */
  INVALID_ATTESTATION: e(INVALID_ARGUMENT, 'invalid authenticator attestation'),
  MAX_AUTHENTICATORS: variant(
    'RESOURCE_LIMIT_EXCEEDED',
    StatusCode.RESOURCE_EXHAUSTED,
    'user has exceeded maximum authenticators',
  ),
  AUTHENTICATOR_ALREADY_EXISTS: e(
    StatusCode.ALREADY_EXISTS,
    'authenticator with this credential ID already exists in organization',
  ),
  /** DELETE_AUTHENTICATORS would leave a root-quorum user without any credential. */
  LAST_CREDENTIAL: e(
    StatusCode.FAILED_PRECONDITION,
    'cannot delete the last credential of a root quorum user',
  ),
  INVALID_ALLOWED_ORIGIN: e(
    INVALID_ARGUMENT,
    'invalid allowed origin: it must be a scheme, host and optional port, such as https://app.example.com',
  ),
  QUORUM_USERS_MISSING: e(INVALID_ARGUMENT, 'quorum users missing'),
  MAX_LONG_LIVED_API_KEYS: variant(
    'RESOURCE_LIMIT_EXCEEDED',
    StatusCode.RESOURCE_EXHAUSTED,
    'user has exceeded maximum long-lived api keys',
  ),
  MAX_SHORT_LIVED_API_KEYS: variant(
    'RESOURCE_LIMIT_EXCEEDED',
    StatusCode.RESOURCE_EXHAUSTED,
    'user has exceeded maximum short-lived api keys',
  ),
  API_KEY_ALREADY_EXISTS: e(
    StatusCode.ALREADY_EXISTS,
    'api key with this public key already exists in organization',
  ),

  // Records
  USER_NOT_FOUND: e(NOT_FOUND, 'user not found'),
  API_KEY_NOT_FOUND: e(NOT_FOUND, 'api key not found'),
  AUTHENTICATOR_NOT_FOUND: e(NOT_FOUND, 'authenticator not found'),
  ACTIVITY_NOT_FOUND: e(NOT_FOUND, 'activity not found'),
  WALLET_NOT_FOUND: e(NOT_FOUND, 'wallet not found'),
  WALLET_ACCOUNT_NOT_FOUND: e(NOT_FOUND, 'wallet account not found'),
  PRIVATE_KEY_NOT_FOUND: e(NOT_FOUND, 'private key not found'),
  PRIVATE_KEY_DISABLED: e(StatusCode.FAILED_PRECONDITION, 'private key is disabled'),
  USER_TAG_NOT_FOUND: e(NOT_FOUND, 'user tag not found'),
  PRIVATE_KEY_TAG_NOT_FOUND: e(NOT_FOUND, 'private key tag not found'),
  POLICY_NOT_FOUND: e(NOT_FOUND, 'policy not found'),
  SIGNER_NOT_FOUND: e(
    NOT_FOUND,
    'could not find a wallet account or private key for signWith in organization',
  ),

  // Webhook endpoints (CREATE/UPDATE/DELETE_WEBHOOK_ENDPOINT)
  INVALID_WEBHOOK_URL: e(
    INVALID_ARGUMENT,
    'invalid webhook url: it must be an absolute https:// URL',
  ),
  UNSUPPORTED_WEBHOOK_EVENT_TYPE: e(
    INVALID_ARGUMENT,
    'unsupported webhook event type: only ACTIVITY_UPDATES is supported',
  ),
  INVALID_WEBHOOK_FILTERS: e(
    INVALID_ARGUMENT,
    'invalid webhook subscription filters: filtersJson must be valid JSON',
  ),
  WEBHOOK_ENDPOINT_NOT_FOUND: e(NOT_FOUND, 'webhook endpoint not found'),

  // Sub-organizations (CREATE_SUB_ORGANIZATION, DELETE_SUB_ORGANIZATION, whoami)
  SUB_ORGANIZATION_NESTING: e(
    StatusCode.FAILED_PRECONDITION,
    'a sub-organization cannot create sub-organizations',
  ),
  NOT_A_SUB_ORGANIZATION: e(
    StatusCode.FAILED_PRECONDITION,
    'organization is not a sub-organization: only sub-organizations can be deleted',
  ),
  SUB_ORGANIZATION_NOT_EXPORTED: e(
    StatusCode.FAILED_PRECONDITION,
    'sub-organization holds wallets or private keys that have not been exported: export them first or set deleteWithoutExport to true',
  ),
  MULTIPLE_SUB_ORGANIZATIONS: e(
    INVALID_ARGUMENT,
    'more than one suborg associated with a public key',
  ),
  MULTIPLE_SUB_ORGANIZATIONS_FOR_CREDENTIAL_ID: variant(
    'MULTIPLE_SUB_ORGANIZATIONS',
    INVALID_ARGUMENT,
    'more than one suborg associated with a credential ID',
  ),

  // One-time codes (INIT_OTP, VERIFY_OTP, OTP_LOGIN). "Invalid OTP code" and "Max number of
  // OTPs have been initiated" are the texts `@turnkey/core` matches.
  INVALID_OTP_LENGTH: e(INVALID_ARGUMENT, 'invalid OTP length: must be between 6 and 9'),
  INVALID_OTP_EXPIRATION: e(
    INVALID_ARGUMENT,
    'invalid OTP expiration: must be between 1 and 600 seconds',
  ),
  INVALID_VERIFICATION_TOKEN_EXPIRATION: e(
    INVALID_ARGUMENT,
    'invalid verification token expiration: must be between 1 and 86400 seconds',
  ),
  INVALID_CONTACT: e(INVALID_ARGUMENT, 'invalid contact'),
  INVALID_TEMPLATE_VARIABLES: e(INVALID_ARGUMENT, 'failed to unmarshal template variables'),
  MAX_OTPS_INITIATED: e(StatusCode.RESOURCE_EXHAUSTED, 'Max number of OTPs have been initiated'),
  OTP_NOT_FOUND: e(NOT_FOUND, 'OTP not found'),
  INVALID_OTP_CODE: e(INVALID_ARGUMENT, 'Invalid OTP code'),
  OTP_EXPIRED: e(StatusCode.FAILED_PRECONDITION, 'OTP has expired'),
  OTP_ALREADY_USED: e(StatusCode.FAILED_PRECONDITION, 'OTP has already been used'),
  OTP_LOCKED: e(StatusCode.FAILED_PRECONDITION, 'OTP locked after too many failed attempts'),
  INVALID_VERIFICATION_TOKEN: e(INVALID_ARGUMENT, 'invalid verification token'),
  VERIFICATION_TOKEN_EXPIRED: e(StatusCode.FAILED_PRECONDITION, 'verification token has expired'),
  VERIFICATION_TOKEN_ALREADY_USED: e(
    StatusCode.FAILED_PRECONDITION,
    'verification token has already been used',
  ),
  INVALID_CLIENT_SIGNATURE: e(INVALID_ARGUMENT, 'invalid client signature'),
  // Email auth and recovery switched off by CREATE_SUB_ORGANIZATION (V4+).
  EMAIL_AUTH_DISABLED: e(
    StatusCode.FAILED_PRECONDITION,
    'email auth is disabled for this organization',
  ),
  EMAIL_RECOVERY_DISABLED: e(
    StatusCode.FAILED_PRECONDITION,
    'email recovery is disabled for this organization',
  ),
  // Invitations (CREATE_INVITATIONS, ACCEPT_INVITATION, DELETE_INVITATION).
  INVITATION_NOT_FOUND: e(NOT_FOUND, 'invitation not found'),
  INVITATION_NOT_PENDING: e(
    StatusCode.FAILED_PRECONDITION,
    'invitation has already been accepted or revoked',
  ),
  /**
   * RECOVER_USER stamped by anything but the recovery credential INIT_USER_EMAIL_RECOVERY
   * mailed to that user; ACCEPT_INVITATION by anything but the invitee's invitation key.
   */
  MAILED_CREDENTIAL_REQUIRED: e(
    PERMISSION_DENIED,
    'request must be stamped by the credential mailed for this user',
  ),
  // OIDC (CREATE_OAUTH_PROVIDERS, OAUTH_LOGIN, OAUTH, X-Stamp-Attested P256_OIDC). Every
  // refusal of a token answers the spec's text; `details.reason` says which check failed.
  INVALID_OIDC_TOKEN: e(INVALID_ARGUMENT, 'invalid OIDC token'),
  OAUTH_PROVIDER_NOT_FOUND: e(NOT_FOUND, 'oauth provider not found'),
  OAUTH_PROVIDER_ALREADY_EXISTS: e(
    StatusCode.ALREADY_EXISTS,
    'oauth provider with this issuer, audience and subject already exists in organization',
  ),
  MAX_OAUTH_PROVIDERS: variant(
    'RESOURCE_LIMIT_EXCEEDED',
    StatusCode.RESOURCE_EXHAUSTED,
    'user has exceeded maximum oauth providers',
  ),
  NOTIFIER_NOT_CONFIGURED: e(
    StatusCode.FAILED_PRECONDITION,
    'no transport configured for this channel: the server cannot send email or SMS',
  ),

  // OAuth 2.0 credentials and the code exchange (CREATE/UPDATE/DELETE_OAUTH2_CREDENTIAL,
  // OAUTH2_AUTHENTICATE). An unreachable provider is UNAVAILABLE (503, Retry-After).
  INVALID_OAUTH2_PROVIDER: e(
    INVALID_ARGUMENT,
    'invalid OAuth 2.0 provider: must be OAUTH2_PROVIDER_X or OAUTH2_PROVIDER_DISCORD',
  ),
  INVALID_ENCRYPTED_CLIENT_SECRET: e(
    INVALID_ARGUMENT,
    'invalid encrypted client secret: encrypt it to the tlsFetcherEncryptPublicKey with encryptOauth2ClientSecret',
  ),
  OAUTH2_CREDENTIAL_NOT_FOUND: e(NOT_FOUND, 'OAuth 2.0 credential not found'),
  INVALID_CODE_VERIFIER: e(
    INVALID_ARGUMENT,
    'invalid code verifier: 43 to 128 characters of A-Z, a-z, 0-9, -, ., _ and ~',
  ),
  OAUTH2_CODE_EXCHANGE_FAILED: e(
    INVALID_ARGUMENT,
    'the OAuth 2.0 provider refused the authorization code exchange',
  ),
  OAUTH2_PROVIDER_NOT_CONFIGURED: e(
    StatusCode.FAILED_PRECONDITION,
    'no token endpoint configured for this OAuth 2.0 provider',
  ),

  // Smart-contract interfaces (CREATE/DELETE_SMART_CONTRACT_INTERFACE): Ethereum ABIs and
  // Solana (Anchor) IDLs that let policies read decoded calls.
  INVALID_SMART_CONTRACT_INTERFACE_TYPE: e(
    INVALID_ARGUMENT,
    'invalid smart contract interface type: must be SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM or SMART_CONTRACT_INTERFACE_TYPE_SOLANA',
  ),
  INVALID_SMART_CONTRACT_ADDRESS: e(
    INVALID_ARGUMENT,
    'invalid smart contract address: an Ethereum address (0x and 40 hex digits) or a Solana program id (base58, 32 bytes)',
  ),
  INVALID_SMART_CONTRACT_INTERFACE: e(
    INVALID_ARGUMENT,
    'invalid smart contract interface: an Ethereum ABI or a Solana Anchor IDL as JSON, at most 400 KiB',
  ),
  SMART_CONTRACT_INTERFACE_NOT_FOUND: e(NOT_FOUND, 'smart contract interface not found'),
  SMART_CONTRACT_INTERFACE_EXISTS: e(
    INVALID_ARGUMENT,
    'a smart contract interface for this address already exists: delete it first to replace it',
  ),
  TOO_MANY_SMART_CONTRACT_INTERFACES: e(
    StatusCode.RESOURCE_EXHAUSTED,
    'organization has exceeded maximum smart contract interfaces',
  ),

  // Send-transaction (ETH_SEND_RAW_TRANSACTION, ETH_SEND_TRANSACTION, UPSERT_GAS_USAGE_CONFIG,
  // get_send_transaction_status, get_nonces, get_wallet_address_balances, get_gas_usage). The
  // spec names none of these texts: they are Keyhold's. What the chain refuses refuses the
  // request and stores nothing; a chain that does not answer is EVM_CHAIN_UNAVAILABLE (503,
  // Retry-After).
  EVM_NETWORK_UNSUPPORTED: e(
    INVALID_ARGUMENT,
    'unsupported caip2: not an EVM network Keyhold sends transactions on',
  ),
  EVM_RPC_NOT_CONFIGURED: e(
    StatusCode.FAILED_PRECONDITION,
    'no RPC endpoint configured for this network: start the server with --evm-rpc NETWORK=URL',
  ),
  EVM_CHAIN_UNAVAILABLE: e(
    StatusCode.UNAVAILABLE,
    "the chain's RPC endpoint did not answer: retry later",
  ),
  INVALID_EVM_ADDRESS: e(INVALID_ARGUMENT, 'invalid address: 0x and 40 hexadecimal digits'),
  TRANSACTION_CHAIN_MISMATCH: e(
    INVALID_ARGUMENT,
    'the transaction is signed for another chain than caip2',
  ),
  NONCE_TOO_LOW: e(
    StatusCode.FAILED_PRECONDITION,
    'nonce too low: the account has sent a transaction with this nonce already',
  ),
  INSUFFICIENT_FUNDS: e(
    StatusCode.FAILED_PRECONDITION,
    'insufficient funds for gas * price + value',
  ),
  TRANSACTION_REVERTED: e(StatusCode.FAILED_PRECONDITION, 'execution reverted'),
  TRANSACTION_REJECTED: e(StatusCode.FAILED_PRECONDITION, 'the chain rejected the transaction'),
  BATCH_CALLS_UNSUPPORTED: e(
    INVALID_ARGUMENT,
    'more than one call needs an EIP-7702 batch, which Keyhold does not send: one call per transaction',
  ),
  SEND_TRANSACTION_STATUS_NOT_FOUND: e(NOT_FOUND, 'send transaction status not found'),
  SENDER_NOT_WALLET_ACCOUNT: e(
    INVALID_ARGUMENT,
    'address is not a wallet account of this organization (private key addresses are not supported)',
  ),
  INVALID_GAS_USAGE_CONFIG: e(
    INVALID_ARGUMENT,
    'invalid gas usage config: USD limits as decimal strings, windowDurationMinutes 1 to 43200',
  ),
  GAS_SPONSORSHIP_NOT_ENABLED: e(
    StatusCode.FAILED_PRECONDITION,
    'gas sponsorship is not enabled: set it with UPSERT_GAS_USAGE_CONFIG, and give the server a sponsor account',
  ),
  GAS_SPONSORSHIP_LIMIT_EXCEEDED: e(
    StatusCode.RESOURCE_EXHAUSTED,
    'gas sponsorship limit reached for the current window',
  ),

  // Server
  INTERNAL: e(INTERNAL, 'internal server error'),
  UNAVAILABLE: e(StatusCode.UNAVAILABLE, 'service unavailable'),
  /**
   * The rate limiter's backend cannot answer (Redis down): 503 with `Retry-After: 1`, fail
   * closed. Same status and text as UNAVAILABLE; the errorCode tells the two apart.
   */
  RATE_LIMIT_BACKEND_UNAVAILABLE: e(StatusCode.UNAVAILABLE, 'service unavailable'),

  // Transactions (SIGN_TRANSACTION)
  INVALID_TRANSACTION: e(INVALID_ARGUMENT, 'failed to parse transaction'),
  UNSUPPORTED_TRANSACTION_TYPE: e(INVALID_ARGUMENT, 'unsupported transaction type'),
  SIGNER_NOT_IN_TRANSACTION: variant(
    'INVALID_TRANSACTION',
    INVALID_ARGUMENT,
    'signing key is not a signer of the transaction',
  ),
  TRANSACTION_INPUT_NOT_SIGNABLE: variant(
    'INVALID_TRANSACTION',
    INVALID_ARGUMENT,
    'cannot sign transaction input',
  ),
  PRIVATE_KEY_NOT_EXPORTABLE: e(
    StatusCode.FAILED_PRECONDITION,
    'private key cannot be exported: it was generated inside the HSM',
  ),

  // Lifecycle (DISABLE_PRIVATE_KEY, DELETE_PRIVATE_KEYS, DELETE_WALLETS, DELETE_WALLET_ACCOUNTS)
  INVALID_WALLET_ACCOUNT_ID: e(INVALID_ARGUMENT, 'invalid wallet account UUID'),
  WALLET_ACCOUNT_NOT_IN_ORGANIZATION: variant(
    'WALLET_ACCOUNT_NOT_FOUND',
    NOT_FOUND,
    'wallet account not part of your organization',
  ),
  WALLET_ACCOUNT_NOT_EXPORTED: e(
    StatusCode.FAILED_PRECONDITION,
    'wallet account has not been exported',
  ),
  WALLET_NOT_EXPORTED: e(
    StatusCode.FAILED_PRECONDITION,
    'wallet has not been exported: export it first or set deleteWithoutExport to true',
  ),
  PRIVATE_KEY_NOT_EXPORTED: e(
    StatusCode.FAILED_PRECONDITION,
    'private key has not been exported: export it first or set deleteWithoutExport to true',
  ),

  // Organization settings (SET/REMOVE_ORGANIZATION_FEATURE, the auth proxy's configuration)
  INVALID_FEATURE_NAME: e(INVALID_ARGUMENT, 'invalid feature name'),
  INVALID_AUTH_PROXY_CONFIG: e(INVALID_ARGUMENT, 'invalid auth proxy configuration'),
  // The auth proxy (`/auth-proxy/v1/*`): public and unstamped, so it answers to a config id,
  // the config's allowed origins, its enabled methods and its send limits.
  AUTH_PROXY_CONFIG_NOT_FOUND: e(NOT_FOUND, 'auth proxy config not found'),
  AUTH_PROXY_ORIGIN_NOT_ALLOWED: e(PERMISSION_DENIED, 'origin not allowed'),
  AUTH_PROXY_METHOD_NOT_ENABLED: e(PERMISSION_DENIED, 'auth method not enabled'),
  AUTH_PROXY_RATE_LIMITED: e(StatusCode.RESOURCE_EXHAUSTED, 'too many requests'),

  // TVC apps (CREATE_TVC_APP, CREATE_TVC_DEPLOYMENT, CREATE_TVC_MANIFEST_APPROVALS)
  INVALID_TVC_OPERATOR_SET: e(
    INVALID_ARGUMENT,
    'invalid operator set: give an existing set id or the parameters of a new set, with a threshold between 1 and its number of operators',
  ),
  TVC_OPERATOR_SET_NOT_FOUND: e(NOT_FOUND, 'TVC operator set not found'),
  TVC_APP_NOT_FOUND: e(NOT_FOUND, 'TVC app not found'),
  TVC_DEPLOYMENT_NOT_FOUND: e(NOT_FOUND, 'TVC deployment not found'),
  TVC_MANIFEST_NOT_FOUND: e(NOT_FOUND, 'TVC manifest not found'),
  INVALID_TVC_MANIFEST_APPROVAL: e(
    INVALID_ARGUMENT,
    "invalid manifest approval: the operator must belong to the deployment's manifest set, approve once, and sign the manifest with its P-256 key",
  ),

  // Proofs (generateAppProofs, list_app_proofs, get_boot_proof)
  BOOT_PROOF_NOT_FOUND: e(
    NOT_FOUND,
    'boot proof not found: a self-hosted Keyhold states one boot proof, for its signer key (get_latest_boot_proof)',
  ),

  // Legacy and billing activities on a self-hosted instance
  ORGANIZATION_CREATION_NOT_AVAILABLE: e(
    StatusCode.FAILED_PRECONDITION,
    'CREATE_ORGANIZATION is not available in Keyhold: a root organization is made by its operator (keyhold serve --bootstrap-api-public-key, or bootstrap() when embedded); create the organizations of your users with CREATE_SUB_ORGANIZATION',
  ),
  ORGANIZATION_DELETION_NOT_AVAILABLE: e(
    StatusCode.FAILED_PRECONDITION,
    'DELETE_ORGANIZATION is not available in Keyhold: a root organization is removed by its operator; delete a sub-organization with DELETE_SUB_ORGANIZATION',
  ),
  SELECTOR_POLICY_NOT_AVAILABLE: e(
    StatusCode.FAILED_PRECONDITION,
    'selector policies (CREATE_POLICY V1 and V2) are not available in Keyhold: send CREATE_POLICY_V3 with a condition and a consensus expression',
  ),
  INVALID_PAYMENT_CARD: e(
    INVALID_ARGUMENT,
    'invalid payment card: the number must be 12 to 19 digits that pass the Luhn check, the CVV 3 or 4 digits, the expiry month 1 to 12 and its year 2 or 4 digits',
  ),
  PAYMENT_METHOD_NOT_FOUND: e(NOT_FOUND, 'payment method not found'),

  // Quotas (an operator's monthly signing quota; `<SUPPORT_EMAIL>` is replaced by its contact)
  ORGANIZATION_OVER_QUOTA: e(
    StatusCode.RESOURCE_EXHAUSTED,
    'this organization cannot execute activities because it is over its allotted quota. Please reach out to the team (<SUPPORT_EMAIL>) for more information.',
  ),
  PARENT_OVER_QUOTA: e(
    StatusCode.RESOURCE_EXHAUSTED,
    'this sub-organization cannot execute activities because its parent is over its allotted quota. Please reach out to the team (<SUPPORT_EMAIL>) for more information.',
  ),

  // Queries of the published client that Keyhold does not serve (README, "Not available")
  QUERY_NOT_AVAILABLE: e(StatusCode.FAILED_PRECONDITION, 'not available in Keyhold'),
} as const satisfies Record<string, EntrySpec>;

/** A key of the catalogue: a wire errorCode, or the name of a message variant. */
export type MessageKey = keyof typeof CATALOGUE;

/**
 * The catalogue, each entry with its wire `errorCode`: its key, or a variant's declared code.
 * Keys are stable; `message` texts are the spec's.
 */
export const Messages: { readonly [K in MessageKey]: MessageEntry } = Object.fromEntries(
  Object.entries(CATALOGUE).map(([key, spec]: [string, EntrySpec]) => [
    key,
    Object.freeze({ ...spec, errorCode: spec.errorCode ?? key }),
  ]),
) as { readonly [K in MessageKey]: MessageEntry };

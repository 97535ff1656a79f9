/**
 * The error-message catalogue: every refusal Keyhold makes, with the exact text of the
 * interface spec where the spec names it, its status code, and a stable machine-readable
 * `errorCode` (carried in `details`, never parsed from `message`).
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

const e = (code: StatusCode, errorCode: string, message: string, http?: number): MessageEntry => ({
  code,
  errorCode,
  message,
  ...(http !== undefined ? { http } : {}),
});
const { INVALID_ARGUMENT, UNAUTHENTICATED, PERMISSION_DENIED, NOT_FOUND, INTERNAL } = StatusCode;

/** The catalogue. Keys are stable; `message` texts are the spec's. */
export const Messages = {
  // Request shape
  BAD_REQUEST_BODY: e(INVALID_ARGUMENT, 'REQUEST_INVALID', 'bad request body'),
  /**
   * A member the schema of the envelope or of the activity's parameters does not list; the
   * refusal names it (`unknown field: /parameters/x`). Nothing is stored.
   */
  UNKNOWN_FIELD: e(INVALID_ARGUMENT, 'UNKNOWN_FIELD', 'unknown field'),
  /** A member named twice in one object (`duplicate field: /parameters/x`), as protobuf JSON refuses it. */
  DUPLICATE_FIELD: e(INVALID_ARGUMENT, 'DUPLICATE_FIELD', 'duplicate field'),
  MALFORMED_ORGANIZATION_ID: e(
    INVALID_ARGUMENT,
    'INVALID_ORGANIZATION_ID',
    'malformed organization ID provided',
  ),
  ORGANIZATION_NOT_FOUND: e(
    NOT_FOUND,
    'ORGANIZATION_NOT_FOUND',
    'no organization found with the given ID',
  ),
  NOT_FOUND_ROUTE: e(NOT_FOUND, 'NOT_FOUND', 'not found'),
  METHOD_NOT_ALLOWED: e(StatusCode.UNIMPLEMENTED, 'METHOD_NOT_ALLOWED', 'method not allowed', 405),
  ACTIVITY_TYPE_NOT_SUPPORTED: e(
    StatusCode.UNIMPLEMENTED,
    'UNSUPPORTED_ACTIVITY_TYPE',
    'activity type not supported',
  ),
  QUERY_NOT_SUPPORTED: e(StatusCode.UNIMPLEMENTED, 'UNSUPPORTED_QUERY', 'query not supported'),
  REQUEST_TOO_LARGE: e(
    StatusCode.RESOURCE_EXHAUSTED,
    'REQUEST_TOO_LARGE',
    'request body too large',
    413,
  ),
  /**
   * Request headers over the HTTP server's `maxHeaderSize`, answered by the server before any
   * handler runs (in place of Node's bare 431).
   */
  REQUEST_HEADERS_TOO_LARGE: e(
    StatusCode.RESOURCE_EXHAUSTED,
    'REQUEST_HEADERS_TOO_LARGE',
    'request headers too large',
    431,
  ),
  /** The headers or the body did not arrive within the HTTP server's timeouts (a stalled upload). */
  REQUEST_TIMEOUT: e(
    StatusCode.DEADLINE_EXCEEDED,
    'REQUEST_TIMEOUT',
    'request not received in time',
    408,
  ),
  /** Bytes the HTTP parser cannot read as an HTTP/1.1 request (in place of Node's bare 400). */
  MALFORMED_HTTP_REQUEST: e(INVALID_ARGUMENT, 'MALFORMED_REQUEST', 'malformed HTTP request', 400),
  TIMESTAMP_OUTSIDE_WINDOW: e(
    INVALID_ARGUMENT,
    'TIMESTAMP_INVALID',
    'timestampMs is outside the allowed window; sign a fresh request with the current time',
  ),

  // Authentication
  STAMP_MISSING: e(
    UNAUTHENTICATED,
    'SIGNATURE_MISSING',
    'cannot authenticate public API activity request without a stamp (X-Stamp/X-Stamp-Webauthn header)',
  ),
  MALFORMED_STAMP: e(UNAUTHENTICATED, 'SIGNATURE_INVALID', 'malformed activity stamp'),
  API_KEY_SIGNATURE_INVALID: e(
    UNAUTHENTICATED,
    'SIGNATURE_INVALID',
    'could not verify api key signature',
  ),
  PUBLIC_KEY_NOT_FOUND: e(
    UNAUTHENTICATED,
    'PUBLIC_KEY_NOT_FOUND',
    'could not find public key in organization or its parent organization',
  ),
  EXPIRED_API_KEY: e(UNAUTHENTICATED, 'API_KEY_EXPIRED', 'expired api key'),
  WEBAUTHN_NOT_SUPPORTED: e(
    UNAUTHENTICATED,
    'CREDENTIAL_NOT_FOUND',
    'webauthn authenticator not found in organization or parent organization',
  ),
  AUTHENTICATION_FAILED: e(UNAUTHENTICATED, 'UNAUTHENTICATED', 'authentication failed'),

  // Authorization
  /** No policy allows the request (implicit deny), or only the root quorum may. */
  REQUEST_NOT_AUTHORIZED: e(PERMISSION_DENIED, 'REQUEST_NOT_AUTHORIZED', 'request not authorized'),
  /**
   * A policy with EFFECT_DENY applies. Turnkey's exact text and empty details: clients match
   * on it. The deciding policies are not on the wire.
   */
  POLICY_DENIED_EXPLICITLY: {
    ...e(PERMISSION_DENIED, 'POLICY_DENIED_EXPLICITLY', 'policy engine denied request explicitly'),
    withoutDetails: true,
  },
  ORGANIZATION_MISMATCH: e(PERMISSION_DENIED, 'ORGANIZATION_MISMATCH', 'organization mismatch'),

  // Policies
  INVALID_POLICY_CONDITION: e(
    INVALID_ARGUMENT,
    'INVALID_POLICY_CONDITION',
    'invalid policy condition',
  ),
  INVALID_POLICY_CONSENSUS: e(
    INVALID_ARGUMENT,
    'INVALID_POLICY_CONSENSUS',
    'invalid policy consensus',
  ),
  INVALID_POLICY_TIME: e(INVALID_ARGUMENT, 'INVALID_POLICY_TIME', 'invalid policy time'),
  POLICY_NAME_NOT_UNIQUE: e(
    INVALID_ARGUMENT,
    'POLICY_NAME_NOT_UNIQUE',
    'policy label must be unique',
  ),
  USER_TAG_NAME_NOT_UNIQUE: e(
    INVALID_ARGUMENT,
    'USER_TAG_NAME_NOT_UNIQUE',
    'user tag name must be unique',
  ),
  PRIVATE_KEY_TAG_NAME_NOT_UNIQUE: e(
    INVALID_ARGUMENT,
    'PRIVATE_KEY_TAG_NAME_NOT_UNIQUE',
    'private key tag name must be unique',
  ),

  // Consensus (votes by fingerprint)
  NO_ACTIVITY_WITH_FINGERPRINT: e(
    NOT_FOUND,
    'ACTIVITY_NOT_FOUND',
    'No activity found with fingerprint. Consensus activities must target an existing activity by fingerprint',
  ),
  ALREADY_VOTED: e(
    StatusCode.FAILED_PRECONDITION,
    'ALREADY_VOTED',
    'user has already voted on this activity',
  ),
  ACTIVITY_NOT_AWAITING_CONSENSUS: e(
    StatusCode.FAILED_PRECONDITION,
    'ACTIVITY_FINISHED',
    'activity is not awaiting consensus: votes are accepted only while its status is ACTIVITY_STATUS_CONSENSUS_NEEDED',
  ),
  CONSENSUS_EXPIRED: e(
    StatusCode.FAILED_PRECONDITION,
    'CONSENSUS_EXPIRED',
    'consensus expired: the approval window of this activity has closed; submit it again',
  ),

  // Parameters
  INVALID_PAYLOAD_ENCODING: e(
    INVALID_ARGUMENT,
    'INVALID_PAYLOAD_ENCODING',
    'invalid payload encoding',
  ),
  INVALID_HASH_FUNCTION: e(INVALID_ARGUMENT, 'INVALID_HASH_FUNCTION', 'invalid hash function'),
  INVALID_PATH_FORMAT: e(INVALID_ARGUMENT, 'INVALID_PATH_FORMAT', 'invalid path format'),
  INVALID_PATH: e(INVALID_ARGUMENT, 'INVALID_PATH', 'invalid path'),
  INVALID_ADDRESS_FORMAT: e(INVALID_ARGUMENT, 'INVALID_ADDRESS_FORMAT', 'invalid address format'),
  INVALID_CURVE: e(INVALID_ARGUMENT, 'INVALID_CURVE', 'invalid curve'),
  CURVE_REQUIRED: e(INVALID_ARGUMENT, 'CURVE_REQUIRED', 'curve required'),
  INVALID_API_KEY_EXPIRATION: e(
    INVALID_ARGUMENT,
    'INVALID_API_KEY_EXPIRATION',
    'invalid api key expiration',
  ),
  INVALID_PUBLIC_KEY: e(INVALID_ARGUMENT, 'INVALID_PUBLIC_KEY', 'invalid public key'),
  INVALID_PAYLOAD: e(INVALID_ARGUMENT, 'INVALID_PAYLOAD', 'invalid payload'),
  INVALID_MNEMONIC_LENGTH: e(
    INVALID_ARGUMENT,
    'INVALID_MNEMONIC_LENGTH',
    'invalid mnemonic length: must be 12, 15, 18, 21 or 24',
  ),
  INVALID_MNEMONIC: e(INVALID_ARGUMENT, 'INVALID_MNEMONIC', 'invalid mnemonic'),
  INVALID_PRIVATE_KEY: e(INVALID_ARGUMENT, 'INVALID_PRIVATE_KEY', 'invalid private key'),
  QUORUM_THRESHOLD_INVALID: e(
    INVALID_ARGUMENT,
    'INVALID_QUORUM_THRESHOLD',
    'quorum threshold must be non-zero integer',
  ),
  MISSING_WALLET_PARAMS: e(INVALID_ARGUMENT, 'MISSING_WALLET_PARAMS', 'missing wallet params'),
  ROOT_USER_CREDENTIAL_NOT_SUPPORTED: e(
    INVALID_ARGUMENT,
    'UNSUPPORTED_CREDENTIAL',
    'authenticators and OAuth providers are not supported yet: give root users API keys only',
  ),
  QUORUM_USERS_MISSING: e(INVALID_ARGUMENT, 'QUORUM_USERS_MISSING', 'quorum users missing'),
  MAX_LONG_LIVED_API_KEYS: e(
    StatusCode.RESOURCE_EXHAUSTED,
    'RESOURCE_LIMIT_EXCEEDED',
    'user has exceeded maximum long-lived api keys',
  ),
  MAX_SHORT_LIVED_API_KEYS: e(
    StatusCode.RESOURCE_EXHAUSTED,
    'RESOURCE_LIMIT_EXCEEDED',
    'user has exceeded maximum short-lived api keys',
  ),
  API_KEY_ALREADY_EXISTS: e(
    StatusCode.ALREADY_EXISTS,
    'API_KEY_ALREADY_EXISTS',
    'api key with this public key already exists in organization',
  ),

  // Records
  USER_NOT_FOUND: e(NOT_FOUND, 'USER_NOT_FOUND', 'user not found'),
  API_KEY_NOT_FOUND: e(NOT_FOUND, 'API_KEY_NOT_FOUND', 'api key not found'),
  ACTIVITY_NOT_FOUND: e(NOT_FOUND, 'ACTIVITY_NOT_FOUND', 'activity not found'),
  WALLET_NOT_FOUND: e(NOT_FOUND, 'WALLET_NOT_FOUND', 'wallet not found'),
  WALLET_ACCOUNT_NOT_FOUND: e(NOT_FOUND, 'WALLET_ACCOUNT_NOT_FOUND', 'wallet account not found'),
  PRIVATE_KEY_NOT_FOUND: e(NOT_FOUND, 'PRIVATE_KEY_NOT_FOUND', 'private key not found'),
  PRIVATE_KEY_DISABLED: e(
    StatusCode.FAILED_PRECONDITION,
    'PRIVATE_KEY_DISABLED',
    'private key is disabled',
  ),
  USER_TAG_NOT_FOUND: e(NOT_FOUND, 'USER_TAG_NOT_FOUND', 'user tag not found'),
  PRIVATE_KEY_TAG_NOT_FOUND: e(NOT_FOUND, 'PRIVATE_KEY_TAG_NOT_FOUND', 'private key tag not found'),
  POLICY_NOT_FOUND: e(NOT_FOUND, 'POLICY_NOT_FOUND', 'policy not found'),
  SIGN_WITH_NOT_FOUND: e(
    NOT_FOUND,
    'SIGNER_NOT_FOUND',
    'could not find a wallet account or private key for signWith in organization',
  ),

  // Webhook endpoints (CREATE/UPDATE/DELETE_WEBHOOK_ENDPOINT)
  INVALID_WEBHOOK_URL: e(
    INVALID_ARGUMENT,
    'INVALID_WEBHOOK_URL',
    'invalid webhook url: it must be an absolute https:// URL',
  ),
  UNSUPPORTED_WEBHOOK_EVENT_TYPE: e(
    INVALID_ARGUMENT,
    'UNSUPPORTED_WEBHOOK_EVENT_TYPE',
    'unsupported webhook event type: only ACTIVITY_UPDATES is supported',
  ),
  INVALID_WEBHOOK_FILTERS: e(
    INVALID_ARGUMENT,
    'INVALID_WEBHOOK_FILTERS',
    'invalid webhook subscription filters: filtersJson must be valid JSON',
  ),
  WEBHOOK_ENDPOINT_NOT_FOUND: e(
    NOT_FOUND,
    'WEBHOOK_ENDPOINT_NOT_FOUND',
    'webhook endpoint not found',
  ),

  // Sub-organizations (CREATE_SUB_ORGANIZATION, DELETE_SUB_ORGANIZATION, whoami)
  SUB_ORGANIZATION_NESTING: e(
    StatusCode.FAILED_PRECONDITION,
    'SUB_ORGANIZATION_NESTING',
    'a sub-organization cannot create sub-organizations',
  ),
  NOT_A_SUB_ORGANIZATION: e(
    StatusCode.FAILED_PRECONDITION,
    'NOT_A_SUB_ORGANIZATION',
    'organization is not a sub-organization: only sub-organizations can be deleted',
  ),
  SUB_ORGANIZATION_NOT_EXPORTED: e(
    StatusCode.FAILED_PRECONDITION,
    'SUB_ORGANIZATION_NOT_EXPORTED',
    'sub-organization holds wallets or private keys that have not been exported: export them first or set deleteWithoutExport to true',
  ),
  MULTIPLE_SUB_ORGANIZATIONS_FOR_PUBLIC_KEY: e(
    INVALID_ARGUMENT,
    'MULTIPLE_SUB_ORGANIZATIONS',
    'more than one suborg associated with a public key',
  ),

  // One-time codes (INIT_OTP, VERIFY_OTP, OTP_LOGIN). "Invalid OTP code" and "Max number of
  // OTPs have been initiated" are the texts `@turnkey/core` matches.
  INVALID_OTP_LENGTH: e(
    INVALID_ARGUMENT,
    'INVALID_OTP_LENGTH',
    'invalid OTP length: must be between 6 and 9',
  ),
  INVALID_OTP_EXPIRATION: e(
    INVALID_ARGUMENT,
    'INVALID_OTP_EXPIRATION',
    'invalid OTP expiration: must be between 1 and 600 seconds',
  ),
  INVALID_VERIFICATION_TOKEN_EXPIRATION: e(
    INVALID_ARGUMENT,
    'INVALID_VERIFICATION_TOKEN_EXPIRATION',
    'invalid verification token expiration: must be between 1 and 86400 seconds',
  ),
  INVALID_CONTACT: e(INVALID_ARGUMENT, 'INVALID_CONTACT', 'invalid contact'),
  TEMPLATE_VARIABLES_INVALID: e(
    INVALID_ARGUMENT,
    'INVALID_TEMPLATE_VARIABLES',
    'failed to unmarshal template variables',
  ),
  MAX_OTPS_INITIATED: e(
    StatusCode.RESOURCE_EXHAUSTED,
    'MAX_OTPS_INITIATED',
    'Max number of OTPs have been initiated',
  ),
  OTP_NOT_FOUND: e(NOT_FOUND, 'OTP_NOT_FOUND', 'OTP not found'),
  INVALID_OTP_CODE: e(INVALID_ARGUMENT, 'INVALID_OTP_CODE', 'Invalid OTP code'),
  OTP_EXPIRED: e(StatusCode.FAILED_PRECONDITION, 'OTP_EXPIRED', 'OTP has expired'),
  OTP_ALREADY_USED: e(
    StatusCode.FAILED_PRECONDITION,
    'OTP_ALREADY_USED',
    'OTP has already been used',
  ),
  OTP_LOCKED: e(
    StatusCode.FAILED_PRECONDITION,
    'OTP_LOCKED',
    'OTP locked after too many failed attempts',
  ),
  INVALID_VERIFICATION_TOKEN: e(
    INVALID_ARGUMENT,
    'INVALID_VERIFICATION_TOKEN',
    'invalid verification token',
  ),
  VERIFICATION_TOKEN_EXPIRED: e(
    StatusCode.FAILED_PRECONDITION,
    'VERIFICATION_TOKEN_EXPIRED',
    'verification token has expired',
  ),
  VERIFICATION_TOKEN_ALREADY_USED: e(
    StatusCode.FAILED_PRECONDITION,
    'VERIFICATION_TOKEN_ALREADY_USED',
    'verification token has already been used',
  ),
  INVALID_CLIENT_SIGNATURE: e(
    INVALID_ARGUMENT,
    'INVALID_CLIENT_SIGNATURE',
    'invalid client signature',
  ),
  NOTIFIER_NOT_CONFIGURED: e(
    StatusCode.FAILED_PRECONDITION,
    'NOTIFIER_NOT_CONFIGURED',
    'no transport configured for this channel: the server cannot send email or SMS',
  ),

  // Server
  INTERNAL: e(INTERNAL, 'INTERNAL', 'internal server error'),
  UNAVAILABLE: e(StatusCode.UNAVAILABLE, 'UNAVAILABLE', 'service unavailable'),

  // Transactions (SIGN_TRANSACTION)
  FAILED_TO_PARSE_TRANSACTION: e(
    INVALID_ARGUMENT,
    'INVALID_TRANSACTION',
    'failed to parse transaction',
  ),
  UNSUPPORTED_TRANSACTION_TYPE: e(
    INVALID_ARGUMENT,
    'UNSUPPORTED_TRANSACTION_TYPE',
    'unsupported transaction type',
  ),
  SIGNER_NOT_IN_TRANSACTION: e(
    INVALID_ARGUMENT,
    'INVALID_TRANSACTION',
    'signing key is not a signer of the transaction',
  ),
  TRANSACTION_INPUT_NOT_SIGNABLE: e(
    INVALID_ARGUMENT,
    'INVALID_TRANSACTION',
    'cannot sign transaction input',
  ),
  PRIVATE_KEY_NOT_EXPORTABLE: e(
    StatusCode.FAILED_PRECONDITION,
    'PRIVATE_KEY_NOT_EXPORTABLE',
    'private key cannot be exported: it was generated inside the HSM',
  ),

  // Lifecycle (DISABLE_PRIVATE_KEY, DELETE_PRIVATE_KEYS, DELETE_WALLETS, DELETE_WALLET_ACCOUNTS)
  INVALID_WALLET_ACCOUNT_ID: e(
    INVALID_ARGUMENT,
    'INVALID_WALLET_ACCOUNT_ID',
    'invalid wallet account UUID',
  ),
  WALLET_ACCOUNT_NOT_IN_ORGANIZATION: e(
    NOT_FOUND,
    'WALLET_ACCOUNT_NOT_FOUND',
    'wallet account not part of your organization',
  ),
  WALLET_ACCOUNT_NOT_EXPORTED: e(
    StatusCode.FAILED_PRECONDITION,
    'WALLET_ACCOUNT_NOT_EXPORTED',
    'wallet account has not been exported',
  ),
  WALLET_NOT_EXPORTED: e(
    StatusCode.FAILED_PRECONDITION,
    'WALLET_NOT_EXPORTED',
    'wallet has not been exported: export it first or set deleteWithoutExport to true',
  ),
  PRIVATE_KEY_NOT_EXPORTED: e(
    StatusCode.FAILED_PRECONDITION,
    'PRIVATE_KEY_NOT_EXPORTED',
    'private key has not been exported: export it first or set deleteWithoutExport to true',
  ),
} as const satisfies Record<string, MessageEntry>;

export type MessageKey = keyof typeof Messages;

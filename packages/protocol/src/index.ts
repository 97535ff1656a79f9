/**
 * @keyhold/protocol — the wire protocol: enums, activity catalogue, JSON Schemas, the Status
 * error model and the message catalogue, and the RequestHandler port HTTP adapters use.
 * @module
 */

export {
  ACTIVITY_DEFINITIONS,
  type ActivityAction,
  type ActivityDefinition,
  type ActivityResource,
  activityDefinitionOf,
  activityDefinitionsAt,
  LOGIN_AT_PARENT_KINDS,
  PARENT_RUN_KINDS,
  ROOT_QUORUM_ONLY_KINDS,
  submitPathOf,
  VOTE_KINDS,
} from './activity-catalogue.js';
export {
  ACCESS_TYPES,
  ACTIVITY_STATUSES,
  ACTIVITY_TYPES,
  type AccessType,
  type ActivityStatus,
  type ActivityType,
  ADDRESS_FORMATS,
  type AddressFormat,
  API_KEY_CURVES,
  type ApiKeyCurve,
  AUTHENTICATOR_TRANSPORTS,
  type AuthenticatorTransport,
  CREDENTIAL_TYPE_OF_API_KEY_CURVE,
  CREDENTIAL_TYPES,
  type CredentialType,
  CURVES,
  type Curve,
  EFFECTS,
  type Effect,
  FINAL_ACTIVITY_STATUSES,
  HASH_FUNCTIONS,
  type HashFunction,
  MNEMONIC_LANGUAGES,
  MNEMONIC_LENGTHS,
  type MnemonicLanguage,
  OUTCOMES,
  type Outcome,
  PATH_FORMATS,
  PAYLOAD_ENCODINGS,
  type PathFormat,
  type PayloadEncoding,
  SIGNATURE_SCHEMES,
  type SignatureScheme,
  TRANSACTION_TYPES,
  type TransactionType,
  VOTE_SELECTIONS,
  type VoteSelection,
} from './enums.js';
export type {
  ErrorContext,
  ErrorDetailsArgs,
  ErrorDetailsByKey,
  ErrorDetailsOf,
} from './error-details.js';
export {
  ERROR_DETAIL_TYPE,
  internalStatus,
  isKeyholdError,
  KEYHOLD_ERROR_BRAND,
  KeyholdError,
  type StatusBody,
  type StatusDetail,
} from './keyhold-error.js';
export { type MessageEntry, type MessageKey, Messages } from './messages.js';
export {
  MAX_REQUEST_BODY_BYTES,
  type RawRequest,
  type RawResponse,
  type RequestHandler,
} from './request-handler.js';
export type {
  IntentOf,
  IntentOfKind,
  KindOf,
  QueryName,
  QueryOf,
  ServedActivityType,
  ServedKind,
  TypesOfKind,
  VoteKind,
} from './schemas/intent-types.js';
export {
  INTENT_SCHEMAS,
  OAUTH2_PROVIDERS,
  SMART_CONTRACT_INTERFACE_MAX_LENGTH,
  SMART_CONTRACT_INTERFACE_TYPES,
  WEBHOOK_EVENT_TYPES,
} from './schemas/intents.js';
export { QUERY_SCHEMAS, SUB_ORG_FILTER_TYPES } from './schemas/queries.js';
export type { Infer, JsonSchema, Schema } from './schemas/schema-builders.js';
export type {
  AccountParams,
  ApiKeyParams,
  AuthenticatorParams,
  OauthProviderParams,
} from './schemas/shapes.js';
export { httpStatusOf, StatusCode } from './status-code.js';
export { isUuid, validateEnvelope, validateIntent, validateQuery } from './validate.js';
export {
  type Activity,
  type ActivityRequest,
  type ActivityResults,
  type Address,
  type ApiKey,
  type Authenticator,
  type CreateSubOrganizationResult,
  type Credential,
  type Oauth2Credential,
  type OauthProvider,
  type Policy,
  type PolicyEvaluation,
  type PolicyOutcome,
  type PolicyOutcomeError,
  type PrivateKey,
  type PrivateKeyResult,
  type Quorum,
  type ReadOnlySessionResult,
  type ReadWriteSessionResult,
  type ResultOf,
  type ResultOfKind,
  type SignatureResult,
  type SmartContractInterface,
  type Tag,
  type TagType,
  type Timestamp,
  timestampOf,
  type User,
  type Vote,
  type Wallet,
  type WalletAccount,
  type WalletResult,
  type WebhookEndpoint,
  type WebhookEndpointResult,
  type WebhookSubscription,
} from './wire-types.js';

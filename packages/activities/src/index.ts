/**
 * @keyhold/activities — organizations, users, credentials, stamps, the activity lifecycle
 * and queries, and rate-limit admission. Owns the Store, Clock, Ids, SignatureVerifier and
 * RateLimiter ports.
 * @module
 */

export {
  ActivityService,
  type ActivityServiceDeps,
  type ActivityServiceOptions,
  fingerprintOf,
} from './activity-service.js';
export { normalizeApiPublicKey } from './api-key-public-key.js';
export {
  AUDIT_GENESIS_HASH,
  type AuditBreak,
  type AuditEvent,
  appendAuditEvent,
  auditBody,
  auditChainChecker,
  auditEntryHash,
  verifyAuditChain,
} from './audit/audit-chain.js';
export { keywordsOfActivityType } from './decision/keyword-availability.js';
export { checkPolicyTexts } from './decision/policy-errors.js';
export { type GasSponsor, microUsd, usdOf } from './handlers/gas-sponsorship.js';
export {
  AUTH_PROXY_ACTIVITY_TYPES,
  type AuthProxySetting,
  authProxyOrganizationOf,
  authProxySettingOf,
  openAuthProxyApiKey,
} from './handlers/organization-settings.js';
export { decodeRevert, type RevertEntry } from './handlers/revert-chain.js';
export { EVM_CAIP2_NETWORKS } from './handlers/send-transaction.js';
export { canonicalSolanaCaip2 } from './handlers/sol-send-transaction.js';
export { nobleSignatureVerifier } from './noble-signature-verifier.js';
export {
  BootstrapConflictError,
  type BootstrapInput,
  type BootstrapResult,
  bootstrapOrganization,
} from './organization-bootstrap.js';
export {
  type ExplainedPolicyError,
  type ExplainedPolicyEvaluation,
  PolicyExplainer,
  type PolicyExplainerDeps,
  type PolicyExplanation,
} from './policy-explainer.js';
export { Clock, systemClock } from './ports/clock.js';
export {
  type EvmCallRequest,
  EvmExecutionRevertedError,
  type EvmRefusalReason,
  type EvmSendChain,
  type EvmSendReceipt,
  EvmTransactionRefusedError,
  isEvmChainUnavailable,
  noSendTransactionChains,
  SendTransactionChains,
  sendTransactionChainsOf,
} from './ports/evm-send-chain.js';
export { Ids, randomIds } from './ports/ids.js';
export { LOG_LEVELS, Logger, type LogLevel, silentLogger } from './ports/logger.js';
export {
  Metrics,
  type MetricsExposition,
  noMetrics,
  type PortFailure,
  type RequestSample,
  type WebhookOutcome,
} from './ports/metrics.js';
export {
  type EmailMessage,
  Notifier,
  NotifierChannelUnsupportedError,
  type NotifierMessage,
  NotifierUnavailableError,
  noNotifier,
  notifierByChannel,
  type SmsMessage,
} from './ports/notifier.js';
export {
  noOauth2Gateway,
  type Oauth2CodeExchange,
  Oauth2ExchangeRefusedError,
  Oauth2Gateway,
  type Oauth2Identity,
  type Oauth2ProviderName,
  Oauth2ProviderNotConfiguredError,
  Oauth2ProviderUnavailableError,
} from './ports/oauth2-gateway.js';
export {
  noOidcVerifier,
  type OidcClaims,
  OidcIssuerUnavailableError,
  OidcTokenInvalidError,
  OidcVerifier,
} from './ports/oidc-verifier.js';
export {
  ON_RAMP_INITIATED,
  type OnRampCredentialSecrets,
  OnRampProvider,
  type OnRampPurchase,
  OnRampPurchaseUnsupportedError,
  OnRampStatusUnavailableError,
  type OnRampTransactionRef,
  OnRampUrlRefusedError,
} from './ports/on-ramp-provider.js';
export {
  PORT_ERROR_BRAND,
  PortError,
  type PortErrorCode,
  portErrorCodeOf,
} from './ports/port-error.js';
export {
  type RateLimitDecision,
  RateLimiter,
  RateLimiterUnavailableError,
  type RateLimitRule,
} from './ports/rate-limiter.js';
export {
  type EcdsaStampCurve,
  SignatureVerifier,
  type StampCurve,
} from './ports/signature-verifier.js';
export {
  isSolanaChainUnavailable,
  SolanaChainUnavailableError,
  type SolanaSendChain,
  type SolanaSignatureStatus,
  type SolanaSimulation,
  SolanaTransactionRefusedError,
} from './ports/solana-send-chain.js';
export {
  type ActivityFilter,
  type ActivityRepository,
  type ApiKeyCredential,
  type ApiKeyRepository,
  type AuditLogRepository,
  type AuthenticatorCredential,
  type AuthenticatorRepository,
  addressKey,
  type CredentialRelation,
  type CredentialRepository,
  type CredentialScope,
  type FiatOnRampCredentialRepository,
  type InvitationRepository,
  type NamedRecordRepository,
  type Oauth2CredentialRepository,
  type OauthProviderRepository,
  type OnRampTransactionRepository,
  type OrganizationDocumentRepository,
  type OrganizationRepository,
  type OtpRepository,
  type PageRequest,
  type PaymentRepository,
  type PolicyEvaluationRepository,
  type PolicyRepository,
  type PrivateKeyRepository,
  type PrivateKeyTagRepository,
  type ResourceCounts,
  type SmartContractInterfaceRepository,
  Store,
  StoreConflictError,
  type StoreTransaction,
  StoreUnavailableError,
  type UserRepository,
  type UserTagRepository,
  type WalletAccountRepository,
  type WalletRepository,
  type WebhookDeliveryRepository,
  type WebhookEndpointRepository,
} from './ports/store.js';
export {
  type ApiKeyPrincipal,
  findPrincipal,
  type PasskeyPrincipal,
  type Principal,
} from './principal.js';
export { QueryService, type QueryServiceDeps } from './query-service.js';
export {
  DEFAULT_RATE_LIMITS,
  GCRA_SLACK_MS,
  type GcraState,
  type GcraStep,
  gcra,
  laneOfRoute,
  type NormalizedRule,
  normalizeRule,
  type PrincipalCharge,
  RateLimitedError,
  type RateLimitLane,
  type RateLimitOverrides,
  type RateLimitRefusal,
  type RateLimitRules,
  type RateLimitScope,
  RequestAdmission,
  type RequestMeter,
  rateLimitedMessage,
  rateLimitRules,
} from './rate-limit/index.js';
export type {
  ActivityRecord,
  ApiKeyRecord,
  AuditEntryRecord,
  AuditHeadRecord,
  AuthenticatorRecord,
  FiatOnRampCredentialRecord,
  GasUsageConfigRecord,
  InvitationRecord,
  Oauth2CredentialRecord,
  OauthProviderRecord,
  OnRampTransactionRecord,
  OrganizationDocumentKind,
  OrganizationDocumentRecord,
  OrganizationRecord,
  OtpRecord,
  PaymentRecord,
  PaymentStatus,
  PolicyEvaluationRecord,
  PolicyOutcomeRecord,
  PolicyRecord,
  PrivateKeyRecord,
  PrivateKeyTagRecord,
  SendTransactionRecord,
  SmartContractInterfaceRecord,
  TagRecord,
  UserRecord,
  UserTagRecord,
  VoteRecord,
  WalletAccountRecord,
  WalletRecord,
  WebhookEndpointRecord,
  WebhookSubscriptionRecord,
} from './records.js';
export {
  NO_RESOURCES,
  RESOURCE_KINDS,
  type ResourceLimits,
} from './resource-limits.js';
export {
  type IncomingRequest,
  readSignedRequest,
  type SignedRequest,
} from './signed-request.js';
export {
  FREE_TIER_MONTHLY_SIGNATURES,
  requireSigningQuota,
  type SigningQuotas,
} from './signing-quota.js';
export {
  type SigningPlan,
  type StartedSignatures,
  signWithStarted,
} from './speculative-signing.js';
export { parseStamp, type Stamp, verifyStamp } from './stamp.js';
export { PASSKEY_ALGORITHMS } from './webauthn-attestation.js';
export { checkWebauthnChallenge, webauthnChallengeOf } from './webauthn-stamp.js';

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
  DEFAULT_CONSENSUS_EXPIRY_MS,
  DEFAULT_TIMESTAMP_TOLERANCE_MS,
  fingerprintOf,
} from './activity-service.js';
export { normalizeApiPublicKey } from './api-key-public-key.js';
export { conditionContextOf, policyParamsOf } from './decision/condition-context.js';
export { consensusContextOf, policyUser } from './decision/consensus-context.js';
export {
  type ActivityDecision,
  type DecisionOutcome,
  type DecisionReason,
  type DecisionSubject,
  decide,
  loadPolicySet,
  rootQuorumStanding,
} from './decision/decide.js';
export {
  assertKeywordsAvailable,
  KEYWORDS_BY_KIND,
  keywordsOfActivityType,
  type OptionalKeyword,
} from './decision/keyword-availability.js';
export { checkPolicyTexts, policyErrorToKeyholdError } from './decision/policy-errors.js';
export {
  consensusExpired,
  consensusExpiresAt,
  namedInConsensus,
  votingRights,
} from './decision/voting-rights.js';
export {
  ACTIVITY_HANDLERS,
  type ActivityContext,
  type ActivityHandler,
  type PrecheckSettings,
} from './handlers/index.js';
export { refuseUndeliverableWebhookUrl } from './handlers/webhook-endpoints.js';
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
export * from './ports/clock.js';
export * from './ports/ids.js';
export * from './ports/rate-limiter.js';
export * from './ports/signature-verifier.js';
export * from './ports/store.js';
export type { Principal } from './principal.js';
export { QUERY_HANDLERS, type QueryContext, type QueryHandler } from './queries/index.js';
export { QueryService, type QueryServiceDeps } from './query-service.js';
export * from './rate-limit/index.js';
export * from './records.js';
export { type IncomingRequest, readSignedRequest, type SignedRequest } from './signed-request.js';
export { type ApiKeyStamp, parseStamp, verifyStamp } from './stamp.js';
export * from './views.js';
export {
  ACTIVITY_UPDATES,
  activityEventBody,
  enqueueActivityUpdate,
  receivesActivityUpdates,
} from './webhook-events.js';

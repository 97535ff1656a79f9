/**
 * @keyhold/activities — organizations, users, credentials, stamps, the activity lifecycle
 * and queries. Owns the Store, Clock, Ids and SignatureVerifier ports.
 * @module
 */
export * from './records.js';
export * from './ports/store.js';
export * from './ports/clock.js';
export * from './ports/ids.js';
export * from './ports/signature-verifier.js';
export { nobleSignatureVerifier } from './noble-signature-verifier.js';
export { parseStamp, verifyStamp, type ApiKeyStamp } from './stamp.js';
export { normalizeApiPublicKey } from './api-key-public-key.js';
export type { Principal } from './principal.js';
export { readSignedRequest, type IncomingRequest, type SignedRequest } from './signed-request.js';
export {
  ActivityService,
  fingerprintOf,
  DEFAULT_TIMESTAMP_TOLERANCE_MS,
  type ActivityServiceDeps,
  type ActivityServiceOptions,
} from './activity-service.js';
export { QueryService, type QueryServiceDeps } from './query-service.js';
export { bootstrapOrganization, type BootstrapInput, type BootstrapResult } from './organization-bootstrap.js';
export { ACTIVITY_HANDLERS, type ActivityContext, type ActivityHandler } from './handlers/index.js';
export { QUERY_HANDLERS, type QueryContext, type QueryHandler } from './queries/index.js';
export * from './views.js';

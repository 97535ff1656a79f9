/**
 * Rate limiting in the domain: lanes, scopes, rules, activity costs, admission and its order,
 * and the GCRA reference model. No I/O: the RateLimiter port does the counting; its contract
 * is `@keyhold/conformance/rate-limiter`.
 * @module
 */
export { activityCost, MAX_ACTIVITY_COST, WEIGHTED_KINDS } from './activity-cost.js';
export {
  type Admission,
  admitClient,
  admitPrincipal,
  bucketKey,
  type PrincipalCharge,
  type RateLimitRefusal,
  rateLimitedMessage,
} from './admission.js';
export {
  GCRA_SLACK_MS,
  type GcraState,
  type GcraStep,
  gcra,
  type NormalizedRule,
  normalizeRule,
} from './gcra.js';
export {
  CHAIN_EXPENSIVE_KINDS,
  laneOfRoute,
  RATE_LIMIT_LANES,
  type RateLimitLane,
} from './lanes.js';
export { RateLimitedError, RequestAdmission, type RequestMeter } from './request-admission.js';
export {
  DEFAULT_RATE_LIMITS,
  type RateLimitOverrides,
  type RateLimitRules,
  rateLimitRules,
} from './rules.js';
export { ipBucketOf, RATE_LIMIT_SCOPES, type RateLimitScope } from './scopes.js';

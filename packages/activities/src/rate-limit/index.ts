/**
 * Rate limiting in the domain: lanes, scopes, rules, admission, the GCRA reference model and
 * the RateLimiter contract. No I/O: the RateLimiter port does the counting.
 * @module
 */
export {
  type Admission,
  type AdmissionRequest,
  admit,
  bucketKey,
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
export {
  type RateLimiterCheck,
  type RateLimiterContractTarget,
  type RateLimitStep,
  rateLimiterContract,
  replayAgainstModel,
} from './rate-limiter-contract.js';
export {
  DEFAULT_RATE_LIMITS,
  type RateLimitOverrides,
  type RateLimitRules,
  rateLimitRules,
} from './rules.js';
export { ipBucketOf, organizationIdOf, RATE_LIMIT_SCOPES, type RateLimitScope } from './scopes.js';

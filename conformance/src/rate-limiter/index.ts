/**
 * @keyhold/conformance/rate-limiter — the RateLimiter contract: the checks any implementation
 * of the RateLimiter port of @keyhold/activities (the memory limiter, the Redis limiter, a
 * vendor's own) must pass, as plain `{ name, run }` objects for any test runner, on a clock the
 * contract controls; and the GCRA model replay with its fast-check arbitrary, for property
 * tests.
 * @module
 */
export {
  type RateLimiterCheck,
  type RateLimiterContractTarget,
  type RateLimitStep,
  rateLimiterContract,
  replayAgainstModel,
} from './rate-limiter-contract.js';
export { ruleAndSteps } from './rule-and-steps.js';

/**
 * @keyhold/ratelimit-memory — the RateLimiter port in process memory (GCRA), for one
 * Keyhold instance.
 * @module
 */
export { MemoryRateLimiter, type MemoryRateLimiterOptions } from './memory-rate-limiter.js';

/**
 * @keyhold/ratelimit-redis — the RateLimiter port in Redis (GCRA in one Lua script), one
 * budget shared by every Keyhold instance on the same Redis.
 * @module
 */
export {
  failFastRedisOptions,
  RedisRateLimiter,
  type RedisRateLimiterOptions,
} from './redis-rate-limiter.js';

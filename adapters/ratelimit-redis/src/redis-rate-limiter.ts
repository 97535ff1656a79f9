/**
 * The Redis RateLimiter: GCRA in one Lua script (see `gcra-script.ts`), so every Keyhold
 * instance on the same Redis draws from the same buckets. It fails fast: with no connection,
 * or no answer within the command timeout, a take rejects with RateLimiterUnavailableError
 * (the request answers 503) instead of queueing behind an outage.
 * @module
 */
import { createHash } from 'node:crypto';
import {
  type Clock,
  GCRA_SLACK_MS,
  normalizeRule,
  type RateLimitDecision,
  type RateLimiter,
  RateLimiterUnavailableError,
  type RateLimitRule,
} from '@keyhold/activities';
import { Redis, type RedisOptions, ReplyError } from 'ioredis';
import { GCRA_LUA } from './gcra-script.js';

/**
 * @example
 * new RedisRateLimiter({ url: 'redis://127.0.0.1:6379', keyPrefix: 'acme:ratelimit:', onError: (e) => log(e) });
 */
export interface RedisRateLimiterOptions {
  /** `redis://[user:password@]host:port[/db]` or `rediss://…`. Give this or `redis`. */
  url?: string;
  /**
   * An ioredis client you own instead of a URL; `close()` leaves it open. Create it with the
   * options of `failFastRedisOptions()`, or an outage makes takes wait instead of failing.
   */
  redis?: Redis;
  /** Prefix of every key (default `keyhold:ratelimit:`), so several deployments can share a Redis. */
  keyPrefix?: string;
  /** How long a take may wait for Redis before it fails as unavailable (default 500 ms). */
  commandTimeoutMs?: number;
  /** How long connecting may take (default 2000 ms). */
  connectTimeoutMs?: number;
  /** Called with connection errors (they are also why takes fail), e.g. to log them. */
  onError?: (error: Error) => void;
  /**
   * Tests only: take the time from this clock instead of Redis `TIME`. Leave it unset in
   * production — instances with skewed clocks would then disagree about every bucket.
   */
  clock?: Clock;
}

/**
 * ioredis options that make an outage fail fast: no offline queue (a command without a
 * connection fails at once), no retry or resend of a command (a take is not idempotent), a
 * command timeout, and reconnection in the background so the limiter recovers by itself.
 * @example
 * const redis = new Redis('redis://127.0.0.1:6379', failFastRedisOptions());
 */
export function failFastRedisOptions(
  commandTimeoutMs = 500,
  connectTimeoutMs = 2000,
): RedisOptions {
  return {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    commandTimeout: commandTimeoutMs,
    connectTimeout: connectTimeoutMs,
    retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
  };
}

/** Redis replies that mean "not now" rather than "wrong": the request may be retried. */
const TRANSIENT_REPLY =
  /^(LOADING|BUSY|MASTERDOWN|READONLY|TRYAGAIN|CLUSTERDOWN|NOREPLICAS|OOM|NOAUTH|WRONGPASS|NOPERM)\b/;

const SCRIPT_SHA = createHash('sha1').update(GCRA_LUA).digest('hex');

/**
 * GCRA in Redis. Keys are `<keyPrefix><key>`, one string each holding the bucket's TAT, with
 * a TTL of the time until the bucket is full again plus a second.
 * @example
 * const limiter = new RedisRateLimiter({ url: 'redis://127.0.0.1:6379' });
 * await limiter.ping(); // fails fast if Redis is unreachable
 * const decision = await limiter.take('activity:org:' + organizationId, { limit: 60, periodMs: 1000 });
 * await limiter.close();
 */
export class RedisRateLimiter implements RateLimiter {
  private readonly redis: Redis;
  private readonly owned: boolean;
  private readonly keyPrefix: string;
  private readonly commandTimeoutMs: number;
  private readonly connectTimeoutMs: number;
  private readonly clock: Clock | undefined;
  private lastError: Error | undefined;
  private everReady = false;
  private pendingConnection: Promise<void> | undefined;
  private readonly onReady: () => void;
  private readonly onError: (error: Error) => void;

  constructor(options: RedisRateLimiterOptions) {
    this.commandTimeoutMs = options.commandTimeoutMs ?? 500;
    this.connectTimeoutMs = options.connectTimeoutMs ?? 2000;
    this.keyPrefix = options.keyPrefix ?? 'keyhold:ratelimit:';
    this.clock = options.clock;
    if (options.redis) {
      this.redis = options.redis;
      this.owned = false;
    } else if (options.url) {
      this.redis = new Redis(
        options.url,
        failFastRedisOptions(this.commandTimeoutMs, this.connectTimeoutMs),
      );
      this.owned = true;
    } else {
      throw new TypeError('RedisRateLimiter needs a url or a redis client');
    }
    this.everReady = this.redis.status === 'ready';
    this.onReady = () => {
      this.everReady = true;
      this.lastError = undefined;
    };
    // A listener also keeps ioredis from printing "Unhandled error event" for each retry.
    this.onError = (error: Error) => {
      this.lastError = error;
      options.onError?.(error);
    };
    this.redis.on('ready', this.onReady);
    this.redis.on('error', this.onError);
  }

  async take(key: string, rule: RateLimitRule, cost = 1): Promise<RateLimitDecision> {
    const { burst, emissionMs } = normalizeRule(rule, cost);
    await this.firstConnection(this.commandTimeoutMs);
    const args = [
      String(emissionMs),
      String(burst),
      String(cost),
      String(GCRA_SLACK_MS),
      this.clock ? String(this.clock.now()) : '',
    ];
    const fullKey = this.keyPrefix + key;
    let reply: unknown;
    try {
      reply = await this.redis.evalsha(SCRIPT_SHA, 1, fullKey, ...args).catch((error: unknown) => {
        if (error instanceof ReplyError && /^NOSCRIPT/.test((error as Error).message))
          return this.redis.eval(GCRA_LUA, 1, fullKey, ...args);
        throw error;
      });
    } catch (error) {
      throw this.asUnavailable(error);
    }
    const [allowed, limit, remaining, resetMs, retryAfterMs] = reply as number[];
    return {
      allowed: allowed === 1,
      limit: limit ?? burst,
      remaining: remaining ?? 0,
      resetMs: resetMs ?? 0,
      retryAfterMs: retryAfterMs ?? 0,
    };
  }

  /** Waits (up to the connect timeout) for a first connection, then asks Redis for a PONG. */
  async ping(): Promise<void> {
    await this.firstConnection(this.connectTimeoutMs);
    try {
      await this.redis.ping();
    } catch (error) {
      throw this.asUnavailable(error);
    }
  }

  /** Closes the connection this limiter opened (a client passed in stays open). */
  async close(): Promise<void> {
    this.redis.off('ready', this.onReady);
    if (!this.owned) {
      this.redis.off('error', this.onError);
      return;
    }
    try {
      if (this.redis.status === 'ready') await this.redis.quit();
      else this.redis.disconnect();
    } catch {
      this.redis.disconnect();
    }
  }

  /**
   * Right after construction the connection is still being made; waiting for it (briefly)
   * spares the first requests a 503. After the first connection, an outage fails at once.
   */
  private async firstConnection(timeoutMs: number): Promise<void> {
    if (this.everReady) return;
    const status = this.redis.status;
    if (status !== 'wait' && status !== 'connecting' && status !== 'connect') return;
    if (status === 'wait') this.redis.connect().catch(() => {});
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no connection within ${timeoutMs} ms`)),
        timeoutMs,
      );
    });
    try {
      await Promise.race([this.connectionOutcome(), timeout]);
    } catch (error) {
      throw this.asUnavailable(error);
    } finally {
      clearTimeout(timer);
    }
  }

  /** One promise per connection attempt, shared by every waiting take (one set of listeners). */
  private connectionOutcome(): Promise<void> {
    this.pendingConnection ??= new Promise<void>((resolve, reject) => {
      const settle = (error?: Error) => {
        this.redis.off('ready', onReady);
        this.redis.off('error', onError);
        this.redis.off('end', onEnd);
        this.pendingConnection = undefined;
        if (error) reject(error);
        else resolve();
      };
      const onReady = () => settle();
      const onError = (error: Error) => settle(error);
      const onEnd = () => settle(new Error('connection closed'));
      this.redis.once('ready', onReady);
      this.redis.once('error', onError);
      this.redis.once('end', onEnd);
    });
    // Waiters may all have timed out by the time it settles: never an unhandled rejection.
    this.pendingConnection.catch(() => {});
    return this.pendingConnection;
  }

  /** A connection or timeout failure becomes RateLimiterUnavailableError; a script error stays a fault. */
  private asUnavailable(error: unknown): Error {
    if (RateLimiterUnavailableError.is(error)) return error;
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof ReplyError && !TRANSIENT_REPLY.test(message)) return error as Error;
    const cause = this.lastError && this.lastError.message !== message ? this.lastError : undefined;
    return new RateLimiterUnavailableError(
      cause ? `${message} (${cause.message || cause.name})` : message || 'redis unavailable',
    );
  }
}

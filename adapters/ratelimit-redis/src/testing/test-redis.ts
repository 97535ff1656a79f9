/**
 * The Redis the tests use: 127.0.0.1:6379, or KEYHOLD_TEST_REDIS_URL. Each run works under a
 * key prefix of its own and deletes its keys afterwards. Without a reachable Redis the Redis
 * tests are skipped with a loud warning — unless CI is set, where that fails.
 * @module
 */
import { once } from 'node:events';
import { createServer, type Server, Socket } from 'node:net';
import { Redis } from 'ioredis';

/**
 * @example
 * new RedisRateLimiter({ url: TEST_REDIS_URL, keyPrefix: testKeyPrefix() });
 */
export const TEST_REDIS_URL = process.env.KEYHOLD_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

const inCi = (): boolean => {
  const ci = process.env.CI;
  return ci !== undefined && ci !== '' && ci !== '0' && ci.toLowerCase() !== 'false';
};

/**
 * Whether the Redis tests can run. In CI a missing Redis throws (the test file fails);
 * elsewhere it warns loudly and they are skipped.
 * @example
 * const withRedis = await redisReachable();
 * describe.skipIf(!withRedis)('…', () => {});
 */
export async function redisReachable(): Promise<boolean> {
  const redis = new Redis(TEST_REDIS_URL, {
    lazyConnect: true,
    connectTimeout: 2000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on('error', () => {});
  try {
    await redis.connect();
    await redis.ping();
    return true;
  } catch (error) {
    const why = error instanceof Error ? error.message || error.name : String(error);
    if (inCi())
      throw new Error(`CI requires Redis at ${TEST_REDIS_URL}, which is unreachable: ${why}`);
    const bar = '!'.repeat(78);
    console.warn(
      `\n${bar}\n!! Redis at ${TEST_REDIS_URL} is unreachable (${why}).\n` +
        `!! SKIPPING the Redis rate-limiter tests. Start Redis to run them;\n` +
        `!! with CI=true this is a failure.\n${bar}\n`,
    );
    return false;
  } finally {
    redis.disconnect();
  }
}

/**
 * A key prefix unique to this run.
 * @example
 * const prefix = testKeyPrefix(); // 'keyhold-test:lq3x…:'
 */
export function testKeyPrefix(): string {
  return `keyhold-test:${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}:`;
}

/**
 * Deletes every key under `prefix`.
 * @example
 * afterAll(() => deleteKeys(prefix));
 */
export async function deleteKeys(prefix: string): Promise<void> {
  const redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      if (keys.length) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

/**
 * A TCP proxy in front of Redis that a test can stall (it holds bytes) or cut.
 * @example
 * const proxy: RedisProxy = await startRedisProxy();
 * await proxy.close(); // every connection through it is reset
 */
export interface RedisProxy {
  url: string;
  /** While stalled, bytes in both directions are held back, as from a Redis that hangs. */
  stall(value: boolean): void;
  /** Resets every connection and stops listening. */
  close(): Promise<void>;
}

/**
 * Starts a proxy to the test Redis on a free port.
 * @example
 * const proxy = await startRedisProxy();
 * proxy.stall(true); // commands now time out
 */
export async function startRedisProxy(): Promise<RedisProxy> {
  const upstream = new URL(TEST_REDIS_URL);
  const sockets = new Set<Socket>();
  let stalled = false;
  const held: (() => void)[] = [];
  const pipe = (from: Socket, to: Socket) =>
    from.on('data', (chunk) => {
      if (stalled) held.push(() => to.write(chunk));
      else to.write(chunk);
    });
  const server: Server = createServer((client) => {
    const redis = new Socket();
    sockets.add(client);
    sockets.add(redis);
    redis.connect(Number(upstream.port || 6379), upstream.hostname);
    pipe(client, redis);
    pipe(redis, client);
    const end = () => {
      client.destroy();
      redis.destroy();
    };
    client.on('error', end).on('close', end);
    redis.on('error', end).on('close', end);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  return {
    url: `redis://127.0.0.1:${port}`,
    stall(value) {
      stalled = value;
      if (!value) for (const release of held.splice(0)) release();
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

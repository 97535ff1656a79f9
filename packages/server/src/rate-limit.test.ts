/**
 * Rate limiting through real HTTP (request path step 3): the published clients and plain
 * fetch against `startServer` with tight limits. The memory limiter runs on a manual clock,
 * so "waiting out Retry-After" is a clock step and nothing here depends on machine speed;
 * the Redis tests use Redis time with periods long enough that nothing refills mid-test.
 */
import { randomUUID } from 'node:crypto';
import type { RateLimiter, RateLimitOverrides } from '@keyhold/activities';
import { MemoryRateLimiter } from '@keyhold/ratelimit-memory';
import { RedisRateLimiter } from '@keyhold/ratelimit-redis';
import { MemoryStore } from '@keyhold/store-memory';
import { TurnkeyRequestError } from '@turnkey/sdk-server';
import { afterEach, describe, expect, it } from 'vitest';
import { httpClient, rejection, sdkClient as sdk } from './__fixtures__/turnkey-server.js';
import { type ApiKeyPair, createApiKeyStamper, generateApiKeyPair } from './api-key-signer.js';
import { createKeyhold } from './keyhold.js';
import { silentLogger } from './logger.js';
import { type RunningServer, startServer } from './serve.js';

const REDIS_URL = process.env.KEYHOLD_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const PROBLEM = 'application/problem+json';

const servers: RunningServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

function manualClock() {
  let now = 1_750_000_000_000;
  return {
    now: () => now,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

async function serve(rateLimiter: RateLimiter | undefined, rateLimits: RateLimitOverrides = {}) {
  const key = generateApiKeyPair();
  const server = await startServer({
    port: 0,
    logger: silentLogger,
    bootstrapApiPublicKey: key.publicKey,
    bootstrapOrganizationName: 'Limited',
    ...(rateLimiter ? { rateLimiter } : {}),
    rateLimits,
  });
  servers.push(server);
  return { server, key, organizationId: server.organizationId as string };
}

/** A stamped POST with plain fetch, so every header of the answer is visible. */
async function post(
  url: string,
  path: string,
  body: unknown,
  key: ApiKeyPair,
  headers: Record<string, string> = {},
) {
  const text = JSON.stringify(body);
  return fetch(url + path, {
    method: 'POST',
    body: text,
    headers: { 'x-stamp': createApiKeyStamper(key.privateKey).stamp(text), ...headers },
  });
}

const whoami = (url: string, organizationId: string, key: ApiKeyPair, headers = {}) =>
  post(url, '/public/v1/query/whoami', { organizationId }, key, headers);

const createWallet = (organizationId: string, walletName: string) => ({
  type: 'ACTIVITY_TYPE_CREATE_WALLET' as const,
  timestampMs: String(Date.now()),
  organizationId,
  parameters: { walletName, accounts: [] },
});

function headersOf(response: Response): Record<string, string> {
  const out: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    out[name] = value;
  });
  return out;
}

/** Two per ten seconds per organization (one token every 5 s), in the query and activity lanes. */
const TIGHT: RateLimitOverrides = {
  query: { organization: { limit: 2, periodMs: 10_000 } },
  activity: { organization: { limit: 2, periodMs: 10_000 } },
};

describe('rate limiting over HTTP (memory limiter, manual clock)', () => {
  it('answers 429 with every header, plain text by default and problem+json on request; Retry-After honoured', async () => {
    const clock = manualClock();
    const { server, key, organizationId } = await serve(new MemoryRateLimiter({ clock }), TIGHT);
    const client = sdk(server.url, organizationId, key);

    expect((await client.getWhoami({})).organizationId).toBe(organizationId);
    const second = await whoami(server.url, organizationId, key);
    expect(second.status).toBe(200);
    expect(second.headers.get('ratelimit-limit')).toBe('2');
    expect(second.headers.get('ratelimit-remaining')).toBe('0');
    expect(second.headers.get('ratelimit-reset')).toBe('10');

    // The published clients surface the plain-text 429 as "429 Too Many Requests".
    expect((await rejection(client.getWhoami({}))).message).toBe('429 Too Many Requests');
    expect(
      (await rejection(httpClient(server.url, key).getWhoami({ organizationId }))).message,
    ).toBe('429 Too Many Requests');

    const plain = await whoami(server.url, organizationId, key);
    expect(plain.status).toBe(429);
    expect(headersOf(plain)).toMatchObject({
      'retry-after': '5',
      'ratelimit-limit': '2',
      'ratelimit-remaining': '0',
      'ratelimit-reset': '10',
      'x-keyhold-ratelimit-lane': 'query',
      'x-keyhold-ratelimit-scope': 'organization',
      'content-type': 'text/plain; charset=utf-8',
      'access-control-allow-origin': '*',
    });
    expect(plain.headers.get('access-control-expose-headers')).toContain('retry-after');
    expect(await plain.text()).toBe(
      'Too many requests. Please wait and try again in a few seconds',
    );

    const problem = await whoami(server.url, organizationId, key, {
      accept: `${PROBLEM}, application/json;q=0.5`,
    });
    expect(problem.status).toBe(429);
    expect(problem.headers.get('content-type')).toBe(PROBLEM);
    expect(problem.headers.get('retry-after')).toBe('5');
    expect(problem.headers.get('x-keyhold-ratelimit-lane')).toBe('query');
    expect(await problem.json()).toEqual({
      type: 'https://keyhold.dev/docs/errors#rate-limited',
      title: 'Too Many Requests',
      status: 429,
      detail: 'Too many requests. Please wait and try again in a few seconds',
      code: 'RATE_LIMITED',
      lane: 'query',
      scope: 'organization',
      retryAfterMs: 5000,
    });

    // One second short of Retry-After: still refused. On time: admitted.
    clock.advance(4000);
    expect((await whoami(server.url, organizationId, key)).status).toBe(429);
    clock.advance(1000);
    const after = await whoami(server.url, organizationId, key);
    expect(after.status).toBe(200);
    expect(after.headers.get('ratelimit-remaining')).toBe('0');
  });

  it('an organization refused on the activity lane gets the catalogue sentence, and no activity is stored', async () => {
    const clock = manualClock();
    const { server, key, organizationId } = await serve(new MemoryRateLimiter({ clock }), TIGHT);
    const client = sdk(server.url, organizationId, key);

    await client.createWallet({ walletName: 'one', accounts: [] });
    await client.createWallet({ walletName: 'two', accounts: [] });
    const refused = await post(
      server.url,
      '/public/v1/submit/create_wallet',
      createWallet(organizationId, 'three'),
      key,
      { accept: PROBLEM },
    );
    expect(refused.status).toBe(429);
    expect(refused.headers.get('x-keyhold-ratelimit-lane')).toBe('activity');
    expect(await refused.json()).toMatchObject({
      lane: 'activity',
      scope: 'organization',
      detail: expect.stringMatching(
        /^this organization cannot execute activities because it has been rate limited\./,
      ),
    });
    expect(
      (await rejection(client.createWallet({ walletName: 'four', accounts: [] }))).message,
    ).toBe('429 Too Many Requests');

    // Lanes are independent: reads still pass while writes are refused.
    const { activities } = await client.getActivities({});
    expect(activities.map((a) => a.type)).toEqual([
      'ACTIVITY_TYPE_CREATE_WALLET',
      'ACTIVITY_TYPE_CREATE_WALLET',
    ]);
    const { wallets } = await client.getWallets({});
    expect(wallets.map((w) => w.walletName).sort()).toEqual(['one', 'two']);

    clock.advance(5000);
    expect((await client.createWallet({ walletName: 'five', accounts: [] })).walletId).toBeTruthy();
  });

  it('organizations have independent budgets', async () => {
    const clock = manualClock();
    const keyhold = createKeyhold({
      logger: silentLogger,
      rateLimiter: new MemoryRateLimiter({ clock }),
      rateLimits: TIGHT,
    });
    const server = await startServer({ keyhold, port: 0 });
    servers.push(server);
    const a = generateApiKeyPair();
    const b = generateApiKeyPair();
    const orgA = (await keyhold.bootstrap({ organizationName: 'A', apiPublicKey: a.publicKey }))
      .organizationId;
    const orgB = (await keyhold.bootstrap({ organizationName: 'B', apiPublicKey: b.publicKey }))
      .organizationId;

    for (let i = 0; i < 2; i++) expect((await whoami(server.url, orgA, a)).status).toBe(200);
    expect((await whoami(server.url, orgA, a)).status).toBe(429);
    for (let i = 0; i < 2; i++) expect((await whoami(server.url, orgB, b)).status).toBe(200);
    expect((await whoami(server.url, orgB, b)).status).toBe(429);
  });

  it('meters the client IP before authentication: forged and malformed requests spend it', async () => {
    const clock = manualClock();
    const { server, key, organizationId } = await serve(new MemoryRateLimiter({ clock }), {
      query: { ip: { limit: 3, periodMs: 3000 }, organization: false },
    });
    const bad = await fetch(`${server.url}/public/v1/query/whoami`, {
      method: 'POST',
      body: '{not json',
    });
    // Admitted by the limiter (a malformed body has no org scope), refused after it.
    expect(bad.status).toBe(401);
    expect(bad.headers.get('ratelimit-remaining')).toBe('2');
    const unsigned = await fetch(`${server.url}/public/v1/query/whoami`, {
      method: 'POST',
      body: JSON.stringify({ organizationId: randomUUID() }),
    });
    expect(unsigned.status).toBe(401);
    expect(unsigned.headers.get('ratelimit-remaining')).toBe('1');
    expect((await whoami(server.url, organizationId, key)).status).toBe(200);

    const refused = await whoami(server.url, organizationId, key, { accept: PROBLEM });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('x-keyhold-ratelimit-scope')).toBe('ip');
    expect(await refused.json()).toMatchObject({ scope: 'ip', retryAfterMs: 1000 });
    // The IP scope ignores X-Forwarded-For unless the operator decides to trust a proxy.
    expect(
      (await whoami(server.url, organizationId, key, { 'x-forwarded-for': '198.51.100.9' })).status,
    ).toBe(429);
  });

  it('chain_expensive is its own lane: signing transactions is metered apart from other writes', async () => {
    const clock = manualClock();
    const { server, key, organizationId } = await serve(new MemoryRateLimiter({ clock }), {
      chain_expensive: { organization: { limit: 1, periodMs: 60_000 } },
    });
    const signTransaction = () =>
      post(
        server.url,
        '/public/v1/submit/sign_transaction',
        {
          type: 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2',
          timestampMs: String(Date.now()),
          organizationId,
          parameters: {
            signWith: 'nobody',
            unsignedTransaction: '00',
            type: 'TRANSACTION_TYPE_ETHEREUM',
          },
        },
        key,
      );
    expect((await signTransaction()).status).not.toBe(429); // admitted (then refused on its merits)
    const refused = await signTransaction();
    expect(refused.status).toBe(429);
    expect(refused.headers.get('x-keyhold-ratelimit-lane')).toBe('chain_expensive');
    const wallet = await post(
      server.url,
      '/public/v1/submit/create_wallet',
      createWallet(organizationId, 'w'),
      key,
    );
    expect(wallet.status).toBe(200);
  });

  it('leaves /health, /ready and CORS preflight unmetered', async () => {
    const { server } = await serve(new MemoryRateLimiter({ clock: manualClock() }), {
      query: { ip: { limit: 1, periodMs: 60_000 } },
    });
    for (let i = 0; i < 5; i++) {
      const health = await fetch(`${server.url}/health`);
      expect(health.status).toBe(200);
      expect(health.headers.get('ratelimit-limit')).toBeNull();
      expect((await fetch(`${server.url}/ready`)).status).toBe(200);
      expect(
        (await fetch(`${server.url}/public/v1/query/whoami`, { method: 'OPTIONS' })).status,
      ).toBe(204);
    }
  });

  it('without a limiter, nothing is limited and no ratelimit headers are sent', async () => {
    const { server, key, organizationId } = await serve(undefined, TIGHT);
    for (let i = 0; i < 5; i++) {
      const res = await whoami(server.url, organizationId, key);
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-limit')).toBeNull();
    }
  });

  it('brand and docsUrl name the headers and problem types', async () => {
    const keyhold = createKeyhold({
      logger: silentLogger,
      rateLimiter: new MemoryRateLimiter({ clock: manualClock() }),
      rateLimits: { query: { ip: { limit: 1, periodMs: 1000 } } },
      brand: 'Acme',
      docsUrl: 'https://docs.example/errors',
    });
    const server = await startServer({ keyhold, port: 0 });
    servers.push(server);
    const ask = () =>
      fetch(`${server.url}/public/v1/query/whoami`, {
        method: 'POST',
        body: '{}',
        headers: { accept: PROBLEM },
      });
    await ask();
    const refused = await ask();
    expect(refused.headers.get('x-acme-ratelimit-lane')).toBe('query');
    expect(refused.headers.get('x-acme-ratelimit-scope')).toBe('ip');
    expect(((await refused.json()) as { type: string }).type).toBe(
      'https://docs.example/errors#rate-limited',
    );
  });
});

describe('rate limiting with the limiter unreachable', () => {
  it('answers 503 with Retry-After: 1 (problem+json on request), and readiness says so', async () => {
    const limiter = new RedisRateLimiter({ url: 'redis://127.0.0.1:1' });
    const { server, key, organizationId } = await serve(limiter);

    const res = await whoami(server.url, organizationId, key);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(await res.json()).toMatchObject({
      code: 14,
      message: 'service unavailable',
      details: [{ errorCode: 'RATE_LIMIT_BACKEND_UNAVAILABLE' }],
    });

    const problem = await whoami(server.url, organizationId, key, { accept: PROBLEM });
    expect(problem.status).toBe(503);
    expect(problem.headers.get('retry-after')).toBe('1');
    expect(problem.headers.get('content-type')).toBe(PROBLEM);
    const body = (await problem.json()) as { code: string; type: string; status: number };
    expect(body.code).toBe('RATE_LIMIT_BACKEND_UNAVAILABLE');
    expect(body.status).toBe(503);
    expect(body.type).toMatch(
      /^https:\/\/keyhold\.dev\/docs\/errors#rate-limit-backend-unavailable$/,
    );

    const sdkError = await rejection(sdk(server.url, organizationId, key).getWhoami({}));
    expect(sdkError).toBeInstanceOf(TurnkeyRequestError);
    expect((sdkError as TurnkeyRequestError).code).toBe(14);

    const ready = await fetch(`${server.url}/ready`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({
      status: 'unavailable',
      errorCode: 'RATE_LIMIT_BACKEND_UNAVAILABLE',
      retryable: true,
    });
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
  });
});

const probe = new RedisRateLimiter({ url: REDIS_URL });
const withRedis = await probe.ping().then(
  () => true,
  () => false,
);
await probe.close();
if (!withRedis)
  console.warn(`!! Redis at ${REDIS_URL} is unreachable: skipping the shared-budget test`);
if (!withRedis && process.env.CI) throw new Error(`CI requires Redis at ${REDIS_URL}`);

describe.skipIf(!withRedis)('rate limiting shared through Redis', () => {
  // Keys of this run live under their own prefix and expire by themselves (TTL ≤ 31 s).
  const keyPrefix = `keyhold-test:${randomUUID()}:`;

  it('two servers on one Redis share one budget per organization', async () => {
    const store = new MemoryStore();
    const rateLimits: RateLimitOverrides = {
      query: { organization: { limit: 3, periodMs: 30_000 } },
    };
    const start = async () => {
      const keyhold = createKeyhold({
        store,
        logger: silentLogger,
        rateLimiter: new RedisRateLimiter({ url: REDIS_URL, keyPrefix }),
        rateLimits,
      });
      const server = await startServer({ keyhold, port: 0 });
      servers.push(server);
      return { server, keyhold };
    };
    const one = await start();
    const two = await start();
    const key = generateApiKeyPair();
    const { organizationId } = await one.keyhold.bootstrap({
      organizationName: 'Shared',
      apiPublicKey: key.publicKey,
    });

    const statuses: number[] = [];
    for (const url of [
      one.server.url,
      two.server.url,
      one.server.url,
      two.server.url,
      one.server.url,
    ]) {
      statuses.push((await whoami(url, organizationId, key)).status);
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    const refused = await whoami(two.server.url, organizationId, key, { accept: PROBLEM });
    const body = (await refused.json()) as { retryAfterMs: number };
    expect(body.retryAfterMs).toBeGreaterThan(5000);
    expect(body.retryAfterMs).toBeLessThanOrEqual(10_000);
  });
});

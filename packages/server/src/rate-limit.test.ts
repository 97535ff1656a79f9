/**
 * Rate limiting through real HTTP: the published clients, plain fetch, and `node:http` from
 * several loopback addresses (127.0.0.x: the server sees each as its own client) against
 * `startServer` with tight limits. The client address is metered before authentication, the
 * user and organization only once the stamp verified, weighted by what the request carries.
 * The memory limiter runs on a manual clock, so "waiting out Retry-After" is a clock step and
 * nothing here depends on machine speed; the Redis tests use Redis time with periods long
 * enough that nothing refills mid-test.
 */
import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import type { RateLimiter, RateLimitOverrides } from '@keyhold/activities';
import { type RunningServer, startServer } from '@keyhold/cli';
import { MemoryRateLimiter } from '@keyhold/ratelimit-memory';
import { RedisRateLimiter } from '@keyhold/ratelimit-redis';
import { MemoryStore } from '@keyhold/store-memory';
import { TurnkeyRequestError } from '@turnkey/sdk-server';
import { afterEach, describe, expect, it } from 'vitest';
import { httpClient, rejection, sdkClient as sdk } from './__fixtures__/turnkey-server.js';
import { type ApiKeyPair, createApiKeyStamper, generateApiKeyPair } from './api-key-signer.js';
import { createKeyhold } from './keyhold.js';
import { silentLogger } from './logger.js';

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

/** Ethereum accounts m/44'/60'/0'/0/0 … n−1. */
const ethereumAccounts = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    curve: 'CURVE_SECP256K1' as const,
    pathFormat: 'PATH_FORMAT_BIP32' as const,
    path: `m/44'/60'/0'/0/${i}`,
    addressFormat: 'ADDRESS_FORMAT_ETHEREUM' as const,
  }));

const createWallet = (organizationId: string, walletName: string, accounts = 0) => ({
  type: 'ACTIVITY_TYPE_CREATE_WALLET' as const,
  timestampMs: String(Date.now()),
  organizationId,
  parameters: { walletName, accounts: ethereumAccounts(accounts) },
});
/** Submits CREATE_WALLET with `accounts` accounts, asking for problem details. */
const walletCreator =
  (url: string, organizationId: string, key: ApiKeyPair) => (name: string, accounts: number) =>
    post(
      url,
      '/public/v1/submit/create_wallet',
      createWallet(organizationId, name, accounts),
      key,
      { accept: PROBLEM },
    );

/**
 * A POST sent from `localAddress` (any 127.0.0.x reaches the loopback listener), so the
 * server's client address is that address.
 */
function postFrom(
  localAddress: string,
  url: string,
  path: string,
  body: string,
  headers: Record<string, string> = {},
): Promise<{
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${url}${path}`,
      { method: 'POST', localAddress, headers: { 'content-type': 'application/json', ...headers } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function headersOf(response: Response): Record<string, string> {
  const out: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    out[name] = value;
  });
  return out;
}

/** Two per ten seconds per organization (one token every 5 s), in every lane. */
const TIGHT: RateLimitOverrides = {
  query: { organization: { limit: 2, periodMs: 10_000 } },
  activity: { organization: { limit: 2, periodMs: 10_000 } },
  chain_expensive: { organization: { limit: 2, periodMs: 10_000 } },
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

  it('an organization refused on a write lane gets the catalogue sentence, and no activity is stored', async () => {
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
    expect(refused.headers.get('x-keyhold-ratelimit-lane')).toBe('chain_expensive');
    expect(await refused.json()).toMatchObject({
      lane: 'chain_expensive',
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

  it('chain_expensive is its own lane: signing and key derivation are metered apart from other writes', async () => {
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
    // Creating a wallet derives keys: the same lane, refused too.
    const wallet = await post(
      server.url,
      '/public/v1/submit/create_wallet',
      createWallet(organizationId, 'w'),
      key,
    );
    expect(wallet.status).toBe(429);
    expect(wallet.headers.get('x-keyhold-ratelimit-lane')).toBe('chain_expensive');
    // Other writes are in the activity lane, with their own budget.
    const tag = await post(
      server.url,
      '/public/v1/submit/create_private_key_tag',
      {
        type: 'ACTIVITY_TYPE_CREATE_PRIVATE_KEY_TAG',
        timestampMs: String(Date.now()),
        organizationId,
        parameters: { privateKeyTagName: 'tag', privateKeyIds: [] },
      },
      key,
    );
    expect(tag.status).toBe(200);
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

/** The limiters every "after authentication" test runs on. */
const LIMITERS: [string, () => RateLimiter][] = [
  ['memory limiter', () => new MemoryRateLimiter({ clock: manualClock() })],
  ...(withRedis
    ? [
        [
          'Redis limiter',
          () =>
            new RedisRateLimiter({ url: REDIS_URL, keyPrefix: `keyhold-test:${randomUUID()}:` }),
        ] as [string, () => RateLimiter],
      ]
    : []),
];

describe.each(LIMITERS)('rate limits after authentication (%s)', (_name, newLimiter) => {
  it('an invalid-stamp flood naming an organization from five addresses never refuses its users (issue #10, finding 6)', async () => {
    // Periods long enough that nothing refills while the test runs, even on Redis time.
    const { server, key, organizationId } = await serve(newLimiter(), {
      query: {
        ip: { limit: 40, periodMs: 6_000_000 },
        organization: { limit: 40, periodMs: 6_000_000 },
      },
    });
    const path = '/public/v1/query/whoami';
    const body = JSON.stringify({ organizationId });
    const stranger = generateApiKeyPair();
    // What an attacker who knows the organization id can send: a valid signature by a key no
    // user holds, the victim's own stamp lifted from another body, a malformed stamp, none.
    const forgeries: Record<string, string>[] = [
      { 'x-stamp': createApiKeyStamper(stranger.privateKey).stamp(body) },
      { 'x-stamp': createApiKeyStamper(key.privateKey).stamp(`${body} `) },
      { 'x-stamp': 'not-a-stamp' },
      {},
    ];
    const attackers = ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5', '127.0.0.6'];
    const flood = new Map(attackers.map((address) => [address, [] as number[]]));
    const victim: { status: number; remaining: unknown }[] = [];
    for (let round = 0; round < 30; round++) {
      // Two forged requests from every attacker at once, then one request of the victim's.
      await Promise.all(
        attackers.flatMap((address) =>
          [0, 1].map(async (j) => {
            const forged = forgeries[(2 * round + j) % forgeries.length]!;
            const res = await postFrom(address, server.url, path, body, forged);
            if (res.status === 429) expect(res.headers['x-keyhold-ratelimit-scope']).toBe('ip');
            flood.get(address)!.push(res.status);
          }),
        ),
      );
      const res = await postFrom('127.0.0.1', server.url, path, body, {
        'x-stamp': createApiKeyStamper(key.privateKey).stamp(body),
      });
      victim.push({ status: res.status, remaining: res.headers['ratelimit-remaining'] });
    }

    // Every one of the victim's 30 requests answered; the organization spent only on them.
    expect(victim.map((v) => v.status)).toEqual(new Array(30).fill(200));
    expect(victim.at(-1)!.remaining).toBe('10');
    // Each attacker address got its 40 through to authentication (all refused there), then 429.
    for (const statuses of flood.values()) {
      expect(statuses).toHaveLength(60);
      expect(statuses.filter((s) => s === 429)).toHaveLength(20);
      expect(statuses.slice(0, 40).every((s) => s === 401)).toBe(true);
    }
  });

  it('a user is metered apart from the other users of the organization', async () => {
    const { server, key, organizationId } = await serve(newLimiter(), {
      query: { user: { limit: 2, periodMs: 6_000_000 } },
    });
    const member = generateApiKeyPair();
    const created = await post(
      server.url,
      '/public/v1/submit/create_users',
      {
        type: 'ACTIVITY_TYPE_CREATE_USERS_V3',
        timestampMs: String(Date.now()),
        organizationId,
        parameters: {
          users: [
            {
              userName: 'member',
              apiKeys: [
                { apiKeyName: 'm', publicKey: member.publicKey, curveType: 'API_KEY_CURVE_P256' },
              ],
              authenticators: [],
              oauthProviders: [],
              userTags: [],
            },
          ],
        },
      },
      key,
    );
    expect(created.status).toBe(200);
    for (let i = 0; i < 2; i++)
      expect((await whoami(server.url, organizationId, member)).status).toBe(200);
    const refused = await whoami(server.url, organizationId, member, { accept: PROBLEM });
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ lane: 'query', scope: 'user' });
    expect((await whoami(server.url, organizationId, key)).status).toBe(200);
  });

  it('a 100-account CREATE_WALLET spends 100 units of the organization chain_expensive budget (issue #10, finding 2)', async () => {
    // 150 units, one back every 10 s: nothing refills while the test runs.
    const { server, key, organizationId } = await serve(newLimiter(), {
      chain_expensive: { user: false, organization: { limit: 150, periodMs: 1_500_000 } },
    });
    const wallet = walletCreator(server.url, organizationId, key);

    const hundred = await wallet('hundred', 100);
    expect(hundred.status).toBe(200);
    expect(hundred.headers.get('ratelimit-limit')).toBe('150');
    expect(hundred.headers.get('ratelimit-remaining')).toBe('50');
    const { activity } = (await hundred.json()) as {
      activity: { result: { createWalletResult: { addresses: string[] } } };
    };
    expect(activity.result.createWalletResult.addresses).toHaveLength(100);

    // 51 accounts no longer fit; 50 do, and then one more does not.
    const tooMany = await wallet('too many', 51);
    expect(tooMany.status).toBe(429);
    expect(await tooMany.json()).toMatchObject({ lane: 'chain_expensive', scope: 'organization' });
    expect((await wallet('fifty', 50)).status).toBe(200);
    const one = await wallet('one', 1);
    expect(one.status).toBe(429);
    // A read costs one unit of its own lane, whatever the wallets cost.
    expect((await whoami(server.url, organizationId, key)).status).toBe(200);
  });

  it('a request costing more than the bucket holds is admitted from a full bucket and owes its cost', async () => {
    // A bucket of 60 units, one back a second (Turnkey's 60/s budget, slowed 60 times).
    const { server, key, organizationId } = await serve(newLimiter(), {
      chain_expensive: { user: false, organization: { limit: 60, periodMs: 60_000 } },
    });
    const wallet = walletCreator(server.url, organizationId, key);
    const big = await wallet('big', 100);
    expect(big.status).toBe(200);
    expect(big.headers.get('ratelimit-remaining')).toBe('0');
    // 100 units taken from 60: 40 s of debt, and one more unit is a further second.
    const next = await wallet('next', 1);
    expect(next.status).toBe(429);
    const { retryAfterMs } = (await next.json()) as { retryAfterMs: number };
    expect(retryAfterMs).toBeGreaterThan(39_000);
    expect(retryAfterMs).toBeLessThanOrEqual(41_000);
    expect(Number(next.headers.get('retry-after'))).toBe(Math.ceil(retryAfterMs / 1000));
  });
});

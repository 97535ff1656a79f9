import { type RunningServer, startServer } from '@keyhold/cli';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKeyStamper, generateApiKeyPair } from './api-key-signer.js';
import { silentLogger } from './logger.js';

let server: RunningServer;
const key = generateApiKeyPair();
const stamper = createApiKeyStamper(key.privateKey);

beforeAll(async () => {
  server = await startServer({
    port: 0,
    logger: silentLogger,
    bootstrapApiPublicKey: key.publicKey,
  });
});
afterAll(() => server.close());

async function post(path: string, body: string, headers: Record<string, string> = {}) {
  const res = await fetch(server.url + path, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', 'x-stamp': stamper.stamp(body), ...headers },
  });
  return {
    status: res.status,
    headers: res.headers,
    json: (await res.json()) as Record<string, unknown>,
  };
}

const envelope = (type: string, parameters: unknown, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    type,
    timestampMs: String(Date.now()),
    organizationId: server.organizationId,
    parameters,
    ...extra,
  });

function expectStatus(json: Record<string, unknown>, code: number, message: string) {
  expect(json.code).toBe(code);
  expect(json.message).toBe(message);
  expect(Array.isArray(json.details)).toBe(true);
}

describe('the HTTP surface', () => {
  it('answers unknown routes with a 404 Status body', async () => {
    const { status, json } = await post('/public/v1/submit/make_coffee', '{}');
    expect(status).toBe(404);
    expectStatus(json, 5, 'not found');
  });

  // Every known activity type and query is served now: catalogue.test.ts holds each to "not 501".

  it('refuses the selector versions of a served endpoint by name, not 501 (CREATE_POLICY V1, V2)', async () => {
    for (const type of ['ACTIVITY_TYPE_CREATE_POLICY', 'ACTIVITY_TYPE_CREATE_POLICY_V2']) {
      const submit = await post(
        '/public/v1/submit/create_policy',
        envelope(type, { policyName: 'p', selectors: [], effect: 'EFFECT_ALLOW' }),
      );
      expect(submit.status).toBe(400);
      expectStatus(
        submit.json,
        9,
        'selector policies (CREATE_POLICY V1 and V2) are not available in Keyhold: send CREATE_POLICY_V3 with a condition and a consensus expression',
      );
    }
  });

  it('answers GET on an endpoint with 405', async () => {
    const res = await fetch(`${server.url}/public/v1/query/whoami`);
    expect(res.status).toBe(405);
    expectStatus((await res.json()) as Record<string, unknown>, 12, 'method not allowed');
  });

  it('refuses a body over 1 MiB with 413 before reading it all', async () => {
    const { status, json } = await post('/public/v1/query/whoami', 'x'.repeat(1024 * 1024 + 1));
    expect(status).toBe(413);
    expectStatus(json, 8, 'request body too large');
  });

  it('refuses a request without a stamp with 401 and the spec message', async () => {
    const res = await fetch(`${server.url}/public/v1/query/whoami`, {
      method: 'POST',
      body: JSON.stringify({ organizationId: server.organizationId }),
    });
    expect(res.status).toBe(401);
    expectStatus(
      (await res.json()) as Record<string, unknown>,
      16,
      'cannot authenticate public API activity request without a stamp (X-Stamp/X-Stamp-Webauthn header)',
    );
  });

  it('refuses a type that does not belong to the endpoint', async () => {
    const { status, json } = await post(
      '/public/v1/submit/create_wallet',
      envelope('ACTIVITY_TYPE_CREATE_USERS_V4', { users: [] }),
    );
    expect(status).toBe(400);
    expectStatus(json, 3, 'bad request body');
  });

  it('refuses unknown top-level members of the envelope', async () => {
    const body = envelope(
      'ACTIVITY_TYPE_CREATE_WALLET',
      { walletName: 'w', accounts: [] },
      { extra: 1 },
    );
    const { status, json } = await post('/public/v1/submit/create_wallet', body);
    expect(status).toBe(400);
    expectStatus(json, 3, 'unknown field: /extra');
  });

  it('refuses a stale timestampMs with a clear message and stores nothing', async () => {
    const body = JSON.stringify({
      type: 'ACTIVITY_TYPE_CREATE_WALLET',
      timestampMs: String(Date.now() - 10 * 60 * 1000),
      organizationId: server.organizationId,
      parameters: { walletName: 'stale', accounts: [] },
    });
    const { status, json } = await post('/public/v1/submit/create_wallet', body);
    expect(status).toBe(400);
    expect(json.message).toMatch(/^timestampMs is outside the allowed window/);
    const wallets = await post(
      '/public/v1/query/list_wallets',
      JSON.stringify({ organizationId: server.organizationId }),
    );
    expect((wallets.json.wallets as unknown[]).length).toBe(0);
  });

  it.each([
    ['a non-UUID organization id', 'not-a-uuid', 400, 3, 'malformed organization ID provided'],
    [
      'an unknown organization id',
      '00000000-0000-4000-8000-000000000000',
      404,
      5,
      'no organization found with the given ID',
    ],
  ])('refuses %s', async (_, organizationId, http, code, message) => {
    const { status, json } = await post(
      '/public/v1/query/whoami',
      JSON.stringify({ organizationId }),
    );
    expect(status).toBe(http);
    expectStatus(json, code, message);
  });

  it.each([
    ['invalid payload encoding', { encoding: 'PAYLOAD_ENCODING_BASE64' }],
    ['invalid hash function', { hashFunction: 'HASH_FUNCTION_SHA1' }],
    ['invalid hash function', { hashFunction: undefined }],
  ])('refuses sign parameters with "%s"', async (message, change) => {
    const parameters = {
      signWith: '0x0000000000000000000000000000000000000000',
      payload: '00'.repeat(32),
      encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
      hashFunction: 'HASH_FUNCTION_NO_OP',
      ...change,
    };
    const { status, json } = await post(
      '/public/v1/submit/sign_raw_payload',
      envelope('ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2', parameters),
    );
    expect(status).toBe(400);
    expectStatus(json, 3, message);
  });

  it.each([
    ['invalid path format', { pathFormat: 'PATH_FORMAT_SLIP44' }],
    ['invalid path', { path: "m/44'/60'/x" }],
    ['invalid curve', { curve: 'CURVE_BLS12_381' }],
    ['curve required', { curve: undefined }],
    ['invalid address format', { addressFormat: 'ADDRESS_FORMAT_DOGECOIN' }],
    ['invalid address format', { curve: 'CURVE_ED25519', path: "m/44'/501'/0'/0'" }],
    [
      'invalid path',
      { curve: 'CURVE_ED25519', path: 'm/44/501/0/0', addressFormat: 'ADDRESS_FORMAT_SOLANA' },
    ],
  ])('refuses wallet accounts with "%s"', async (message, change) => {
    const account = {
      curve: 'CURVE_SECP256K1',
      pathFormat: 'PATH_FORMAT_BIP32',
      path: "m/44'/60'/0'/0/0",
      addressFormat: 'ADDRESS_FORMAT_ETHEREUM',
      ...change,
    };
    const { status, json } = await post(
      '/public/v1/submit/create_wallet',
      envelope('ACTIVITY_TYPE_CREATE_WALLET', { walletName: 'w', accounts: [account] }),
    );
    expect(status).toBe(400);
    expectStatus(json, 3, message);
  });

  it('refuses API keys with a non-positive expiration', async () => {
    const me = await post(
      '/public/v1/query/whoami',
      JSON.stringify({ organizationId: server.organizationId }),
    );
    const parameters = {
      userId: me.json.userId,
      apiKeys: [
        {
          apiKeyName: 'k',
          publicKey: generateApiKeyPair().publicKey,
          curveType: 'API_KEY_CURVE_P256',
          expirationSeconds: '0',
        },
      ],
    };
    const { status, json } = await post(
      '/public/v1/submit/create_api_keys',
      envelope('ACTIVITY_TYPE_CREATE_API_KEYS_V2', parameters),
    );
    expect(status).toBe(400);
    expectStatus(json, 3, 'invalid api key expiration');
  });

  it('answers CORS preflights for browser clients', async () => {
    const res = await fetch(`${server.url}/public/v1/query/whoami`, { method: 'OPTIONS' });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-headers')).toContain('x-stamp');
  });

  it('serves a health probe', async () => {
    const res = await fetch(`${server.url}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });
});

describe('readiness', () => {
  it('is ready while the store answers', async () => {
    const res = await fetch(`${server.url}/ready`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ready' });
  });
});

describe('text the stores cannot keep', () => {
  it.each([
    ['a NUL character', '\\u0000'],
    ['a lone surrogate', '\\ud800'],
  ])('refuses %s anywhere in the body', async (_, escaped) => {
    const body = `{"type":"ACTIVITY_TYPE_CREATE_WALLET","timestampMs":"${Date.now()}","organizationId":"${server.organizationId}","parameters":{"walletName":"a${escaped}b","accounts":[]}}`;
    const { status, json } = await post('/public/v1/submit/create_wallet', body);
    expect(status).toBe(400);
    expectStatus(json, 3, 'bad request body');
  });
});

describe('deeply nested JSON', () => {
  /** A whoami body whose nesting is `depth` levels, the body itself counted (queries ignore `x`). */
  const nested = (depth: number) =>
    `{"organizationId":"${server.organizationId}","x":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;

  it('accepts 64 levels', async () => {
    const { status } = await post('/public/v1/query/whoami', nested(64));
    expect(status).toBe(200);
  });

  it.each([65, 100_000])('refuses %i levels with "bad request body" saying why', async (depth) => {
    const { status, json } = await post('/public/v1/query/whoami', nested(depth));
    expect(status).toBe(400);
    expectStatus(json, 3, 'bad request body');
    expect(json.details).toEqual([
      expect.objectContaining({
        errorCode: 'REQUEST_INVALID',
        reason: 'JSON nested too deep: at most 64 levels of objects and arrays',
      }),
    ]);
  });
});

describe('draining', () => {
  it('answers readiness 503 once the instance begins to drain', async () => {
    const other = await startServer({ port: 0, logger: silentLogger });
    other.keyhold.beginDrain();
    const res = await fetch(`${other.url}/ready`);
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({
      status: 'unavailable',
      errorCode: 'DRAINING',
      retryable: true,
    });
    await other.close();
  });
});

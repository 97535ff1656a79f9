/**
 * What an operator reads, through the HTTP surface and the published client: an
 * `X-Request-Id` on every answer (the caller's kept when plain), one access line per request —
 * refusals included, with the organization once the stamp verified and the activity's type and
 * status — that never holds a stamp or a body, and Prometheus metrics at `GET /metrics`:
 * request durations by route and status, activities by type and status, policy decision and
 * vault signing times, webhook attempts and port failures.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Logger, type Store, StoreUnavailableError } from '@keyhold/activities';
import { PrometheusMetrics } from '@keyhold/metrics-prometheus';
import { MemoryStore } from '@keyhold/store-memory';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  rejection,
  startTurnkeyServer,
  type TurnkeyServer,
} from './__fixtures__/turnkey-server.js';
import { generateApiKeyPair } from './api-key-signer.js';

interface Line {
  level: string;
  message: string;
  fields: Record<string, unknown>;
}

function recordingLogger(): Logger & { lines: Line[] } {
  const lines: Line[] = [];
  const at =
    (level: string) =>
    (message: string, fields: Record<string, unknown> = {}) =>
      lines.push({ level, message, fields });
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/** The value of one sample of the Prometheus text, by name and labels (0 when absent). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const labelText = line.slice(name.length).split(' ')[0]!;
    if (Object.entries(labels).every(([k, v]) => labelText.includes(`${k}="${v}"`))) {
      return Number(line.split(' ').at(-1));
    }
  }
  return 0;
}

describe('request ids, access lines and metrics', () => {
  let kh: TurnkeyServer;
  const logger = recordingLogger();
  const metrics = new PrometheusMetrics({ processMetrics: false });

  beforeAll(async () => {
    kh = await startTurnkeyServer({ logger, metrics });
  });
  afterAll(async () => {
    await kh?.server.close();
  });

  const accessLines = () => logger.lines.filter((l) => l.message === 'request');

  it('answers every request with an X-Request-Id, keeping a plain one the caller sent', async () => {
    const own = await fetch(`${kh.server.url}/health`, {
      headers: { 'x-request-id': 'trace-42.a:b' },
    });
    expect(own.headers.get('x-request-id')).toBe('trace-42.a:b');
    expect(own.headers.get('access-control-expose-headers')).toContain('x-request-id');
    const hostile = await fetch(`${kh.server.url}/health`, {
      headers: { 'x-request-id': 'a b"<>'.padEnd(200, 'x') },
    });
    const made = hostile.headers.get('x-request-id')!;
    expect(made).toMatch(/^[0-9a-f-]{36}$/);
    const missing = await fetch(`${kh.server.url}/nowhere`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const preflight = await fetch(`${kh.server.url}/public/v1/query/whoami`, { method: 'OPTIONS' });
    expect(preflight.headers.get('x-request-id')).toBeTruthy();
    expect(preflight.headers.get('access-control-allow-headers')).toContain('x-request-id');
    const line = accessLines().find((l) => l.fields.requestId === made)!;
    expect(line.fields).toMatchObject({ method: 'GET', path: '/health', status: 200 });
  });

  it('writes one access line per request, refusals included, without stamps or bodies', async () => {
    const before = accessLines().length;
    const wallet = await kh.client.createWallet({
      walletName: 'observed',
      accounts: [
        {
          curve: 'CURVE_SECP256K1',
          pathFormat: 'PATH_FORMAT_BIP32',
          path: "m/44'/60'/0'/0/0",
          addressFormat: 'ADDRESS_FORMAT_ETHEREUM',
        },
      ],
    });
    // A stamp by a key no user holds: refused before any organization is known.
    const stranger = (await import('./__fixtures__/turnkey-server.js')).sdkClient(
      kh.server.url,
      kh.organizationId,
      generateApiKeyPair(),
    );
    expect(
      (await rejection(stranger.getWhoami({ organizationId: kh.organizationId }))).message,
    ).toMatch(/could not find public key/i);
    const lines = accessLines().slice(before);
    expect(lines.map((l) => [l.fields.path, l.fields.status])).toEqual([
      ['/public/v1/submit/create_wallet', 200],
      ['/public/v1/query/whoami', 401],
    ]);
    expect(lines[0]!.fields).toMatchObject({
      method: 'POST',
      organizationId: kh.organizationId,
      userId: kh.userId,
      activityType: 'ACTIVITY_TYPE_CREATE_WALLET',
      activityStatus: 'ACTIVITY_STATUS_COMPLETED',
      requestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      durationMs: expect.any(Number),
    });
    expect(lines[1]!.fields.organizationId).toBeUndefined();
    const text = JSON.stringify(logger.lines);
    expect(wallet.walletId).toBeTruthy();
    // Neither the body (the wallet's name, its path) nor the stamp reached a line.
    expect(text).not.toMatch(/observed|m\/44|x-stamp|"stamp"|signature/i);
  });

  it('serves Prometheus metrics that count what happened', async () => {
    const { walletId } = await kh.client.createWallet({
      walletName: 'metered',
      accounts: [
        {
          curve: 'CURVE_SECP256K1',
          pathFormat: 'PATH_FORMAT_BIP32',
          path: "m/44'/60'/0'/0/0",
          addressFormat: 'ADDRESS_FORMAT_ETHEREUM',
        },
      ],
    });
    const { accounts } = await kh.client.getWalletAccounts({ walletId });
    await kh.client.signRawPayload({
      signWith: accounts[0]!.address,
      payload: 'ab'.repeat(32),
      encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
      hashFunction: 'HASH_FUNCTION_NO_OP',
    });
    expect((await fetch(`${kh.server.url}/public/v1/query/no_such_query`)).status).toBe(404);
    const response = await fetch(`${kh.server.url}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    expect(
      sample(text, 'keyhold_http_request_duration_seconds_count', {
        route: '/public/v1/submit/sign_raw_payload',
        status: '200',
      }),
    ).toBe(1);
    expect(
      sample(text, 'keyhold_http_request_duration_seconds_count', {
        route: 'other',
        status: '404',
      }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      sample(text, 'keyhold_activities_total', {
        type: 'ACTIVITY_TYPE_CREATE_WALLET',
        status: 'ACTIVITY_STATUS_COMPLETED',
      }),
    ).toBe(2);
    expect(
      sample(text, 'keyhold_policy_decision_duration_seconds_count', { outcome: 'ALLOW' }),
    ).toBe(3);
    expect(
      sample(text, 'keyhold_vault_sign_duration_seconds_count', {
        vault: 'software',
        curve: 'CURVE_SECP256K1',
      }),
    ).toBe(1);
    // No label names a tenant.
    expect(text).not.toContain(kh.organizationId);
    expect(text).not.toContain(walletId);
  });

  it('counts a store that fails under a request', async () => {
    const inner = new MemoryStore();
    let down = false;
    const store: Store = {
      transaction: (work) =>
        down
          ? Promise.reject(new StoreUnavailableError('connection refused'))
          : inner.transaction(work),
      close: () => inner.close(),
    };
    const flaky = await startTurnkeyServer({ store, metrics: new PrometheusMetrics() });
    try {
      down = true;
      const error = await rejection(
        flaky.client.getWhoami({ organizationId: flaky.organizationId }),
      );
      expect(error.message).toMatch(/service unavailable/);
      const text = await (await fetch(`${flaky.server.url}/metrics`)).text();
      expect(sample(text, 'keyhold_port_failures_total', { port: 'store' })).toBe(1);
      // Node's own metrics come with it by default.
      expect(sample(text, 'keyhold_process_cpu_user_seconds_total')).toBeGreaterThan(0);
    } finally {
      down = false;
      await flaky.server.close();
    }
  });

  it('counts webhook attempts by outcome and the queue depth after a run', async () => {
    const hooked = await startTurnkeyServer({
      metrics: new PrometheusMetrics({ processMetrics: false }),
      webhookIntervalMs: 0,
      webhooks: { allowPrivateDestinations: true },
    });
    try {
      // A loopback port nobody listens on: every attempt fails and is rescheduled.
      const closed = await new Promise<number>((resolve) => {
        const probe = createServer().listen(0, '127.0.0.1', () => {
          const { port } = probe.address() as AddressInfo;
          probe.close(() => resolve(port));
        });
      });
      await hooked.client.createWebhookEndpoint({
        url: `http://127.0.0.1:${closed}/hook`,
        name: 'nobody home',
        subscriptions: [{ eventType: 'ACTIVITY_UPDATES' }],
      });
      await hooked.client.createWallet({ walletName: 'hooked', accounts: [] });
      const summary = await hooked.server.keyhold.deliverWebhooks();
      expect(summary.retried).toBeGreaterThanOrEqual(1);
      // The depth is counted after the run, asynchronously.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const text = await (await fetch(`${hooked.server.url}/metrics`)).text();
      expect(sample(text, 'keyhold_webhook_attempts_total', { outcome: 'retried' })).toBe(
        summary.retried,
      );
      expect(sample(text, 'keyhold_webhook_queue_depth')).toBe(summary.retried);
    } finally {
      await hooked.server.close();
    }
  });

  it('answers 404 at /metrics when no metrics are kept', async () => {
    const bare = await startTurnkeyServer();
    try {
      const response = await fetch(`${bare.server.url}/metrics`);
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ code: 5 });
    } finally {
      await bare.server.close();
    }
  });
});

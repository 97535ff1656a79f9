/**
 * Webhooks end to end: an endpoint created with `@turnkey/sdk-server`, a real HTTP receiver on
 * 127.0.0.1, deliveries signed v1 Ed25519 that `@turnkey/crypto`'s verifier accepts with the
 * keys of `/public/v1/discovery/webhooks/jwks`, retries with the same event id and a fresh
 * signature, terminal statuses; private and loopback destinations only with
 * `allowPrivateDestinations` (`--allow-private-webhooks`), and endpoints disabled when they keep
 * failing or answer 410, with the reason in list_webhook_endpoints (issue #10.7).
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type RunningServer, startServer } from '@keyhold/cli';
import { MemoryStore } from '@keyhold/store-memory';
import { retrySchedule, verifyWebhookSignature, webhookVerificationKeys } from '@keyhold/webhooks';
import { verifyTurnkeyWebhookSignature } from '@turnkey/crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SdkClient, sdkClient, startTurnkeyServer } from './__fixtures__/turnkey-server.js';
import { generateApiKeyPair } from './api-key-signer.js';
import { silentLogger } from './logger.js';

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * An HTTP receiver that records every POST and answers with the statuses queued for it (then
 * `otherwise`), and counts every TCP connection made to it, whether a request follows or not.
 */
async function startReceiver() {
  const received: Received[] = [];
  const statuses: number[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.statusCode = statuses.shift() ?? receiver.otherwise;
      res.end();
    });
  });
  server.on('connection', () => receiver.connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const receiver = {
    url: `http://127.0.0.1:${port}/hooks`,
    port,
    received,
    statuses,
    otherwise: 200,
    connections: 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return receiver;
}

type Receiver = Awaited<ReturnType<typeof startReceiver>>;

const ETH = {
  curve: 'CURVE_SECP256K1',
  pathFormat: 'PATH_FORMAT_BIP32',
  path: "m/44'/60'/0'/0/0",
  addressFormat: 'ADDRESS_FORMAT_ETHEREUM',
} as const;

/** The keys a receiver would fetch from the server's JWKS endpoint. */
async function fetchJwks(server: RunningServer) {
  const response = await fetch(`${server.url}/public/v1/discovery/webhooks/jwks`);
  expect(response.status).toBe(200);
  expect(response.headers.get('cache-control')).toMatch(/max-age/);
  return response.json();
}

/** The activity type a delivery announces (the body is the activity object). */
const typeOf = (delivery: Received) => (JSON.parse(delivery.body) as { type: string }).type;

describe('webhooks with the Turnkey brand, verified by @turnkey/crypto', () => {
  let server: RunningServer;
  let client: SdkClient;
  let receiver: Receiver;
  let organizationId: string;

  beforeAll(async () => {
    receiver = await startReceiver();
    ({ server, client, organizationId } = await startTurnkeyServer({
      brand: 'Turnkey',
      webhooks: {
        allowPrivateDestinations: true, // the receiver is on 127.0.0.1 over http
        schedule: retrySchedule({ delaysMs: [30, 30], jitter: 0 }),
      },
      webhookIntervalMs: 0, // the test drives delivery with deliverWebhooks()
    }));
  });
  afterAll(async () => {
    await server?.close();
    await receiver?.close();
  });

  it('delivers a signed ACTIVITY_UPDATES event that verifies with the published JWKS', async () => {
    const created = await client.createWebhookEndpoint({
      url: receiver.url,
      name: 'receiver',
      subscriptions: [{ eventType: 'ACTIVITY_UPDATES' }],
    });
    expect(created.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    const { walletId } = await client.createWallet({ walletName: 'hooked', accounts: [ETH] });
    const summary = await server.keyhold.deliverWebhooks();
    expect(summary.failed).toBe(0);
    expect(summary.delivered).toBeGreaterThanOrEqual(1);

    const delivery = receiver.received.find((r) => typeOf(r) === 'ACTIVITY_TYPE_CREATE_WALLET');
    expect(delivery).toBeDefined();
    const activity = JSON.parse(delivery!.body);
    expect(activity).toMatchObject({
      organizationId,
      status: 'ACTIVITY_STATUS_COMPLETED',
      result: { createWalletResult: { walletId } },
    });
    expect(delivery!.headers).toMatchObject({
      'content-type': 'application/json',
      'x-turnkey-organization-id': organizationId,
      'x-turnkey-event-type': 'ACTIVITY_UPDATES',
      'x-turnkey-signature-algorithm': 'ed25519',
      'x-turnkey-signature-version': 'v1',
      'x-turnkey-webhook-version': '1',
    });

    const jwks = await fetchJwks(server);
    expect(jwks.keys).toHaveLength(1);
    expect(jwks.keys[0]).toMatchObject({ kid: server.keyhold.webhookKey.keyId, crv: 'Ed25519' });
    // The receiver's side: the JWKS turned into the verifier's keys (hex public keys).
    const verificationKeys = webhookVerificationKeys(jwks).map(({ keyId, publicKey }) => ({
      keyId,
      publicKey,
    }));
    const verified = verifyTurnkeyWebhookSignature({
      headers: delivery!.headers as Record<string, string>,
      body: delivery!.body,
      verificationKeys,
      maxTimestampAgeMs: 300_000,
    });
    expect(verified).toMatchObject({ ok: true, keyId: server.keyhold.webhookKey.keyId });
    // A body changed in transit does not verify.
    const tampered = verifyTurnkeyWebhookSignature({
      headers: delivery!.headers as Record<string, string>,
      body: delivery!.body.replace('COMPLETED', 'FAILED'),
      verificationKeys,
      maxTimestampAgeMs: 300_000,
    });
    expect(tampered).toMatchObject({ ok: false, reason: 'invalid_signature' });
  });

  it('retries a 5xx with the same event id and a fresh signature; a 4xx is final', async () => {
    receiver.received.length = 0;
    receiver.statuses.push(503);
    await client.createWallet({ walletName: 'retried', accounts: [ETH] });
    const first = await server.keyhold.deliverWebhooks();
    expect(first).toMatchObject({ delivered: 0, retried: 1 });
    expect((await server.keyhold.deliverWebhooks()).claimed).toBe(0); // not due yet
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(await server.keyhold.deliverWebhooks()).toMatchObject({ delivered: 1 });
    const [failedAttempt, retry] = receiver.received;
    expect(retry!.headers['x-turnkey-event-id']).toBe(failedAttempt!.headers['x-turnkey-event-id']);
    expect(retry!.headers['x-turnkey-signature']).not.toBe(
      failedAttempt!.headers['x-turnkey-signature'],
    );
    expect(retry!.body).toBe(failedAttempt!.body);

    receiver.received.length = 0;
    receiver.statuses.push(404);
    await client.createWallet({ walletName: 'refused', accounts: [ETH] });
    expect(await server.keyhold.deliverWebhooks()).toMatchObject({ failed: 1, retried: 0 });
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect((await server.keyhold.deliverWebhooks()).claimed).toBe(0);
    expect(receiver.received).toHaveLength(1);
  });

  it('a paused endpoint gets nothing; a deleted one neither', async () => {
    const { webhookEndpoints } = await client.listWebhookEndpoints({});
    const endpointId = webhookEndpoints[0]!.endpointId;
    await client.updateWebhookEndpoint({ endpointId, isActive: false });
    await server.keyhold.deliverWebhooks();
    receiver.received.length = 0;
    await client.createWallet({ walletName: 'unheard', accounts: [ETH] });
    expect((await server.keyhold.deliverWebhooks()).claimed).toBe(0);
    await client.deleteWebhookEndpoint({ endpointId });
    await client.createWallet({ walletName: 'also unheard', accounts: [ETH] });
    expect((await server.keyhold.deliverWebhooks()).claimed).toBe(0);
    expect(receiver.received).toHaveLength(0);
  });
});

describe('webhooks with the default brand, delivered by the server loop', () => {
  let server: RunningServer;
  let client: SdkClient;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver();
    ({ server, client } = await startTurnkeyServer({
      webhooks: { allowPrivateDestinations: true },
      webhookIntervalMs: 25,
    }));
  });
  afterAll(async () => {
    await server?.close();
    await receiver?.close();
  });

  it('sends X-Keyhold-* headers that the Keyhold verifier accepts, without being asked', async () => {
    await client.createWebhookEndpoint({
      url: receiver.url,
      name: 'loop',
      subscriptions: [{ eventType: 'ACTIVITY_UPDATES', isActive: true }],
    });
    await client.createWallet({ walletName: 'looped', accounts: [ETH] });
    const deadline = Date.now() + 10_000;
    while (!receiver.received.some((r) => typeOf(r) === 'ACTIVITY_TYPE_CREATE_WALLET')) {
      if (Date.now() > deadline) throw new Error('no delivery within 10 s');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const delivery = receiver.received.find((r) => typeOf(r) === 'ACTIVITY_TYPE_CREATE_WALLET')!;
    expect(delivery.headers['x-keyhold-event-type']).toBe('ACTIVITY_UPDATES');
    const verified = verifyWebhookSignature({
      headers: delivery.headers as Record<string, string>,
      body: delivery.body,
      verificationKeys: webhookVerificationKeys(await fetchJwks(server)),
    });
    expect(verified.ok).toBe(true);
  });
});

describe('webhooks of a parent organization', () => {
  let server: RunningServer;
  let parent: SdkClient;
  let receiver: Receiver;
  let parentOrgId: string;

  beforeAll(async () => {
    receiver = await startReceiver();
    ({
      server,
      client: parent,
      organizationId: parentOrgId,
    } = await startTurnkeyServer({
      webhooks: { allowPrivateDestinations: true },
      webhookIntervalMs: 0,
    }));
  });
  afterAll(async () => {
    await server?.close();
    await receiver?.close();
  });

  it("hear their sub-organizations' activities, sent as the parent's deliveries", async () => {
    await parent.createWebhookEndpoint({
      url: receiver.url,
      name: 'parent',
      subscriptions: [{ eventType: 'ACTIVITY_UPDATES' }],
    });
    const subKey = generateApiKeyPair();
    const { subOrganizationId } = await parent.createSubOrganization({
      subOrganizationName: 'customer',
      rootUsers: [
        {
          userName: 'customer root',
          apiKeys: [
            {
              apiKeyName: 'customer key',
              publicKey: subKey.publicKey,
              curveType: 'API_KEY_CURVE_P256',
            },
          ],
          authenticators: [],
          oauthProviders: [],
        },
      ],
      rootQuorumThreshold: 1,
    });
    await server.keyhold.deliverWebhooks();
    receiver.received.length = 0;

    const sub = sdkClient(server.url, subOrganizationId, subKey);
    await sub.createWallet({ walletName: 'customer wallet', accounts: [ETH] });
    expect(await server.keyhold.deliverWebhooks()).toMatchObject({ delivered: 1, failed: 0 });
    const [delivery] = receiver.received;
    expect(JSON.parse(delivery!.body)).toMatchObject({
      type: 'ACTIVITY_TYPE_CREATE_WALLET',
      organizationId: subOrganizationId,
    });
    // The delivery is the parent endpoint's: its organization header names the parent.
    expect(delivery!.headers['x-keyhold-organization-id']).toBe(parentOrgId);
    const verified = verifyWebhookSignature({
      headers: delivery!.headers as Record<string, string>,
      body: delivery!.body,
      verificationKeys: webhookVerificationKeys(await fetchJwks(server)),
    });
    expect(verified.ok).toBe(true);
  });
});

const ACTIVITY_UPDATES = [{ eventType: 'ACTIVITY_UPDATES' }];
const INVALID_WEBHOOK_URL = 'invalid webhook url: it must be an absolute https:// URL';
const endpointsOf = async (client: SdkClient) =>
  (await client.listWebhookEndpoints({})).webhookEndpoints;

describe('private destinations only with allowPrivateDestinations, whatever the environment', () => {
  it('refuses http:// and private-address URLs at creation; nothing is stored', async () => {
    const { server, client } = await startTurnkeyServer({ webhookIntervalMs: 0 });
    try {
      await expect(
        client.createWebhookEndpoint({
          url: 'http://127.0.0.1:9/hooks',
          name: 'insecure',
          subscriptions: ACTIVITY_UPDATES,
        }),
      ).rejects.toThrow(/invalid webhook url/);
      expect(await endpointsOf(client)).toHaveLength(0);
    } finally {
      await server.close();
    }
  });

  it('without it (the default): URLs to private addresses or with credentials are refused, and no delivery reaches a loopback listener — not even through a name that resolves to it', async () => {
    const receiver = await startReceiver();
    const store = new MemoryStore();
    // Endpoints stored while private destinations were allowed (as `--env development` once
    // did by default), then served without.
    const before = await startTurnkeyServer({
      store,
      webhooks: { allowPrivateDestinations: true },
      webhookIntervalMs: 0,
    });
    const byName = `https://localhost:${receiver.port}/hooks`; // resolves to 127.0.0.1 / ::1
    const byAddress = `https://127.0.0.1:${receiver.port}/hooks`;
    for (const url of [byName, byAddress]) {
      await before.client.createWebhookEndpoint({
        url,
        name: url,
        subscriptions: ACTIVITY_UPDATES,
      });
    }
    await before.server.close();
    // Their own creation events: set aside (leased for an hour), to watch one event below.
    await store.claimDue(Date.now() + 1_000, 1_000, 3_600_000);

    const server = await startServer({
      store,
      port: 0,
      logger: silentLogger,
      webhookIntervalMs: 0,
    });
    try {
      const client = sdkClient(server.url, before.organizationId, before.key);
      for (const url of [
        'https://[::1]/x',
        'https://127.1/x',
        'https://user:pw@example.com/x',
        `https://localhost:${receiver.port}/x`,
        `http://127.0.0.1:${receiver.port}/x`,
        'https://receiver/x',
      ]) {
        await expect(
          client.createWebhookEndpoint({ url, name: 'n', subscriptions: ACTIVITY_UPDATES }),
        ).rejects.toThrow(INVALID_WEBHOOK_URL);
      }
      expect((await endpointsOf(client)).map((e) => e.url)).toEqual([byName, byAddress]);

      await client.createWallet({ walletName: 'unheard', accounts: [ETH] });
      // The IP literal can never be delivered to: FAILED at once, its endpoint disabled. The
      // name may resolve elsewhere tomorrow: refused after DNS, and retried.
      expect(await server.keyhold.deliverWebhooks()).toMatchObject({
        claimed: 2,
        delivered: 0,
        failed: 1,
        retried: 1,
      });
      expect(receiver.connections).toBe(0);
      expect(receiver.received).toEqual([]);
      const endpoints = await endpointsOf(client);
      expect(endpoints.find((e) => e.url === byAddress)).toMatchObject({
        isActive: false,
        disabledReason:
          'the endpoint URL can never be delivered to (endpoint resolves to a private address)',
      });
      expect(endpoints.find((e) => e.url === byName)).toMatchObject({ isActive: true });
      expect(endpoints.find((e) => e.url === byName)).not.toHaveProperty('disabledReason');
    } finally {
      await server.close();
      await receiver.close();
    }
  });

  it('with it: a loopback listener receives deliveries; a 410 disables the endpoint, list_webhook_endpoints says why, and making it active again clears the reason', async () => {
    const receiver = await startReceiver();
    const { server, client } = await startTurnkeyServer({
      webhooks: { allowPrivateDestinations: true },
      webhookIntervalMs: 0,
    });
    try {
      const { endpointId } = await client.createWebhookEndpoint({
        url: receiver.url,
        name: 'gone soon',
        subscriptions: ACTIVITY_UPDATES,
      });
      expect(await server.keyhold.deliverWebhooks()).toMatchObject({ delivered: 1 });
      expect(receiver.received).toHaveLength(1);

      receiver.statuses.push(410);
      await client.createWallet({ walletName: 'gone', accounts: [ETH] });
      expect(await server.keyhold.deliverWebhooks()).toMatchObject({ failed: 1, retried: 0 });
      expect(await endpointsOf(client)).toEqual([
        expect.objectContaining({
          endpointId,
          isActive: false,
          disabledReason: 'the endpoint answered HTTP 410 Gone',
        }),
      ]);
      // Nothing more is sent to it.
      await client.createWallet({ walletName: 'unsent', accounts: [ETH] });
      expect((await server.keyhold.deliverWebhooks()).claimed).toBe(0);
      expect(receiver.received).toHaveLength(2);

      // A change that does not turn it on keeps the reason.
      const renamed = await client.updateWebhookEndpoint({ endpointId, name: 'renamed' });
      expect(renamed.webhookEndpoint).toMatchObject({
        isActive: false,
        disabledReason: 'the endpoint answered HTTP 410 Gone',
      });
      // Its owner turns it back on: the reason goes, deliveries resume.
      const { webhookEndpoint } = await client.updateWebhookEndpoint({
        endpointId,
        isActive: true,
      });
      expect(webhookEndpoint).toMatchObject({ endpointId, isActive: true });
      expect(webhookEndpoint).not.toHaveProperty('disabledReason');
      const [listed] = await endpointsOf(client);
      expect(listed).toMatchObject({ isActive: true });
      expect(listed).not.toHaveProperty('disabledReason');
      expect(await server.keyhold.deliverWebhooks()).toMatchObject({ delivered: 1 });
      expect(receiver.received).toHaveLength(3);
    } finally {
      await server.close();
      await receiver.close();
    }
  });

  it('a delivery that exhausts its schedule ends FAILED; N consecutive ones disable the endpoint and end its pending deliveries', async () => {
    const receiver = await startReceiver();
    const store = new MemoryStore();
    const { server, client } = await startTurnkeyServer({
      store,
      webhooks: {
        allowPrivateDestinations: true,
        schedule: retrySchedule({ delaysMs: [20], jitter: 0 }), // two attempts
        disableAfterFailures: 2,
      },
      webhookIntervalMs: 0,
    });
    const later = () => new Promise((resolve) => setTimeout(resolve, 40));
    try {
      const { endpointId } = await client.createWebhookEndpoint({
        url: receiver.url,
        name: 'failing',
        subscriptions: ACTIVITY_UPDATES,
      });
      receiver.otherwise = 500;
      // Its creation event: retried, then FAILED — the first failed delivery.
      expect(await server.keyhold.deliverWebhooks()).toMatchObject({ retried: 1 });
      await later();
      expect(await server.keyhold.deliverWebhooks()).toMatchObject({ failed: 1 });
      expect(await endpointsOf(client)).toEqual([
        expect.not.objectContaining({ disabledReason: expect.anything() }),
      ]);

      await client.createWallet({ walletName: 'second', accounts: [ETH] });
      expect(await server.keyhold.deliverWebhooks()).toMatchObject({ retried: 1 });
      await later();
      await client.createWallet({ walletName: 'pending', accounts: [ETH] }); // due at once
      // The second failed delivery disables the endpoint; the third, in flight, ends with it.
      expect(await server.keyhold.deliverWebhooks()).toMatchObject({ claimed: 2, failed: 1 });
      expect(await endpointsOf(client)).toEqual([
        expect.objectContaining({
          endpointId,
          isActive: false,
          disabledReason:
            '2 consecutive deliveries failed (last: HTTP 500 (gave up after 2 attempts))',
        }),
      ]);
      await later();
      expect(await store.claimDue(2 ** 50, 100, 1)).toEqual([]); // nothing left to retry
      expect(receiver.received).toHaveLength(5);
    } finally {
      await server.close();
      await receiver.close();
    }
  });
});

/**
 * Webhooks end to end: an endpoint created with `@turnkey/sdk-server`, a real HTTP receiver on
 * 127.0.0.1, deliveries signed v1 Ed25519 that `@turnkey/crypto`'s verifier accepts with the
 * keys of `/public/v1/discovery/webhooks/jwks`, retries with the same event id and a fresh
 * signature, terminal statuses, and production's refusal of http:// URLs.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { retrySchedule, verifyWebhookSignature, webhookVerificationKeys } from '@keyhold/webhooks';
import { verifyTurnkeyWebhookSignature } from '@turnkey/crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SdkClient, sdkClient, startTurnkeyServer } from './__fixtures__/turnkey-server.js';
import { generateApiKeyPair } from './api-key-signer.js';
import type { RunningServer } from './serve.js';

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** An HTTP receiver that records every POST and answers with the statuses queued for it. */
async function startReceiver() {
  const received: Received[] = [];
  const statuses: number[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.statusCode = statuses.shift() ?? 200;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    statuses,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
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
        allowInsecureUrls: true, // development: the receiver is on 127.0.0.1 over http
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
      webhooks: { allowInsecureUrls: true },
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
      webhooks: { allowInsecureUrls: true },
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

describe('webhooks in production', () => {
  it('refuses an http:// endpoint URL; nothing is stored', async () => {
    const { server, client } = await startTurnkeyServer({ webhookIntervalMs: 0 });
    try {
      await expect(
        client.createWebhookEndpoint({
          url: 'http://127.0.0.1:9/hooks',
          name: 'insecure',
          subscriptions: [{ eventType: 'ACTIVITY_UPDATES' }],
        }),
      ).rejects.toThrow(/invalid webhook url/);
      const { webhookEndpoints } = await client.listWebhookEndpoints({});
      expect(webhookEndpoints).toHaveLength(0);
    } finally {
      await server.close();
    }
  });
});

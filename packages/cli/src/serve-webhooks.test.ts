/**
 * `keyhold serve` and private webhook destinations (issue #10.7): in the default `--env`
 * (development) as in production, an endpoint on a loopback or private address is refused and
 * nothing is delivered there; `--allow-private-webhooks` is the one way to allow them. Real
 * processes, a real receiver on 127.0.0.1, the published `@turnkey/sdk-server` client.
 */

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateApiKeyPair } from '@keyhold/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sdkClient } from '../../server/src/__fixtures__/turnkey-server.js';
import {
  keyholdServe,
  killKeyholdProcesses,
  listeningLine,
} from './__fixtures__/keyhold-process.js';

const INVALID_WEBHOOK_URL = 'invalid webhook url: it must be an absolute https:// URL';

/** `keyhold serve --memory` with `args`: its listening line and a client of its organization. */
async function serve(...args: string[]) {
  const key = generateApiKeyPair();
  // Production wants a master key; development takes one as well.
  const run = keyholdServe(key, args, { env: { KEYHOLD_MASTER_KEY: '11'.repeat(32) } });
  const line = await listeningLine(run);
  return {
    client: sdkClient(line.url, line.organizationId, key),
    stop: async () => {
      run.child.kill('SIGTERM');
      await run.exit();
    },
  };
}

let connections = 0;
let posts = 0;
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    posts++;
    res.end();
  });
});
receiver.on('connection', () => connections++);
let port: number;

beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  ({ port } = receiver.address() as AddressInfo);
});
afterAll(async () => {
  killKeyholdProcesses();
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
});

const ACTIVITY_UPDATES = [{ eventType: 'ACTIVITY_UPDATES' }];
const ETH = {
  curve: 'CURVE_SECP256K1',
  pathFormat: 'PATH_FORMAT_BIP32',
  path: "m/44'/60'/0'/0/0",
  addressFormat: 'ADDRESS_FORMAT_ETHEREUM',
} as const;

describe('keyhold serve and private webhook destinations', () => {
  it.each([[[]], [['--env', 'production']]])(
    'refuses loopback, private and credentialed endpoint URLs (args %j)',
    async (args: string[]) => {
      const server = await serve(...args);
      try {
        for (const url of [
          `http://127.0.0.1:${port}/hooks`,
          `https://127.0.0.1:${port}/hooks`,
          'https://[::1]/x',
          'https://127.1/x',
          `https://localhost:${port}/x`,
          'https://receiver/x',
          'https://user:pw@example.com/x',
          'https://10.0.0.1/x',
        ]) {
          await expect(
            server.client.createWebhookEndpoint({
              url,
              name: 'n',
              subscriptions: ACTIVITY_UPDATES,
            }),
          ).rejects.toThrow(INVALID_WEBHOOK_URL);
        }
        expect((await server.client.listWebhookEndpoints({})).webhookEndpoints).toEqual([]);
        expect(connections).toBe(0);
      } finally {
        await server.stop();
      }
    },
    60_000,
  );

  it('--allow-private-webhooks: a loopback listener receives deliveries', async () => {
    const server = await serve('--allow-private-webhooks');
    try {
      await server.client.createWebhookEndpoint({
        url: `http://127.0.0.1:${port}/hooks`,
        name: 'local',
        subscriptions: ACTIVITY_UPDATES,
      });
      await server.client.createWallet({ walletName: 'heard', accounts: [ETH] });
      const deadline = Date.now() + 15_000;
      while (posts < 2) {
        if (Date.now() > deadline) throw new Error(`${posts} deliveries within 15 s, not 2`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(connections).toBeGreaterThan(0);
    } finally {
      await server.stop();
    }
  }, 60_000);
});

import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createKeyholdRouter } from '@keyhold/http-express';
import { createKeyhold, generateApiKeyPair, silentLogger } from '@keyhold/server';
import { Turnkey, TurnkeyRequestError } from '@turnkey/sdk-server';
import express from 'express';
import { getAddress, keccak256, recoverAddress, serializeSignature, stringToBytes } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MountedServer, main } from './main.js';

const ETH_ACCOUNT = {
  curve: 'CURVE_SECP256K1',
  pathFormat: 'PATH_FORMAT_BIP32',
  path: "m/44'/60'/0'/0/0",
  addressFormat: 'ADDRESS_FORMAT_ETHEREUM',
} as const;

describe('example: Keyhold mounted under /keyhold in a host Express app', () => {
  let running: MountedServer;
  let client: ReturnType<Turnkey['apiClient']>;

  beforeAll(async () => {
    running = await main({ port: 0 });
    client = new Turnkey({
      apiBaseUrl: running.keyholdUrl,
      apiPublicKey: running.apiKey.publicKey,
      apiPrivateKey: running.apiKey.privateKey!,
      defaultOrganizationId: running.organizationId,
      activityPoller: { intervalMs: 50, numRetries: 5 },
    }).apiClient();
  });

  afterAll(async () => {
    await running?.close();
  });

  it('serves the published client at /keyhold: whoami, createWallet, signRawPayload', async () => {
    expect(running.keyholdUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/keyhold$/);
    const me = await client.getWhoami();
    expect(me).toMatchObject({
      organizationId: running.organizationId,
      organizationName: 'Host App',
      userId: running.userId,
    });

    const wallet = await client.createWallet({ walletName: 'mounted', accounts: [ETH_ACCOUNT] });
    expect(wallet.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    const address = wallet.addresses[0]!;
    expect(address).toBe(getAddress(address));

    const digest = keccak256(stringToBytes('signed through a mounted router'));
    const sig = await client.signRawPayload({
      signWith: address,
      payload: digest,
      encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
      hashFunction: 'HASH_FUNCTION_NO_OP',
    });
    expect(sig.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(['00', '01']).toContain(sig.v);
    const signature = serializeSignature({
      r: `0x${sig.r}`,
      s: `0x${sig.s}`,
      yParity: Number(sig.v),
    });
    expect(await recoverAddress({ hash: digest, signature })).toBe(address);

    const { activity } = await client.getActivity({ activityId: sig.activity.id });
    expect(activity.result.signRawPayloadResult).toEqual({ r: sig.r, s: sig.s, v: sig.v });
  });

  it('keeps the host’s own routes working: GET /hello and a JSON POST after Keyhold', async () => {
    const hello = await fetch(`${running.url}/hello`);
    expect(hello.status).toBe(200);
    expect(await hello.json()).toEqual({ hello: 'world' });

    const echo = await fetch(`${running.url}/api/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ n: 1, words: ['a', 'b'] }),
    });
    expect(echo.status).toBe(200);
    expect(await echo.json()).toEqual({ echoed: { n: 1, words: ['a', 'b'] } });
  });

  it('Keyhold is only under /keyhold: the same API path at the root is not Keyhold', async () => {
    const response = await fetch(`${running.url}/public/v1/query/whoami`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ organizationId: running.organizationId }),
    });
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type') ?? '').not.toMatch(/json/);
  });

  it('a stamp with the wrong key is refused through the mount (401)', async () => {
    const stranger = generateApiKeyPair();
    const strangerClient = new Turnkey({
      apiBaseUrl: running.keyholdUrl,
      apiPublicKey: stranger.publicKey,
      apiPrivateKey: stranger.privateKey,
      defaultOrganizationId: running.organizationId,
    }).apiClient();
    const error = await strangerClient.getWhoami().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TurnkeyRequestError);
    expect((error as TurnkeyRequestError).code).toBe(16);
  });
});

describe('why the order matters', () => {
  it('a body parser mounted BEFORE Keyhold consumes the signed bytes: Keyhold refuses with "bad request body"', async () => {
    const keyhold = createKeyhold({ logger: silentLogger });
    const key = generateApiKeyPair();
    const { organizationId } = await keyhold.bootstrap({
      organizationName: 'Wrong Order',
      apiPublicKey: key.publicKey,
    });
    const app = express();
    app.use(express.json()); // wrong: parses /keyhold bodies too
    app.use('/keyhold', createKeyholdRouter(keyhold));
    const server: Server = await new Promise((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    try {
      const { port } = server.address() as AddressInfo;
      const client = new Turnkey({
        apiBaseUrl: `http://127.0.0.1:${port}/keyhold`,
        apiPublicKey: key.publicKey,
        apiPrivateKey: key.privateKey,
        defaultOrganizationId: organizationId,
      }).apiClient();
      const error = await client.getWhoami().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TurnkeyRequestError);
      expect((error as TurnkeyRequestError).code).toBe(3);
      expect((error as Error).message).toMatch(/^Turnkey error 3: bad request body/);
    } finally {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      await keyhold.close();
    }
  });
});

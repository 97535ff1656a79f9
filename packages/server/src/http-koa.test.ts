/**
 * `startServer({ http: 'koa' })` — what `keyhold serve --http koa` runs — driven by the
 * published `@turnkey/sdk-server` client; then the Express and Koa adapters side by side in
 * front of ONE Keyhold, answering the same raw requests alike; then draining on close.
 * (The conformance suite runs over Koa in conformance.test.ts.)
 */
import { once } from 'node:events';
import {
  createServer,
  request as httpRequest,
  type OutgoingHttpHeaders,
  type RequestListener,
  type Server,
} from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import { type HttpAdapterKind, type RunningServer, startServer } from '@keyhold/cli';
import { createKeyholdRouter } from '@keyhold/http-express';
import { createKeyholdMiddleware } from '@keyhold/http-koa';
import { Messages, type RawRequest, type RequestHandler } from '@keyhold/protocol';
import { Turnkey, TurnkeyRequestError } from '@turnkey/sdk-server';
import express from 'express';
import Koa from 'koa';
import { getAddress, keccak256, recoverAddress, serializeSignature, stringToBytes } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKeyStamper, generateApiKeyPair } from './api-key-signer.js';
import { createKeyhold } from './keyhold.js';
import { silentLogger } from './logger.js';

const ETH_ACCOUNT = {
  curve: 'CURVE_SECP256K1',
  pathFormat: 'PATH_FORMAT_BIP32',
  path: "m/44'/60'/0'/0/0",
  addressFormat: 'ADDRESS_FORMAT_ETHEREUM',
} as const;

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * One raw request; the reply without the headers that differ by the moment (date, keep-alive)
 * or by the request (its generated X-Request-Id, whose presence is all that is compared).
 */
function send(
  baseUrl: string,
  method: string,
  path: string,
  { headers = {}, body }: { headers?: OutgoingHttpHeaders; body?: Uint8Array | Uint8Array[] } = {},
): Promise<Reply> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: hostname, port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const { date: _d, connection: _c, 'keep-alive': _k, ...rest } = res.headers;
        if (rest['x-request-id']) rest['x-request-id'] = '(present)';
        resolve({
          status: res.statusCode ?? 0,
          headers: rest,
          body: Buffer.concat(chunks).toString(),
        });
      });
    });
    req.on('error', reject);
    if (Array.isArray(body)) {
      for (const chunk of body) req.write(chunk);
      req.end();
    } else req.end(body);
  });
}

describe('the published client against startServer({ http: "koa" })', () => {
  const key = generateApiKeyPair();
  let server: RunningServer;
  let client: ReturnType<Turnkey['apiClient']>;

  beforeAll(async () => {
    server = await startServer({
      port: 0,
      http: 'koa',
      logger: silentLogger,
      bootstrapApiPublicKey: key.publicKey,
      bootstrapOrganizationName: 'Koa Org',
    });
    client = new Turnkey({
      apiBaseUrl: server.url,
      apiPublicKey: key.publicKey,
      apiPrivateKey: key.privateKey,
      defaultOrganizationId: server.organizationId!,
      activityPoller: { intervalMs: 50, numRetries: 5 },
    }).apiClient();
  });
  afterAll(() => server?.close());

  it('whoami names the bootstrap organization and user', async () => {
    expect(await client.getWhoami()).toMatchObject({
      organizationId: server.organizationId,
      organizationName: 'Koa Org',
      userId: server.userId,
    });
  });

  it('creates a wallet and signs a raw payload; viem recovers the wallet’s address', async () => {
    const wallet = await client.createWallet({ walletName: 'koa', accounts: [ETH_ACCOUNT] });
    expect(wallet.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    const address = wallet.addresses[0]!;
    expect(address).toBe(getAddress(address));

    const digest = keccak256(stringToBytes('signed through the Koa adapter'));
    const sig = await client.signRawPayload({
      signWith: address,
      payload: digest,
      encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
      hashFunction: 'HASH_FUNCTION_NO_OP',
    });
    expect(sig.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    const signature = serializeSignature({
      r: `0x${sig.r}`,
      s: `0x${sig.s}`,
      yParity: Number(sig.v),
    });
    expect(await recoverAddress({ hash: digest, signature })).toBe(address);

    const { activity } = await client.getActivity({ activityId: sig.activity.id });
    expect(activity.result.signRawPayloadResult).toEqual({ r: sig.r, s: sig.s, v: sig.v });
  });

  it('refuses a key the organization does not hold: 401 and the catalogue message', async () => {
    const stranger = generateApiKeyPair();
    const strangerClient = new Turnkey({
      apiBaseUrl: server.url,
      apiPublicKey: stranger.publicKey,
      apiPrivateKey: stranger.privateKey,
      defaultOrganizationId: server.organizationId!,
    }).apiClient();
    const error = await strangerClient.getWhoami().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TurnkeyRequestError);
    expect((error as TurnkeyRequestError).code).toBe(16);
    expect((error as Error).message).toContain(Messages.PUBLIC_KEY_NOT_FOUND.message);
  });

  it('refuses a stamp over other bytes (one trailing space): 401 Status body', async () => {
    const body = JSON.stringify({ organizationId: server.organizationId });
    const stamp = createApiKeyStamper(key.privateKey).stamp(body);
    const reply = await send(server.url, 'POST', '/public/v1/query/whoami', {
      headers: { 'content-type': 'application/json', 'x-stamp': stamp },
      body: Buffer.from(`${body} `),
    });
    expect(reply.status).toBe(401);
    expect(reply.headers['content-type']).toBe('application/json');
    expect(JSON.parse(reply.body)).toEqual({
      code: 16,
      message: Messages.SIGNATURE_INVALID.message,
      details: [expect.objectContaining({ errorCode: 'SIGNATURE_INVALID' })],
    });
  });
});

describe('Express and Koa in front of one Keyhold answer alike', () => {
  const key = generateApiKeyPair();
  const stamper = createApiKeyStamper(key.privateKey);
  const keyhold = createKeyhold({ logger: silentLogger });
  let viaExpress: RunningServer;
  let viaKoa: RunningServer;
  let organizationId: string;

  beforeAll(async () => {
    viaExpress = await startServer({ port: 0, keyhold, bootstrapApiPublicKey: key.publicKey });
    viaKoa = await startServer({ port: 0, http: 'koa', keyhold });
    organizationId = viaExpress.organizationId!;
  });
  afterAll(async () => {
    await viaKoa?.close();
    await viaExpress?.close(); // closes the shared Keyhold (again): closing twice is harmless
  });

  const stamped = (text: string): { headers: OutgoingHttpHeaders; body: Buffer } => ({
    headers: { 'content-type': 'application/json', 'x-stamp': stamper.stamp(text) },
    body: Buffer.from(text),
  });
  const whoami = () => JSON.stringify({ organizationId });
  const big = () => Buffer.alloc(1024 * 1024 + 1, 0x20);

  const cases: [
    string,
    string,
    string,
    () => { headers?: OutgoingHttpHeaders; body?: Buffer | Buffer[] },
  ][] = [
    ['a stamped whoami', 'POST', '/public/v1/query/whoami?trace=1', () => stamped(whoami())],
    [
      'a stamped create_wallet (the same bytes are the same activity)',
      'POST',
      '/public/v1/submit/create_wallet',
      () =>
        stamped(
          JSON.stringify({
            type: 'ACTIVITY_TYPE_CREATE_WALLET',
            timestampMs: String(Date.now()),
            organizationId,
            parameters: { walletName: 'twice', accounts: [ETH_ACCOUNT] },
          }),
        ),
    ],
    [
      'a gzip-encoded stamped whoami',
      'POST',
      '/public/v1/query/whoami',
      () => {
        const { headers, body } = stamped(whoami());
        return { headers: { ...headers, 'content-encoding': 'gzip' }, body: gzipSync(body) };
      },
    ],
    [
      'an unstamped whoami',
      'POST',
      '/public/v1/query/whoami',
      () => ({ body: Buffer.from(whoami()) }),
    ],
    [
      'a stamp over other bytes',
      'POST',
      '/public/v1/query/whoami',
      () => ({ ...stamped(whoami()), body: Buffer.from(`${whoami()}\n`) }),
    ],
    [
      'a body that is not UTF-8',
      'POST',
      '/public/v1/query/whoami',
      () => {
        const bytes = Buffer.from([0x7b, 0xff, 0x7d]);
        return { headers: { 'x-stamp': stamper.stamp(bytes) }, body: bytes };
      },
    ],
    [
      'an empty body',
      'POST',
      '/public/v1/query/whoami',
      () => ({ headers: { 'content-length': '0' } }),
    ],
    ['GET on a query (405)', 'GET', '/public/v1/query/whoami', () => ({})],
    [
      'an unknown activity (404)',
      'POST',
      '/public/v1/submit/make_coffee',
      () => ({ body: Buffer.from('{}') }),
    ],
    ['an unknown path (404 Status, not a framework page)', 'GET', '/nowhere', () => ({})],
    ['the health probe', 'GET', '/health', () => ({})],
    ['the readiness probe', 'GET', '/ready', () => ({})],
    ['a CORS preflight', 'OPTIONS', '/public/v1/submit/create_wallet', () => ({})],
    ['a declared 1 MiB + 1 body (413)', 'POST', '/public/v1/query/whoami', () => ({ body: big() })],
    [
      'a chunked 1 MiB + 1 body (413)',
      'POST',
      '/public/v1/query/whoami',
      () => ({ body: [big().subarray(0, 700_000), big().subarray(700_000)] }),
    ],
    [
      'an unknown Content-Encoding (400)',
      'POST',
      '/public/v1/query/whoami',
      () => ({ headers: { 'content-encoding': 'compress' }, body: Buffer.from('{}') }),
    ],
  ];

  it.each(cases)('%s', async (_, method, path, make) => {
    const request = make();
    const express = await send(viaExpress.url, method, path, request);
    const koa = await send(viaKoa.url, method, path, request);
    expect(koa).toEqual(express);
    expect(express.status).not.toBe(500);
  });

  it('HEAD: the same status, headers and empty body, except that Koa also sends Content-Length', async () => {
    const express = await send(viaExpress.url, 'HEAD', '/health');
    const koa = await send(viaKoa.url, 'HEAD', '/health');
    expect(express.headers['content-length']).toBeUndefined();
    expect(Number(koa.headers['content-length'])).toBeGreaterThan(0); // what GET would send
    const { 'content-length': _, ...koaRest } = koa.headers;
    expect({ ...koa, headers: koaRest }).toEqual(express);
    expect(koa.body).toBe('');
  });
});

describe('Express and Koa hand the handler the same request', () => {
  const seen: { express: RawRequest[]; koa: RawRequest[] } = { express: [], koa: [] };
  const recorder = (into: RawRequest[]): RequestHandler => ({
    async handle(request) {
      into.push(request);
      return { status: 200, headers: { 'content-type': 'application/json' }, body: '{}' };
    },
  });
  const servers: Server[] = [];
  const urls: { express: string; koa: string } = { express: '', koa: '' };

  beforeAll(async () => {
    const expressApp = express();
    expressApp.use(createKeyholdRouter(recorder(seen.express)));
    const koaApp = new Koa();
    koaApp.use(createKeyholdMiddleware(recorder(seen.koa), { fallThrough: false }));
    for (const [name, listener] of [
      ['express', expressApp],
      ['koa', koaApp.callback()],
    ] as [keyof typeof urls, RequestListener][]) {
      const server = createServer(listener).listen(0, '127.0.0.1');
      servers.push(server);
      await once(server, 'listening');
      urls[name] = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    }
  });
  afterAll(async () => {
    for (const server of servers) await new Promise((resolve) => server.close(resolve));
  });

  it('method, path, headers, raw bytes and client address, for every kind of request', async () => {
    const requests: [
      string,
      string,
      { headers?: OutgoingHttpHeaders; body?: Buffer | Buffer[] },
    ][] = [
      ['POST', '/public/v1/query/whoami?x=1', { body: Buffer.from('{"a":1} ') }],
      ['POST', '/public/v1/submit/create_wallet', { body: Buffer.from([0xff, 0x00, 0xfe]) }],
      ['POST', '/anything/else', { headers: { 'content-length': '0' } }],
      ['POST', '/x', { body: [Buffer.from('{"chunked":'), Buffer.from('true}')] }],
      ['POST', '/x', { headers: { 'content-encoding': 'gzip' }, body: gzipSync('{"z":1}') }],
      ['GET', '/health', { headers: { 'X-Stamp': 's', 'x-dup': ['a', 'b'] } }],
      ['HEAD', '/ready', {}],
      ['OPTIONS', '/public/v1/query/whoami', { headers: { 'x-forwarded-for': '203.0.113.9' } }],
    ];
    for (const [method, path, request] of requests) {
      await send(urls.express, method, path, request);
      await send(urls.koa, method, path, request);
    }
    // The Host header names each server's own port; everything else must match.
    const comparable = (r: RawRequest) => ({
      ...r,
      headers: { ...r.headers, host: undefined },
      rawBody: Buffer.from(r.rawBody).toString('hex'),
    });
    expect(seen.koa).toHaveLength(requests.length);
    expect(seen.koa.map(comparable)).toEqual(seen.express.map(comparable));
    expect(seen.koa.map((r) => r.remoteAddress)).toEqual(requests.map(() => '127.0.0.1'));
  });
});

describe.each<HttpAdapterKind>(['express', 'koa'])('draining (%s)', (http) => {
  it('close() stops accepting, lets an in-flight request finish, then resolves', async () => {
    const key = generateApiKeyPair();
    const server = await startServer({
      port: 0,
      http,
      logger: silentLogger,
      bootstrapApiPublicKey: key.publicKey,
    });
    const body = JSON.stringify({ organizationId: server.organizationId });
    const { hostname, port } = new URL(server.url);
    const socket = connect(Number(port), hostname);
    await once(socket, 'connect');
    let received = '';
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString();
    });
    socket.write(
      `POST /public/v1/query/whoami HTTP/1.1\r\nhost: ${hostname}\r\ncontent-length: ${body.length}\r\n` +
        `x-stamp: ${createApiKeyStamper(key.privateKey).stamp(body)}\r\n\r\n${body.slice(0, 10)}`,
    );
    await new Promise((resolve) => setTimeout(resolve, 50)); // the request is in flight
    let closed = false;
    const started = Date.now();
    const closing = server.close().then(() => {
      closed = true;
    });
    await expect(fetch(`${server.url}/health`)).rejects.toThrow(); // no new connections
    expect(closed).toBe(false);
    const socketClosed = once(socket, 'close');
    socket.write(body.slice(10));
    await closing; // resolves once the in-flight response went out
    await socketClosed; // the server ended the keep-alive socket with the response
    // …promptly: the response closed its keep-alive socket (keepAliveTimeout is 5 s).
    expect(Date.now() - started).toBeLessThan(2_500);
    expect(received).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(received.toLowerCase()).toContain('connection: close');
    expect(received).toContain(`"organizationId":"${server.organizationId}"`);
  });
});

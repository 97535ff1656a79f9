/**
 * The Koa adapter's contract, over real HTTP against a Koa server on 127.0.0.1:0, with a fake
 * RequestHandler that records what it was handed (the adapter never imports the server; the
 * end-to-end proof with the published clients is packages/server/src/http-koa.test.ts).
 */
import { once } from 'node:events';
import { request as httpRequest, type OutgoingHttpHeaders, type Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import {
  KeyholdError,
  MAX_REQUEST_BODY_BYTES,
  type RawRequest,
  type RawResponse,
  type RequestHandler,
} from '@keyhold/protocol';
import fc from 'fast-check';
import Koa, { type Middleware } from 'koa';
import { afterEach, describe, expect, it } from 'vitest';
import { createKeyholdMiddleware, type KeyholdMiddlewareOptions } from './koa-middleware.js';

/** Records every request and answers with `answer` (default: a 200 JSON echo of the path). */
function fakeHandler(answer?: (request: RawRequest) => RawResponse | Promise<RawResponse>) {
  const seen: RawRequest[] = [];
  const handler: RequestHandler = {
    async handle(request) {
      seen.push(request);
      if (answer) return answer(request);
      return {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ keyhold: request.path }),
      };
    },
  };
  return { handler, seen };
}

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A Koa app on a free port: `before` middleware, Keyhold, then `after` middleware. */
async function serve(
  handler: RequestHandler,
  options: KeyholdMiddlewareOptions = {},
  { before = [], after = [] }: { before?: Middleware[]; after?: Middleware[] } = {},
) {
  const app = new Koa();
  app.silent = true; // the fault tests emit errors on purpose
  for (const m of before) app.use(m);
  app.use(createKeyholdMiddleware(handler, options));
  for (const m of after) app.use(m);
  const server = app.listen(0, '127.0.0.1');
  servers.push(server);
  await once(server, 'listening');
  return { app, port: (server.address() as AddressInfo).port };
}

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** node:http rather than fetch: exact control of chunking, HEAD and Content-Encoding. */
function send(
  port: number,
  method: string,
  path: string,
  { headers = {}, body }: { headers?: OutgoingHttpHeaders; body?: Uint8Array | Uint8Array[] } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      );
    });
    req.on('error', reject);
    if (Array.isArray(body)) {
      for (const chunk of body) req.write(chunk);
      req.end();
    } else req.end(body);
  });
}

const post = (port: number, path: string, body: Uint8Array, headers: OutgoingHttpHeaders = {}) =>
  send(port, 'POST', path, { headers: { 'content-type': 'application/json', ...headers }, body });

const statusOf = (reply: Reply) => JSON.parse(reply.body) as { code: number; message: string };

describe('raw bytes reach the handler unchanged', () => {
  it('any body, non-UTF-8 and empty included, arrives byte for byte', async () => {
    const { handler, seen } = fakeHandler();
    const { port } = await serve(handler);
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 2048 }), async (bytes) => {
        seen.length = 0;
        const reply = await post(port, '/public/v1/submit/create_wallet', bytes);
        expect(reply.status).toBe(200);
        expect(seen).toHaveLength(1);
        expect(Buffer.from(seen[0]!.rawBody).equals(Buffer.from(bytes))).toBe(true);
      }),
      { numRuns: 40 },
    );
  });

  it('bytes that are not UTF-8 (a lone 0xff, a truncated sequence) are not replaced', async () => {
    const { handler, seen } = fakeHandler();
    const { port } = await serve(handler);
    const bytes = Uint8Array.from([0x7b, 0xff, 0xfe, 0x00, 0xc3, 0x7d]);
    await post(port, '/public/v1/query/whoami', bytes);
    expect([...seen[0]!.rawBody]).toEqual([...bytes]);
  });

  it('a request without a body, and one with Content-Length: 0, give an empty body', async () => {
    const { handler, seen } = fakeHandler();
    const { port } = await serve(handler);
    await send(port, 'GET', '/health');
    await send(port, 'POST', '/public/v1/query/whoami', { headers: { 'content-length': '0' } });
    expect(seen.map((r) => r.rawBody.length)).toEqual([0, 0]);
    expect(seen.every((r) => r.rawBody instanceof Uint8Array)).toBe(true);
  });

  it('a chunked body arrives whole', async () => {
    const { handler, seen } = fakeHandler();
    const { port } = await serve(handler);
    const parts = [Buffer.from('{"a":'), Buffer.from('1'), Buffer.from('}')];
    await send(port, 'POST', '/public/v1/query/whoami', { body: parts });
    expect(Buffer.from(seen[0]!.rawBody).toString()).toBe('{"a":1}');
  });

  it.each([
    ['gzip', gzipSync],
    ['deflate', deflateSync],
    ['br', brotliCompressSync],
  ])('a %s Content-Encoding is decoded (as express.raw() does)', async (encoding, compress) => {
    const { handler, seen } = fakeHandler();
    const { port } = await serve(handler);
    const json = Buffer.from('{"organizationId":"o"}');
    const reply = await post(port, '/public/v1/query/whoami', compress(json), {
      'content-encoding': encoding,
    });
    expect(reply.status).toBe(200);
    expect(Buffer.from(seen[0]!.rawBody).equals(json)).toBe(true);
  });
});

describe('method, path and headers', () => {
  it('hands over the method, the path without its query, and lower-case headers', async () => {
    const { handler, seen } = fakeHandler();
    const { port } = await serve(handler);
    await send(port, 'POST', '/public/v1/query/whoami?debug=1', {
      headers: {
        'X-Stamp': 'stamp-value',
        'X-Client-Version': '@turnkey/http@3',
        'x-dup': ['a', 'b'],
        'content-length': '2',
      },
      body: Buffer.from('{}'),
    });
    const request = seen[0]!;
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/public/v1/query/whoami');
    expect(request.headers['x-stamp']).toBe('stamp-value');
    expect(request.headers['x-client-version']).toBe('@turnkey/http@3');
    expect(request.headers['x-dup']).toBe('a, b');
    expect(Object.keys(request.headers).every((name) => name === name.toLowerCase())).toBe(true);
  });

  it('hands over the client’s address: the socket peer, X-Forwarded-For only behind app.proxy', async () => {
    const { handler, seen } = fakeHandler();
    const direct = await serve(handler);
    await send(direct.port, 'GET', '/health', { headers: { 'x-forwarded-for': '203.0.113.9' } });
    expect(seen[0]!.remoteAddress).toBe('127.0.0.1'); // a client can write that header
    const proxied = await serve(handler);
    proxied.app.proxy = true; // the host says a trusted proxy sits in front
    await send(proxied.port, 'GET', '/health', {
      headers: { 'x-forwarded-for': '203.0.113.9, 10.0.0.1' },
    });
    expect(seen[1]!.remoteAddress).toBe('203.0.113.9');
  });

  it('writes the handler’s status, headers (Retry-After included) and body back unchanged', async () => {
    const body = '{"code":14,"message":"unavailable","details":[]}';
    const { handler } = fakeHandler(() => ({
      status: 503,
      headers: {
        'content-type': 'application/json',
        'retry-after': '1',
        'cache-control': 'no-store',
      },
      body,
    }));
    const { port } = await serve(handler);
    const reply = await send(port, 'GET', '/ready');
    expect(reply.status).toBe(503);
    expect(reply.headers['retry-after']).toBe('1');
    expect(reply.headers['cache-control']).toBe('no-store');
    expect(reply.headers['content-type']).toBe('application/json');
    expect(reply.body).toBe(body);
  });

  it('adds no Content-Type of its own when the handler sets none', async () => {
    const { handler } = fakeHandler(() => ({ status: 200, headers: {}, body: 'plain' }));
    const { port } = await serve(handler);
    const reply = await send(port, 'GET', '/health');
    expect(reply.headers['content-type']).toBeUndefined();
    expect(reply.body).toBe('plain');
  });

  it('HEAD goes to the handler; the reply has its status and headers and no body', async () => {
    const { handler, seen } = fakeHandler(() => ({
      status: 404,
      headers: { 'content-type': 'application/json' },
      body: '{"code":5,"message":"not found","details":[]}',
    }));
    const { port } = await serve(handler);
    const reply = await send(port, 'HEAD', '/health');
    expect(seen[0]!.method).toBe('HEAD');
    expect(reply.status).toBe(404);
    expect(reply.headers['content-type']).toBe('application/json');
    expect(reply.body).toBe('');
  });

  it('OPTIONS goes to the handler: a 204 preflight keeps its CORS headers and has no body', async () => {
    const { handler, seen } = fakeHandler(() => ({
      status: 204,
      headers: { 'access-control-allow-origin': '*', 'access-control-allow-headers': 'x-stamp' },
      body: '',
    }));
    const { port } = await serve(handler);
    const reply = await send(port, 'OPTIONS', '/public/v1/query/whoami');
    expect(seen[0]!.method).toBe('OPTIONS');
    expect(reply.status).toBe(204);
    expect(reply.headers['access-control-allow-headers']).toBe('x-stamp');
    expect(reply.headers['content-type']).toBeUndefined();
    expect(reply.body).toBe('');
  });
});

describe('the body size limit', () => {
  const tooLarge = (reply: Reply) => {
    expect(reply.status).toBe(413);
    expect(reply.headers['content-type']).toBe('application/json');
    expect(statusOf(reply)).toMatchObject({ code: 8, message: 'request body too large' });
  };

  it('accepts exactly 1 MiB', async () => {
    const { handler, seen } = fakeHandler();
    const { port } = await serve(handler);
    const reply = await post(port, '/public/v1/query/whoami', Buffer.alloc(MAX_REQUEST_BODY_BYTES));
    expect(reply.status).toBe(200);
    expect(seen[0]!.rawBody.length).toBe(MAX_REQUEST_BODY_BYTES);
  });

  it('refuses one byte more with 413 and the catalogue Status, declared or chunked', async () => {
    const { handler, seen } = fakeHandler();
    const { port } = await serve(handler);
    const big = Buffer.alloc(MAX_REQUEST_BODY_BYTES + 1, 0x78);
    tooLarge(await post(port, '/public/v1/query/whoami', big));
    tooLarge(
      await send(port, 'POST', '/public/v1/query/whoami', {
        body: [big.subarray(0, 600_000), big.subarray(600_000)],
      }),
    );
    expect(seen).toHaveLength(0);
  });

  it('counts decoded bytes: a small gzip that inflates past the limit is refused', async () => {
    const { handler, seen } = fakeHandler();
    const { port } = await serve(handler);
    const bomb = gzipSync(Buffer.alloc(MAX_REQUEST_BODY_BYTES * 4));
    expect(bomb.length).toBeLessThan(10_000);
    tooLarge(await post(port, '/public/v1/query/whoami', bomb, { 'content-encoding': 'gzip' }));
    expect(seen).toHaveLength(0);
  });

  it('honours maxBodyBytes', async () => {
    const { handler } = fakeHandler();
    const { port } = await serve(handler, { maxBodyBytes: 10 });
    expect((await post(port, '/public/v1/query/whoami', Buffer.alloc(10))).status).toBe(200);
    tooLarge(await post(port, '/public/v1/query/whoami', Buffer.alloc(11)));
  });

  /** A raw connection: what it has received, and whether the server has closed it. */
  async function rawConnection(port: number) {
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    const state = { received: '', closed: false, socket };
    socket.on('data', (chunk: Buffer) => {
      state.received += chunk.toString('latin1');
    });
    socket.on('close', () => {
      state.closed = true;
    });
    socket.on('error', () => {});
    return state;
  }

  it('refuses a declared Content-Length over the limit at once, before any of the body, and closes', async () => {
    const { handler, seen } = fakeHandler();
    const { port } = await serve(handler);
    const connection = await rawConnection(port);
    // 100 MB announced, not a byte of it sent: the answer cannot wait for the body.
    connection.socket.write(
      'POST /public/v1/query/whoami HTTP/1.1\r\nhost: x\r\ncontent-length: 104857600\r\n\r\n',
    );
    await expect.poll(() => connection.closed, { timeout: 2_000 }).toBe(true);
    const [head, body] = connection.received.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 413 /);
    expect(head?.toLowerCase()).toContain('connection: close');
    expect(JSON.parse(body ?? '')).toMatchObject({ code: 8, message: 'request body too large' });
    expect(seen).toHaveLength(0);
  });

  it('refuses a chunked body at the first chunk past the limit, without waiting for the rest', async () => {
    const { handler, seen } = fakeHandler();
    const { port } = await serve(handler, { maxBodyBytes: 10 });
    const connection = await rawConnection(port);
    connection.socket.write(
      'POST /public/v1/query/whoami HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n' +
        '14\r\nxxxxxxxxxxxxxxxxxxxx\r\n', // 20 bytes, and the upload goes on (no last chunk)
    );
    await expect.poll(() => connection.closed, { timeout: 2_000 }).toBe(true);
    expect(connection.received).toMatch(/^HTTP\/1\.1 413 /);
    expect(connection.received.toLowerCase()).toContain('connection: close');
    expect(connection.received).toContain('"message":"request body too large"');
    expect(seen).toHaveLength(0);
  });

  it('a body within the limit keeps the connection alive', async () => {
    const { handler } = fakeHandler();
    const { port } = await serve(handler, { maxBodyBytes: 10 });
    const connection = await rawConnection(port);
    connection.socket.write(
      'POST /public/v1/query/whoami HTTP/1.1\r\nhost: x\r\ncontent-length: 2\r\n\r\n{}' +
        'GET /health HTTP/1.1\r\nhost: x\r\n\r\n',
    );
    await expect
      .poll(() => connection.received.match(/HTTP\/1\.1 \d+/g), { timeout: 2_000 })
      .toEqual(['HTTP/1.1 200', 'HTTP/1.1 200']);
    expect(connection.received.toLowerCase()).not.toContain('connection: close');
    expect(connection.closed).toBe(false);
    connection.socket.destroy();
  });
});

describe('bodies Keyhold cannot read', () => {
  it.each([
    ['an unknown Content-Encoding', 'compress', Buffer.from('abc')],
    ['corrupt gzip data', 'gzip', Buffer.from('not gzip at all')],
  ])('%s is a 400 "bad request body"', async (_, encoding, body) => {
    const { handler, seen } = fakeHandler();
    const { port } = await serve(handler);
    const reply = await post(port, '/public/v1/query/whoami', body, {
      'content-encoding': encoding,
    });
    expect(reply.status).toBe(400);
    expect(statusOf(reply)).toMatchObject({ code: 3, message: 'bad request body' });
    expect(seen).toHaveLength(0);
  });

  it('a body parser mounted first consumed the stream: refused clearly, never a re-serialization', async () => {
    const { handler, seen } = fakeHandler();
    // What koa-bodyparser / co-body do: read the stream, keep the parsed value.
    const jsonParser: Middleware = async (ctx, next) => {
      const chunks: Buffer[] = [];
      for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
      (ctx.request as { body?: unknown }).body = JSON.parse(Buffer.concat(chunks).toString());
      await next();
    };
    const { port } = await serve(handler, {}, { before: [jsonParser] });
    const reply = await post(port, '/public/v1/query/whoami', Buffer.from('{"a":1}'));
    expect(reply.status).toBe(400);
    const status = JSON.parse(reply.body);
    expect(status.message).toBe('bad request body');
    expect(status.details[0].reason).toMatch(/mount the Keyhold middleware before body parsers/);
    expect(seen).toHaveLength(0);
  });

  it('a parser that skipped the request (other content type) leaves the bytes to Keyhold', async () => {
    const { handler, seen } = fakeHandler();
    const skips: Middleware = async (ctx, next) => {
      (ctx.request as { body?: unknown }).body = {}; // koa-bodyparser's value when it skips
      await next();
    };
    const { port } = await serve(handler, {}, { before: [skips] });
    const reply = await post(port, '/public/v1/query/whoami', Buffer.from('{"a":1}'));
    expect(reply.status).toBe(200);
    expect(Buffer.from(seen[0]!.rawBody).toString()).toBe('{"a":1}');
  });

  it('an upload cut off midway never reaches the handler, and the server carries on', async () => {
    const { handler, seen } = fakeHandler();
    const { port } = await serve(handler);
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    socket.write(
      'POST /public/v1/query/whoami HTTP/1.1\r\nhost: x\r\ncontent-length: 100\r\n\r\n{"a"',
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.destroy();
    const reply = await send(port, 'GET', '/health');
    expect(reply.status).toBe(200);
    expect(seen.map((r) => r.path)).toEqual(['/health']);
  });
});

describe('faults in the handler', () => {
  it('a thrown error is a 500 Status "internal server error (<id>)" with no stack, and an app error event', async () => {
    const { handler } = fakeHandler(() => {
      throw new Error('database password is hunter2');
    });
    const { app, port } = await serve(handler);
    const events: { error: Error; id: unknown }[] = [];
    app.on('error', (error: Error, ctx: Koa.Context) =>
      events.push({ error, id: ctx.state.keyholdErrorId }),
    );
    const reply = await send(port, 'POST', '/public/v1/query/whoami', { body: Buffer.from('{}') });
    expect(reply.status).toBe(500);
    expect(reply.headers['content-type']).toBe('application/json');
    const status = JSON.parse(reply.body);
    expect(status.code).toBe(13);
    expect(status.message).toMatch(/^internal server error \([0-9a-f-]{36}\)$/);
    expect(reply.body).not.toContain('hunter2');
    expect(reply.body).not.toMatch(/\bat .*\.ts:\d+/);
    expect(events).toHaveLength(1);
    expect(events[0]!.error.message).toBe('database password is hunter2');
    expect(status.message).toContain(events[0]!.id);
  });

  it('a non-Error rejection and an impossible status are faults too', async () => {
    let n = 0;
    const { handler } = fakeHandler(() => {
      n += 1;
      if (n === 1) return Promise.reject('just a string');
      return { status: 42, headers: {}, body: '' };
    });
    const { port } = await serve(handler);
    for (let i = 0; i < 2; i++) {
      const reply = await send(port, 'GET', '/health');
      expect(reply.status).toBe(500);
      expect(statusOf(reply).code).toBe(13);
    }
  });

  it('a thrown KeyholdError is its own Status body', async () => {
    const { handler } = fakeHandler(() => {
      throw new KeyholdError('PUBLIC_KEY_NOT_FOUND');
    });
    const { port } = await serve(handler);
    const reply = await send(port, 'GET', '/health');
    expect(reply.status).toBe(401);
    expect(statusOf(reply)).toMatchObject({
      code: 16,
      message: 'could not find public key in organization or its parent organization',
    });
  });
});

describe('beside the host’s own routes', () => {
  const host: Middleware = async (ctx, next) => {
    if (ctx.path === '/hello') ctx.body = { hello: 'world' };
    else await next();
  };

  it('serves Keyhold’s paths and passes every other path to the host', async () => {
    const { handler, seen } = fakeHandler();
    const { port } = await serve(handler, {}, { after: [host] });
    expect(JSON.parse((await send(port, 'GET', '/hello')).body)).toEqual({ hello: 'world' });
    const unknown = await send(port, 'GET', '/nowhere');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toBe('Not Found'); // Koa's, not Keyhold's
    for (const path of [
      '/public/v1/query/whoami',
      '/public/v1/submit/make_coffee',
      '/health',
      '/ready',
    ])
      await send(port, 'POST', path, { body: Buffer.from('{}') });
    expect(seen.map((r) => r.path)).toEqual([
      '/public/v1/query/whoami',
      '/public/v1/submit/make_coffee',
      '/health',
      '/ready',
    ]);
  });

  it('a host body parser mounted after Keyhold parses the host’s routes only', async () => {
    const { handler, seen } = fakeHandler();
    const parser: Middleware = async (ctx, next) => {
      const chunks: Buffer[] = [];
      for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
      ctx.body = { echoed: JSON.parse(Buffer.concat(chunks).toString()) };
      await next();
    };
    const { port } = await serve(handler, {}, { after: [parser] });
    const echo = await post(port, '/api/echo', Buffer.from('{"n":1}'));
    expect(JSON.parse(echo.body)).toEqual({ echoed: { n: 1 } });
    expect((await post(port, '/public/v1/query/whoami', Buffer.from('{"k":2}'))).status).toBe(200);
    expect(Buffer.from(seen[0]!.rawBody).toString()).toBe('{"k":2}');
  });

  it('under a prefix: the path is handed over without it, and nothing outside it is Keyhold’s', async () => {
    const { handler, seen } = fakeHandler();
    const { port } = await serve(handler, { prefix: '/keyhold/' }, { after: [host] });
    const reply = await send(port, 'POST', '/keyhold/public/v1/query/whoami?x=1', {
      body: Buffer.from('{}'),
    });
    expect(JSON.parse(reply.body)).toEqual({ keyhold: '/public/v1/query/whoami' });
    expect((await send(port, 'POST', '/public/v1/query/whoami')).status).toBe(404);
    expect((await send(port, 'GET', '/keyholder/health')).status).toBe(404);
    expect((await send(port, 'GET', '/hello')).status).toBe(200);
    expect((await send(port, 'GET', '/keyhold/hello')).status).toBe(404); // not Keyhold's, host has none
    expect(seen.map((r) => r.path)).toEqual(['/public/v1/query/whoami']);
  });

  it('fallThrough: false answers every request under the prefix, as the Express router does', async () => {
    const { handler, seen } = fakeHandler();
    const { port } = await serve(handler, { fallThrough: false }, { after: [host] });
    expect(JSON.parse((await send(port, 'GET', '/hello')).body)).toEqual({ keyhold: '/hello' });
    const prefixed = await serve(
      handler,
      { prefix: '/keyhold', fallThrough: false },
      { after: [host] },
    );
    expect(JSON.parse((await send(prefixed.port, 'GET', '/keyhold')).body)).toEqual({
      keyhold: '/',
    });
    expect((await send(prefixed.port, 'GET', '/hello')).status).toBe(200);
    expect(seen.map((r) => r.path)).toEqual(['/hello', '/']);
  });

  it('upstream host middleware sees Keyhold’s response, as with any Koa middleware', async () => {
    const { handler } = fakeHandler(() => ({
      status: 401,
      headers: { 'content-type': 'application/json' },
      body: '{"code":16,"message":"x","details":[]}',
    }));
    const logged: number[] = [];
    const accessLog: Middleware = async (ctx, next) => {
      await next();
      logged.push(ctx.status);
      ctx.set('x-request-id', 'r-1');
    };
    const { port } = await serve(handler, {}, { before: [accessLog] });
    const reply = await send(port, 'GET', '/health');
    expect(logged).toEqual([401]);
    expect(reply.headers['x-request-id']).toBe('r-1');
  });

  it('refuses a prefix that does not start with "/"', () => {
    expect(() => createKeyholdMiddleware(fakeHandler().handler, { prefix: 'keyhold' })).toThrow(
      /prefix must start with "\/"/,
    );
  });
});

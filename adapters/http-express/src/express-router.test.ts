/**
 * The Express adapter's body limits over real sockets, against an Express app on 127.0.0.1:0
 * with a fake RequestHandler (the end-to-end proof with Keyhold behind both adapters is
 * packages/server/src/http-koa.test.ts and http-edge.test.ts).
 */
import { once } from 'node:events';
import type { Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import { MAX_REQUEST_BODY_BYTES, type RawRequest, type RequestHandler } from '@keyhold/protocol';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { createKeyholdRouter, type KeyholdRouterOptions } from './express-router.js';

function fakeHandler() {
  const seen: RawRequest[] = [];
  const handler: RequestHandler = {
    async handle(request) {
      seen.push(request);
      return { status: 200, headers: { 'content-type': 'application/json' }, body: '{}' };
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

async function serve(handler: RequestHandler, options: KeyholdRouterOptions = {}) {
  const app = express();
  app.use(createKeyholdRouter(handler, options));
  const server = app.listen(0, '127.0.0.1');
  servers.push(server);
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

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

const tooLarge = (received: string) => {
  const [head, body] = received.split('\r\n\r\n');
  expect(head).toMatch(/^HTTP\/1\.1 413 /);
  expect(head?.toLowerCase()).toContain('connection: close');
  expect(head?.toLowerCase()).toContain('content-type: application/json');
  expect(JSON.parse(body ?? '')).toMatchObject({ code: 8, message: 'request body too large' });
};

describe('the body size limit', () => {
  it('refuses a declared Content-Length over the limit at once, before any of the body, and closes', async () => {
    const { handler, seen } = fakeHandler();
    const port = await serve(handler);
    const connection = await rawConnection(port);
    // 100 MB announced, not a byte of it sent: the answer cannot wait for the body.
    connection.socket.write(
      'POST /public/v1/query/whoami HTTP/1.1\r\nhost: x\r\ncontent-length: 104857600\r\n\r\n',
    );
    await expect.poll(() => connection.closed, { timeout: 2_000 }).toBe(true);
    tooLarge(connection.received);
    expect(seen).toHaveLength(0);
  });

  it('refuses a chunked body at the first chunk past the limit, without waiting for the rest', async () => {
    const { handler, seen } = fakeHandler();
    const port = await serve(handler, { maxBodyBytes: 10 });
    const connection = await rawConnection(port);
    connection.socket.write(
      'POST /public/v1/query/whoami HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n' +
        '14\r\nxxxxxxxxxxxxxxxxxxxx\r\n', // 20 bytes, and the upload goes on (no last chunk)
    );
    await expect.poll(() => connection.closed, { timeout: 2_000 }).toBe(true);
    tooLarge(connection.received);
    expect(seen).toHaveLength(0);
  });

  it('refuses a small gzip that inflates past the limit as it inflates', async () => {
    const { handler, seen } = fakeHandler();
    const port = await serve(handler);
    const bomb = gzipSync(Buffer.alloc(MAX_REQUEST_BODY_BYTES * 4));
    expect(bomb.length).toBeLessThan(10_000);
    const connection = await rawConnection(port);
    connection.socket.write(
      'POST /public/v1/query/whoami HTTP/1.1\r\nhost: x\r\ncontent-encoding: gzip\r\n' +
        `content-length: ${bomb.length}\r\n\r\n`,
    );
    connection.socket.write(bomb);
    await expect.poll(() => connection.received, { timeout: 2_000 }).toMatch(/^HTTP\/1\.1 413 /);
    expect(connection.received).toContain('"message":"request body too large"');
    expect(seen).toHaveLength(0);
    // The whole (small) upload had arrived: the connection carries the next request.
    connection.socket.write('GET /health HTTP/1.1\r\nhost: x\r\n\r\n');
    await expect
      .poll(() => connection.received.match(/HTTP\/1\.1 \d+/g), { timeout: 2_000 })
      .toEqual(['HTTP/1.1 413', 'HTTP/1.1 200']);
    connection.socket.destroy();
  });

  it('accepts exactly the limit, and keeps the connection alive after it', async () => {
    const { handler, seen } = fakeHandler();
    const port = await serve(handler, { maxBodyBytes: 10 });
    const connection = await rawConnection(port);
    connection.socket.write(
      'POST /public/v1/query/whoami HTTP/1.1\r\nhost: x\r\ncontent-length: 10\r\n\r\n0123456789' +
        'GET /health HTTP/1.1\r\nhost: x\r\n\r\n',
    );
    await expect
      .poll(() => connection.received.match(/HTTP\/1\.1 \d+/g), { timeout: 2_000 })
      .toEqual(['HTTP/1.1 200', 'HTTP/1.1 200']);
    expect(connection.received.toLowerCase()).not.toContain('connection: close');
    expect(connection.closed).toBe(false);
    const post = seen.find((r) => r.method === 'POST'); // the pipelined GET may come first
    expect(Buffer.from(post!.rawBody).toString()).toBe('0123456789');
    connection.socket.destroy();
  });

  it('an upload cut off midway never reaches the handler, and the server carries on', async () => {
    const { handler, seen } = fakeHandler();
    const port = await serve(handler);
    const connection = await rawConnection(port);
    connection.socket.write(
      'POST /public/v1/query/whoami HTTP/1.1\r\nhost: x\r\ncontent-length: 100\r\n\r\n{"a":',
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    connection.socket.resetAndDestroy();
    const next = await rawConnection(port);
    next.socket.write('GET /health HTTP/1.1\r\nhost: x\r\n\r\n');
    await expect.poll(() => next.received, { timeout: 2_000 }).toMatch(/^HTTP\/1\.1 200 /);
    next.socket.destroy();
    expect(seen.map((r) => r.path)).toEqual(['/health']);
  });
});

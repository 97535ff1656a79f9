/**
 * The HTTP edge of `startServer` (what `keyhold serve` runs), on both adapters, through raw
 * sockets: a declared Content-Length over the limit is refused at once; a stalled body or
 * stalled headers get a 408 Status body within the configured timeout; oversized headers and
 * bytes that are not HTTP get Status bodies instead of Node's bare status line; idle keep-alive
 * connections end; connections past the cap are closed; a client that disconnects is not an
 * error in the log (issue #10, findings 5 and 8).
 */
import { once } from 'node:events';
import { connect } from 'node:net';
import {
  type HttpAdapterKind,
  type RunningServer,
  type ServeOptions,
  startServer,
} from '@keyhold/cli';
import { afterEach, describe, expect, it } from 'vitest';
import type { Logger } from './logger.js';

interface LogLine {
  level: 'info' | 'warn' | 'error';
  message: string;
  fields?: Record<string, unknown>;
}

function recordingLogger(): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const at = (level: LogLine['level']) => (message: string, fields?: Record<string, unknown>) =>
    lines.push({ level, message, ...(fields ? { fields } : {}) });
  return { logger: { info: at('info'), warn: at('warn'), error: at('error') }, lines };
}

const running: RunningServer[] = [];
afterEach(async () => {
  for (const server of running.splice(0)) await server.close();
});

async function start(http: HttpAdapterKind, options: ServeOptions = {}) {
  const { logger, lines } = recordingLogger();
  const server = await startServer({ port: 0, http, logger, webhookIntervalMs: 0, ...options });
  running.push(server);
  const { port } = new URL(server.url);
  return { server, port: Number(port), lines };
}

/** A raw connection: what it has received, whether and when the server closed it. */
async function rawConnection(port: number) {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  const state = { received: '', closed: false, closedAt: 0, socket };
  socket.on('data', (chunk: Buffer) => {
    state.received += chunk.toString('latin1');
  });
  socket.on('close', () => {
    state.closed = true;
    state.closedAt = Date.now();
  });
  socket.on('error', () => {});
  return state;
}

/** The response on a connection: status line, lower-cased headers, parsed Status body. */
function parse(received: string) {
  const [head = '', body = ''] = received.split('\r\n\r\n');
  const [statusLine = '', ...headerLines] = head.split('\r\n');
  const headers = Object.fromEntries(
    headerLines.map((line) => {
      const at = line.indexOf(':');
      return [line.slice(0, at).toLowerCase(), line.slice(at + 1).trim()];
    }),
  );
  return { statusLine, headers, status: JSON.parse(body) as Record<string, unknown> };
}

describe.each<HttpAdapterKind>(['express', 'koa'])('the HTTP edge (%s)', (http) => {
  it('refuses a declared Content-Length over 1 MiB at once, before any of the body, and closes', async () => {
    const { port } = await start(http);
    const connection = await rawConnection(port);
    const sent = Date.now();
    connection.socket.write(
      'POST /public/v1/query/whoami HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n' +
        'content-length: 104857600\r\n\r\n{"organizationId":',
    );
    await expect.poll(() => connection.closed, { timeout: 2_000 }).toBe(true);
    expect(connection.closedAt - sent).toBeLessThan(1_000);
    const { statusLine, headers, status } = parse(connection.received);
    expect(statusLine).toMatch(/^HTTP\/1\.1 413 /);
    expect(headers.connection).toBe('close');
    expect(headers['content-type']).toBe('application/json');
    expect(status).toMatchObject({ code: 8, message: 'request body too large' });
  });

  it('answers a stalled body 408 with a Status body within the request timeout', async () => {
    const { port } = await start(http, { headersTimeoutMs: 200, requestTimeoutMs: 300 });
    const connection = await rawConnection(port);
    const sent = Date.now();
    connection.socket.write(
      'POST /public/v1/query/whoami HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n' +
        'content-length: 100\r\n\r\n{"organizationId":', // …and nothing more
    );
    await expect.poll(() => connection.closed, { timeout: 3_000 }).toBe(true);
    // The timeout plus one check interval (the smaller timeout), with room for a slow machine.
    expect(connection.closedAt - sent).toBeLessThan(1_500);
    expect(connection.closedAt - sent).toBeGreaterThanOrEqual(250);
    const { statusLine, headers, status } = parse(connection.received);
    expect(statusLine).toMatch(/^HTTP\/1\.1 408 /);
    expect(headers.connection).toBe('close');
    expect(headers['content-type']).toBe('application/json');
    expect(status).toMatchObject({ code: 4, message: 'request not received in time' });
  });

  it('answers stalled headers 408 with a Status body within the headers timeout', async () => {
    const { port } = await start(http, { headersTimeoutMs: 200, requestTimeoutMs: 5_000 });
    const connection = await rawConnection(port);
    const sent = Date.now();
    connection.socket.write('GET /health HTTP/1.1\r\nhost: x\r\nx-slow: '); // slow-loris
    await expect.poll(() => connection.closed, { timeout: 3_000 }).toBe(true);
    expect(connection.closedAt - sent).toBeLessThan(1_500);
    expect(parse(connection.received).statusLine).toMatch(/^HTTP\/1\.1 408 /);
    expect(parse(connection.received).status).toMatchObject({ code: 4 });
  });

  it('answers headers over the limit 431 with a Status body, default and configured', async () => {
    for (const [options, size] of [
      [{}, 20 * 1024],
      [{ maxHeaderSize: 1024 }, 2 * 1024],
    ] as const) {
      const { port } = await start(http, options);
      const connection = await rawConnection(port);
      connection.socket.write(
        `GET /health HTTP/1.1\r\nhost: x\r\nx-big: ${'a'.repeat(size)}\r\n\r\n`,
      );
      await expect.poll(() => connection.closed, { timeout: 2_000 }).toBe(true);
      const { statusLine, headers, status } = parse(connection.received);
      expect(statusLine).toMatch(/^HTTP\/1\.1 431 /);
      expect(headers['content-type']).toBe('application/json');
      expect(status).toMatchObject({
        code: 8,
        message: 'request headers too large',
        details: [expect.objectContaining({ errorCode: 'REQUEST_HEADERS_TOO_LARGE' })],
      });
    }
  });

  it('answers bytes that are not HTTP 400 with a Status body', async () => {
    const { port } = await start(http);
    const connection = await rawConnection(port);
    connection.socket.write('HELLO there\r\n\r\n');
    await expect.poll(() => connection.closed, { timeout: 2_000 }).toBe(true);
    const { statusLine, status } = parse(connection.received);
    expect(statusLine).toMatch(/^HTTP\/1\.1 400 /);
    expect(status).toMatchObject({ code: 3, message: 'malformed HTTP request' });
  });

  it('draining waits on a stalled upload or stalled headers no longer than their timeouts', async () => {
    const { server, port } = await start(http, { headersTimeoutMs: 200, requestTimeoutMs: 300 });
    running.splice(running.indexOf(server), 1);
    const upload = await rawConnection(port);
    upload.socket.write(
      'POST /public/v1/query/whoami HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n' +
        'content-length: 100\r\n\r\n{"organizationId":',
    );
    const slowHeaders = await rawConnection(port);
    slowHeaders.socket.write('GET /health HTTP/1.1\r\nhost: x\r\nx-slow: ');
    await new Promise((resolve) => setTimeout(resolve, 50)); // both are in flight
    const started = Date.now();
    await server.close();
    expect(Date.now() - started).toBeLessThan(2_000);
    await expect.poll(() => upload.received).toMatch(/^HTTP\/1\.1 408 /);
    await expect.poll(() => slowHeaders.received).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('closes an idle keep-alive connection after the keep-alive timeout', async () => {
    const { port } = await start(http, { keepAliveTimeoutMs: 200 });
    const connection = await rawConnection(port);
    connection.socket.write('GET /health HTTP/1.1\r\nhost: x\r\n\r\n');
    await expect.poll(() => connection.received).toMatch(/^HTTP\/1\.1 200 /);
    const answered = Date.now();
    await expect.poll(() => connection.closed, { timeout: 3_000 }).toBe(true);
    // Node's socket timer is the keep-alive timeout plus a 1 s margin (for clients that reuse a
    // socket just as it expires).
    expect(connection.closedAt - answered).toBeLessThan(2_000);
  });

  it('closes connections past maxConnections as they arrive, and logs it once', async () => {
    const { port, lines } = await start(http, { maxConnections: 2 });
    const first = await rawConnection(port);
    const second = await rawConnection(port);
    const third = await rawConnection(port);
    const fourth = await rawConnection(port);
    await expect.poll(() => third.closed && fourth.closed, { timeout: 2_000 }).toBe(true);
    expect(third.received + fourth.received).toBe('');
    expect(first.closed || second.closed).toBe(false);
    first.socket.write('GET /health HTTP/1.1\r\nhost: x\r\n\r\n');
    await expect.poll(() => first.received).toMatch(/^HTTP\/1\.1 200 /);
    expect(lines.filter((line) => line.message.startsWith('connection limit reached'))).toEqual([
      {
        level: 'warn',
        message: 'connection limit reached: new connections are closed',
        fields: { maxConnections: 2, closedSinceLastLine: 1 },
      },
    ]);
    first.socket.destroy();
    second.socket.destroy();
  });

  it('a client that resets its connection mid-request is not an error in the log', async () => {
    const { port, lines } = await start(http);
    const connection = await rawConnection(port);
    connection.socket.write(
      'POST /public/v1/query/whoami HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n' +
        'content-length: 100\r\n\r\n{"organizationId":',
    );
    await new Promise((resolve) => setTimeout(resolve, 100)); // the request is in flight
    connection.socket.resetAndDestroy();
    await new Promise((resolve) => setTimeout(resolve, 200));
    // The server carries on, and nothing was logged at error level.
    const next = await rawConnection(port);
    next.socket.write('GET /health HTTP/1.1\r\nhost: x\r\n\r\n');
    await expect.poll(() => next.received).toMatch(/^HTTP\/1\.1 200 /);
    next.socket.destroy();
    expect(lines.filter((line) => line.level === 'error')).toEqual([]);
  });
});

describe('the HTTP limits are checked at start', () => {
  it.each([
    [{ headersTimeoutMs: 0 }, 'headersTimeoutMs must be a positive integer, got 0'],
    [{ requestTimeoutMs: 1.5 }, 'requestTimeoutMs must be a positive integer, got 1.5'],
    [{ maxConnections: -1 }, 'maxConnections must be a positive integer, got -1'],
    [
      { headersTimeoutMs: 20_000, requestTimeoutMs: 10_000 },
      'headersTimeoutMs (20000) must not exceed requestTimeoutMs (10000): the headers are part of the request',
    ],
  ])('%o is refused', async (options, message) => {
    await expect(startServer({ port: 0, ...options })).rejects.toThrow(new TypeError(message));
  });
});

import { execFileSync } from 'node:child_process';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signWebhookDelivery, verifyWebhookSignature, webhookSigningKey } from '@keyhold/webhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpWebhookTransport, PRIVATE_ADDRESS_ERROR } from './http-webhook-transport.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

function listen(handler: (req: IncomingMessage, res: ServerResponse, body: string) => void) {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      handler(req, res, body);
    });
  });
  return new Promise<{ server: Server; seen: Seen[]; base: string }>((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({ server, seen, base: `http://127.0.0.1:${port}` });
    });
  });
}

const close = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

const key = webhookSigningKey(new Uint8Array(32).fill(4));
const body = '{"type":"activity.completed","data":{"x":"é"}}';
const headers = signWebhookDelivery({
  ...key,
  brand: 'Acme',
  timestampMs: 1_700_000_000_000,
  eventId: 'evt_1',
  organizationId: 'org_1',
  eventType: 'ACTIVITY_UPDATES',
  body,
});

describe('HttpWebhookTransport against a real server on 127.0.0.1', () => {
  let main: Awaited<ReturnType<typeof listen>>;
  let target: Awaited<ReturnType<typeof listen>>;
  const transport = new HttpWebhookTransport({ allowPrivateAddresses: true, timeoutMs: 2_000 });

  beforeAll(async () => {
    target = await listen((_req, res) => res.writeHead(200).end('redirect target'));
    main = await listen((req, res) => {
      const path = req.url!;
      if (path === '/ok')
        res.writeHead(200, { 'content-type': 'text/plain' }).end('x'.repeat(100_000));
      else if (path === '/redirect')
        res.writeHead(301, { location: `${target.base}/landed` }).end();
      else if (path === '/redirect307')
        res.writeHead(307, { location: `${target.base}/landed` }).end();
      else if (path === '/missing') res.writeHead(404).end('nope');
      else if (path === '/slow-down') res.writeHead(429, { 'retry-after': '7' }).end();
      else if (path === '/unavailable')
        res.writeHead(503, { 'retry-after': new Date(Date.now() + 60_000).toUTCString() }).end();
      else if (path === '/boom') res.writeHead(500).end('secret stack trace');
      else if (path === '/hang') {
        /* never answers */
      } else res.writeHead(204).end();
    });
  });

  afterAll(async () => {
    await close(main.server);
    await close(target.server);
  });

  it('POSTs the exact body and every header; 200 is returned as is', async () => {
    expect(await transport.send({ url: `${main.base}/ok`, headers, body })).toEqual({
      status: 200,
    });
    const req = main.seen.find((s) => s.url === '/ok')!;
    expect(req.method).toBe('POST');
    expect(req.body).toBe(body);
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers['x-acme-event-id']).toBe('evt_1');
    const verified = verifyWebhookSignature({
      headers: req.headers,
      body: req.body,
      brand: 'Acme',
      verificationKeys: [
        { keyId: key.keyId, publicKey: Buffer.from(key.publicKey).toString('hex') },
      ],
      nowMs: 1_700_000_000_000,
    });
    expect(verified.ok).toBe(true);
  });

  it('returns a 3xx as its status and never follows it', async () => {
    expect(await transport.send({ url: `${main.base}/redirect`, headers, body })).toEqual({
      status: 301,
    });
    expect(await transport.send({ url: `${main.base}/redirect307`, headers, body })).toEqual({
      status: 307,
    });
    await new Promise((r) => setTimeout(r, 50));
    expect(target.seen).toHaveLength(0);
  });

  it('returns 404, 429 with Retry-After, 503 with an HTTP-date Retry-After and 500', async () => {
    expect(await transport.send({ url: `${main.base}/missing`, headers, body })).toEqual({
      status: 404,
    });
    expect(await transport.send({ url: `${main.base}/slow-down`, headers, body })).toEqual({
      status: 429,
      retryAfterMs: 7_000,
    });
    const unavailable = await transport.send({ url: `${main.base}/unavailable`, headers, body });
    expect(unavailable).toMatchObject({ status: 503 });
    expect((unavailable as { retryAfterMs: number }).retryAfterMs).toBeGreaterThan(55_000);
    expect(await transport.send({ url: `${main.base}/boom`, headers, body })).toEqual({
      status: 500,
    });
  });

  it('times out a hanging server', async () => {
    const quick = new HttpWebhookTransport({ allowPrivateAddresses: true, timeoutMs: 200 });
    const started = Date.now();
    expect(await quick.send({ url: `${main.base}/hang`, headers, body })).toEqual({
      error: 'timeout after 200 ms',
    });
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('reports connection refused without the URL', async () => {
    const gone = await listen(() => {});
    await close(gone.server);
    const response = await transport.send({ url: `${gone.base}/hook?token=s3cret`, headers, body });
    expect(response).toEqual({ error: 'network error: ECONNREFUSED' });
  });

  it('refuses private addresses unless allowed: an IP literal for good, a name for now', async () => {
    const prod = new HttpWebhookTransport({ allowHttp: true });
    const before = main.seen.length;
    // An IP literal cannot change: permanent (the dispatcher disables the endpoint).
    expect(await prod.send({ url: `${main.base}/ok`, headers, body })).toEqual({
      error: PRIVATE_ADDRESS_ERROR,
      permanent: true,
    });
    expect(await prod.send({ url: 'http://[::1]:1/', headers, body })).toEqual({
      error: PRIVATE_ADDRESS_ERROR,
      permanent: true,
    });
    // A name that resolves to loopback (through the system resolver) may resolve elsewhere
    // tomorrow: refused, retryable.
    const port = new URL(main.base).port;
    expect(await prod.send({ url: `http://localhost:${port}/ok`, headers, body })).toEqual({
      error: PRIVATE_ADDRESS_ERROR,
    });
    expect(main.seen.length).toBe(before);
  });

  it('refuses the unspecified address even when private destinations are allowed', async () => {
    const before = main.seen.length;
    const port = new URL(main.base).port;
    // 0.0.0.0 and [::] connect to this host on Linux: never a destination.
    for (const host of ['0.0.0.0', '[::]']) {
      expect(await transport.send({ url: `http://${host}:${port}/ok`, headers, body })).toEqual({
        error: PRIVATE_ADDRESS_ERROR,
        permanent: true,
      });
    }
    const zero = new HttpWebhookTransport({
      allowPrivateAddresses: true,
      lookup: async () => [{ address: '0.0.0.0' }],
    });
    expect(await zero.send({ url: `http://zero.invalid:${port}/ok`, headers, body })).toEqual({
      error: PRIVATE_ADDRESS_ERROR,
    });
    expect(main.seen.length).toBe(before);
  });
});

describe('HttpWebhookTransport URL and DNS checks', () => {
  const request = (url: string) => ({ url, headers, body });

  it('refuses http in production, other schemes, credentials and bad URLs', async () => {
    const prod = new HttpWebhookTransport();
    // The URL alone decides these: permanent, no retry can cure them.
    expect(await prod.send(request('http://hooks.example.com/'))).toEqual({
      error: 'endpoint URL must use https',
      permanent: true,
    });
    expect(await prod.send(request('file:///etc/passwd'))).toEqual({
      error: 'endpoint URL must use https',
      permanent: true,
    });
    expect(await prod.send(request('https://u:p@hooks.example.com/'))).toEqual({
      error: 'endpoint URL must not contain credentials',
      permanent: true,
    });
    expect(await prod.send(request('::'))).toEqual({
      error: 'invalid endpoint URL',
      permanent: true,
    });
    expect(await prod.send(request('https://127.1/'))).toEqual({
      error: PRIVATE_ADDRESS_ERROR,
      permanent: true,
    });
  });

  it('refuses a host if any of its addresses is not public', async () => {
    const lookups: string[] = [];
    const prod = new HttpWebhookTransport({
      lookup: async (host) => {
        lookups.push(host);
        return [{ address: '93.184.216.34' }, { address: '::ffff:10.0.0.1' }];
      },
    });
    expect(await prod.send(request('https://rebind.example.com/hook'))).toEqual({
      error: PRIVATE_ADDRESS_ERROR,
    });
    expect(lookups).toEqual(['rebind.example.com']);
    const metadata = new HttpWebhookTransport({
      lookup: async () => [{ address: '169.254.169.254' }],
    });
    expect(await metadata.send(request('https://metadata.example.com/'))).toEqual({
      error: PRIVATE_ADDRESS_ERROR,
    });
  });

  it('reports DNS failures and slow DNS as retryable errors', async () => {
    const failing = new HttpWebhookTransport({
      lookup: async () => {
        throw Object.assign(new Error('getaddrinfo ENOTFOUND nope.example.com'), {
          code: 'ENOTFOUND',
        });
      },
    });
    expect(await failing.send(request('https://nope.example.com/'))).toEqual({
      error: 'endpoint host did not resolve',
    });
    const empty = new HttpWebhookTransport({ lookup: async () => [] });
    expect(await empty.send(request('https://empty.example.com/'))).toEqual({
      error: 'endpoint host did not resolve',
    });
    const slow = new HttpWebhookTransport({ timeoutMs: 50, lookup: () => new Promise(() => {}) });
    expect(await slow.send(request('https://slow.example.com/'))).toEqual({
      error: 'timeout after 50 ms',
    });
  });

  it('validates its options', () => {
    expect(() => new HttpWebhookTransport({ timeoutMs: 0 })).toThrow(RangeError);
  });
});

/**
 * Every client socket created while `run` runs (fetch's and node:http's alike), with the
 * addresses its `lookup` handed it. A socket handed a non-loopback address is destroyed before
 * it connects, so these tests never send a packet off the machine.
 */
async function watchSockets<T>(run: () => Promise<T>): Promise<{ result: T; handed: string[] }> {
  const handed: string[] = [];
  const onSocket = (message: unknown) => {
    const { socket } = message as { socket: Socket };
    socket.on('lookup', (error: Error | null, address: string | undefined) => {
      if (error !== null || address === undefined) return;
      handed.push(address);
      if (address !== '127.0.0.1' && address !== '::1') socket.destroy();
    });
  };
  subscribe('net.client.socket', onSocket);
  try {
    return { result: await run(), handed };
  } finally {
    unsubscribe('net.client.socket', onSocket);
  }
}

describe('HttpWebhookTransport connects only to the addresses it checked', () => {
  let receiver: Awaited<ReturnType<typeof listen>>;
  let port: number;

  beforeAll(async () => {
    receiver = await listen((_req, res) => res.writeHead(204).end());
    port = Number(new URL(receiver.base).port);
  });
  afterAll(() => close(receiver.server));

  it('DNS rebinding: public on the first answer, 127.0.0.1 on the second — never reaches 127.0.0.1', async () => {
    // `localhost` also resolves to 127.0.0.1 through the system resolver, so an implementation
    // that checks with the injected lookup and then resolves again to connect (fetch) reaches
    // the receiver; the transport must resolve once and connect to what it checked.
    const answers: string[] = [];
    const rebinding = new HttpWebhookTransport({
      allowHttp: true,
      timeoutMs: 1_000,
      lookup: async () => {
        const address = answers.length === 0 ? '93.184.216.34' : '127.0.0.1';
        answers.push(address);
        return [{ address }];
      },
    });
    const url = `http://localhost:${port}/rebind?token=s3cret`;
    const first = await watchSockets(() => rebinding.send({ url, headers, body }));
    await new Promise((r) => setTimeout(r, 50));
    expect(receiver.seen).toHaveLength(0); // nothing reached 127.0.0.1
    expect(answers).toEqual(['93.184.216.34']); // one resolution per attempt
    expect(first.handed).toEqual(['93.184.216.34']); // the socket got exactly the checked address
    expect(first.result).toEqual({ error: expect.stringMatching(/^(network error|timeout)/) });
    expect(JSON.stringify(first.result)).not.toContain('s3cret');
    // The next attempt resolves afresh; the private answer is refused before any connect.
    const second = await watchSockets(() => rebinding.send({ url, headers, body }));
    expect(second.result).toEqual({ error: PRIVATE_ADDRESS_ERROR });
    expect(answers).toEqual(['93.184.216.34', '127.0.0.1']);
    expect(second.handed).toEqual([]);
    await new Promise((r) => setTimeout(r, 50));
    expect(receiver.seen).toHaveLength(0);
  });

  it('refuses a name resolving to a mix of public and private addresses, before connecting', async () => {
    for (const mix of [
      ['93.184.216.34', '127.0.0.1'],
      ['127.0.0.1', '93.184.216.34'],
      ['2606:4700:4700::1111', '::1'],
      ['93.184.216.34', '::ffff:127.0.0.1'],
    ]) {
      const mixed = new HttpWebhookTransport({
        allowHttp: true,
        lookup: async () => mix.map((address) => ({ address })),
      });
      const { result, handed } = await watchSockets(() =>
        mixed.send({ url: `http://localhost:${port}/mixed`, headers, body }),
      );
      expect(result).toEqual({ error: PRIVATE_ADDRESS_ERROR });
      expect(handed).toEqual([]);
    }
    expect(receiver.seen).toHaveLength(0);
  });

  it('connects through the injected lookup (a name the system resolver does not know)', async () => {
    const names: string[] = [];
    const dev = new HttpWebhookTransport({
      allowPrivateAddresses: true,
      lookup: async (host) => {
        names.push(host);
        return [{ address: '127.0.0.1' }];
      },
    });
    const { result, handed } = await watchSockets(() =>
      dev.send({ url: `http://hook.invalid:${port}/dev`, headers, body }),
    );
    expect(result).toEqual({ status: 204 });
    expect(names).toEqual(['hook.invalid']);
    expect(handed).toEqual(['127.0.0.1']);
    expect(receiver.seen.map((s) => s.url)).toEqual(['/dev']);
    expect(receiver.seen[0]!.headers.host).toBe(`hook.invalid:${port}`);
  });

  it('reports a lookup answer that is not an IP address as unresolved', async () => {
    const odd = new HttpWebhookTransport({
      allowPrivateAddresses: true,
      lookup: async () => [{ address: 'not-an-ip' }],
    });
    expect(await odd.send({ url: `http://hook.invalid:${port}/`, headers, body })).toEqual({
      error: 'endpoint host did not resolve',
    });
    const throwing = new HttpWebhookTransport({
      allowPrivateAddresses: true,
      lookup: () => {
        throw new Error('sync failure');
      },
    });
    expect(await throwing.send({ url: `http://hook.invalid:${port}/`, headers, body })).toEqual({
      error: 'endpoint host did not resolve',
    });
  });
});

function haveOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe.skipIf(!haveOpenssl())('HttpWebhookTransport over https (self-signed hook.test)', () => {
  const servernames: (string | undefined)[] = [];
  const requests: string[] = [];
  let server: ReturnType<typeof createHttpsServer>;
  let port: number;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'keyhold-webhook-tls-'));
    execFileSync(
      'openssl',
      [
        ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1'],
        ...['-nodes', '-days', '1', '-subj', '/CN=hook.test'],
        ...['-addext', 'subjectAltName=DNS:hook.test'],
        ...['-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')],
      ],
      { stdio: 'ignore' },
    );
    server = createHttpsServer(
      { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) },
      (req, res) => {
        requests.push(req.url!);
        res.writeHead(204).end();
      },
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends SNI = the hostname (not the checked IP) and verifies the certificate', async () => {
    // The client refuses the certificate, so the server sees a TLS client error on a socket
    // that carries the SNI of the ClientHello.
    const seenSni = new Promise<void>((resolve) => {
      server.once('tlsClientError', (_error, socket) => {
        servernames.push((socket as unknown as { servername?: string }).servername);
        resolve();
      });
    });
    const dev = new HttpWebhookTransport({
      allowPrivateAddresses: true,
      lookup: async () => [{ address: '127.0.0.1' }],
    });
    // Not in the trust store: the self-signed certificate is refused (verification is on).
    expect(await dev.send({ url: `https://hook.test:${port}/tls`, headers, body })).toEqual({
      error: 'network error: DEPTH_ZERO_SELF_SIGNED_CERT',
    });
    await seenSni;
    expect(servernames).toEqual(['hook.test']);
    expect(requests).toEqual([]);
  });

  it('refuses a private answer for an https host before any TLS handshake', async () => {
    const prod = new HttpWebhookTransport({ lookup: async () => [{ address: '127.0.0.1' }] });
    const { result, handed } = await watchSockets(() =>
      prod.send({ url: `https://hook.test:${port}/tls`, headers, body }),
    );
    expect(result).toEqual({ error: PRIVATE_ADDRESS_ERROR });
    expect(handed).toEqual([]);
    expect(requests).toEqual([]);
  });
});

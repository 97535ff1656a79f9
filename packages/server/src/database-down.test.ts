/**
 * A database that goes away under a running server: a TCP proxy (127.0.0.1 only) sits
 * between the store's pool and Postgres, and the test cuts it — refusing connections,
 * swallowing them without an answer, or dropping the connection at the COMMIT of an activity.
 * Stamped requests then answer 503 UNAVAILABLE with a Status body and Retry-After within a
 * bounded time (never a hang, never a 500), `/ready` answers 503, nothing is half-written, and
 * when the proxy is back the same server recovers without a restart. Without a reachable
 * Postgres the file is skipped with a loud warning (a failure in CI).
 */
import { createServer, connect as netConnect, type Server, type Socket } from 'node:net';
import { type RunningServer, startServer } from '@keyhold/cli';
import { ConformanceClient, fingerprintOf, httpTarget, SUBMIT_PREFIX } from '@keyhold/conformance';
import { createPostgresStore } from '@keyhold/store-postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The Postgres helpers of the store-postgres tests (no package export: test-only code).
import {
  dropSchemas,
  POSTGRES_URL,
  postgresReachable,
  testSchema,
} from '../../../adapters/store-postgres/src/testing/targets.js';
import { generateApiKeyPair } from './api-key-signer.js';
import { silentLogger } from './logger.js';

const withPostgres = await postgresReachable();

/** How long the pool waits for a connection; the bound on a request's wait when it is down. */
const CONNECT_TIMEOUT_MS = 500;
/** What "promptly" means for a request that meets a dead database. */
const PROMPT_MS = 3000;

/**
 * A TCP proxy on 127.0.0.1 in front of one upstream. `cut()` closes the listener and destroys
 * every connection (new connections are refused); `restore('silent')` listens again but
 * never forwards (a black hole); `restore()` forwards again. `cutAt(matches)` cuts the moment
 * a client sends a chunk that `matches` — the chunk is never forwarded.
 */
class TcpProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private mode: 'forward' | 'silent' = 'forward';
  private trigger: ((chunk: string, seen: string[]) => boolean) | undefined;
  port = 0;

  constructor(
    private readonly upstreamHost: string,
    private readonly upstreamPort: number,
  ) {}

  async listen(mode: 'forward' | 'silent' = 'forward'): Promise<void> {
    this.mode = mode;
    const server = createServer((client) => this.accept(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as { port: number }).port;
    this.server = server;
  }

  restore(mode: 'forward' | 'silent' = 'forward'): Promise<void> {
    return this.listen(mode);
  }

  /** Cuts when a client sends a chunk for which `matches(chunk, earlierChunksOfThatClient)`. */
  cutAt(matches: (chunk: string, seen: string[]) => boolean): void {
    this.trigger = matches;
  }

  async cut(): Promise<void> {
    this.trigger = undefined;
    const server = this.server;
    this.server = undefined;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private track(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => {});
  }

  private accept(client: Socket): void {
    this.track(client);
    if (this.mode === 'silent') return; // accept, then say nothing
    const upstream = netConnect(this.upstreamPort, this.upstreamHost);
    this.track(upstream);
    const seen: string[] = [];
    client.on('data', (chunk: Buffer) => {
      const text = chunk.toString('latin1');
      if (this.trigger?.(text, seen)) {
        void this.cut();
        return;
      }
      seen.push(text);
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  }
}

describe.skipIf(!withPostgres)('the database goes down under a running server', () => {
  const schema = testSchema('db_down');
  const key = generateApiKeyPair();
  const upstream = new URL(POSTGRES_URL);
  const proxy = new TcpProxy(upstream.hostname, Number(upstream.port || 5432));
  let server: RunningServer;
  let client: ConformanceClient;

  beforeAll(async () => {
    await proxy.listen();
    const viaProxy = new URL(POSTGRES_URL);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    server = await startServer({
      port: 0,
      store: await createPostgresStore({
        connectionString: viaProxy.toString(),
        schema,
        poolOptions: { connectionTimeoutMillis: CONNECT_TIMEOUT_MS },
      }),
      logger: silentLogger,
      bootstrapApiPublicKey: key.publicKey,
    });
    client = new ConformanceClient(
      httpTarget({
        baseUrl: server.url,
        organizationId: server.organizationId!,
        apiPrivateKey: key.privateKey,
      }),
    );
  });

  afterAll(async () => {
    await proxy.cut();
    await proxy.restore(); // so the store's close does not wait on a dead database
    await server?.close();
    await proxy.cut();
    await dropSchemas([schema]);
  });

  const get = async (path: string) => {
    const response = await fetch(`${server.url}${path}`);
    return { status: response.status, body: await response.json() };
  };

  /** A create_wallet body (stamped), not yet sent. */
  const walletBody = async (walletName: string) => {
    const body = JSON.stringify(
      client.envelope('ACTIVITY_TYPE_CREATE_WALLET', { walletName, accounts: [] }),
    );
    return { body, stamp: await client.stamp(body) };
  };
  const postWallet = ({ body, stamp }: { body: string; stamp: string }) =>
    client.post(`${SUBMIT_PREFIX}create_wallet`, body, { 'X-Stamp': stamp });

  /** Sends a request to a dead database: it must answer 503 UNAVAILABLE, promptly. */
  async function expectUnavailable(
    send: () => Promise<{ status: number; headers: Record<string, string>; body: string }>,
  ) {
    const started = performance.now();
    const response = await send();
    const elapsed = performance.now() - started;
    expect(response.status, response.body).toBe(503);
    expect(response.headers['retry-after']).toBe('1');
    const status = JSON.parse(response.body);
    expect(status).toMatchObject({ code: 14, message: 'service unavailable' });
    expect(Array.isArray(status.details)).toBe(true);
    expect(elapsed).toBeLessThan(PROMPT_MS);
  }

  async function expectNotReady() {
    const started = performance.now();
    const ready = await get('/ready');
    expect(performance.now() - started).toBeLessThan(PROMPT_MS);
    expect(ready).toEqual({
      status: 503,
      body: { status: 'unavailable', errorCode: 'STORE_UNAVAILABLE', retryable: true },
    });
  }

  /** Waits (bounded) until /ready answers 200: the pool has dropped its dead connections. */
  async function waitUntilReady() {
    const deadline = Date.now() + 5000;
    for (;;) {
      if ((await get('/ready')).status === 200) return;
      if (Date.now() > deadline) throw new Error('the server did not become ready again');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** What the store holds about a body: activities with its fingerprint, wallets by name. */
  async function stored(body: string, walletName: string) {
    const { activities } = await client.query('list_activities', {
      paginationOptions: { limit: '100' },
    });
    const { wallets } = await client.query('list_wallets');
    return {
      activities: activities.filter(
        (a: { fingerprint: string }) => a.fingerprint === fingerprintOf(body),
      ),
      wallets: wallets.filter((w: { walletName: string }) => w.walletName === walletName),
    };
  }

  const refused = { name: `refused ${Date.now()}`, request: { body: '', stamp: '' } };

  it('serves through the proxy', async () => {
    expect(await get('/ready')).toEqual({ status: 200, body: { status: 'ready' } });
    expect((await client.query('whoami')).organizationId).toBe(server.organizationId);
  });

  it('connections refused: submissions and queries answer 503 at once; /ready says so; /health does not', async () => {
    await proxy.cut();
    refused.request = await walletBody(refused.name);
    await expectUnavailable(() => postWallet(refused.request));
    await expectUnavailable(() =>
      client.postStamped(
        '/public/v1/query/whoami',
        JSON.stringify({ organizationId: server.organizationId }),
      ),
    );
    await expectNotReady();
    expect((await get('/health')).status).toBe(200);
  });

  it("connections swallowed without an answer: 503 once the pool's connect timeout passes", async () => {
    await proxy.restore('silent');
    try {
      const started = performance.now();
      await expectUnavailable(() => postWallet(refused.request));
      expect(performance.now() - started).toBeGreaterThanOrEqual(CONNECT_TIMEOUT_MS - 50);
      await expectNotReady();
    } finally {
      await proxy.cut();
    }
  });

  it('back up: the same server recovers; the refused activity was never written; resubmitted, it completes once', async () => {
    await proxy.restore();
    await waitUntilReady();
    expect(await stored(refused.request.body, refused.name)).toEqual({
      activities: [],
      wallets: [],
    });
    // The very same bytes and stamp (still within the timestamp window).
    const response = await postWallet(refused.request);
    expect(response.status, response.body).toBe(200);
    const { activity } = JSON.parse(response.body);
    expect(activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    const after = await stored(refused.request.body, refused.name);
    expect(after.activities.map((a: { id: string }) => a.id)).toEqual([activity.id]);
    expect(after.wallets).toHaveLength(1);
  });

  it('the connection drops at the COMMIT of an activity: 503, nothing written, and a retry completes once', async () => {
    const walletName = `lost commit ${Date.now()}`;
    const request = await walletBody(walletName);
    // The activity row is the transaction's last write; the cut swallows the COMMIT after it,
    // so Postgres sees the connection close mid-transaction and rolls it back.
    proxy.cutAt((chunk, seen) => {
      if (!/\bCOMMIT\b/.test(chunk)) return false;
      // Only the current transaction's statements: those since its BEGIN.
      let begin = seen.length - 1;
      while (begin > 0 && !seen[begin]!.includes('BEGIN')) begin--;
      // The store sends the insert as a named prepared statement: its text once per connection
      // (the Parse, `name\0text`), then only its name (each Bind). The insert is the first
      // part of the statement that also writes the activity's evaluation and audit entry.
      const parse = [...seen, chunk]
        .map(
          (c) =>
            /(kh_[0-9a-f]{24})\W\s*(?:WITH activity AS \()?INSERT INTO activities/.exec(c)?.[1],
        )
        .find((name) => name !== undefined);
      return seen
        .slice(begin)
        .some(
          (earlier) =>
            earlier.includes('INSERT INTO activities') ||
            (parse !== undefined && earlier.includes(parse)),
        );
    });
    await expectUnavailable(() => postWallet(request));
    await expectNotReady();

    await proxy.restore();
    await waitUntilReady();
    expect(await stored(request.body, walletName)).toEqual({ activities: [], wallets: [] });
    const response = await postWallet(request);
    expect(response.status, response.body).toBe(200);
    const { activity } = JSON.parse(response.body);
    expect(activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    const after = await stored(request.body, walletName);
    expect(after.activities.map((a: { id: string }) => a.id)).toEqual([activity.id]);
    expect(after.wallets).toHaveLength(1);
    expect((await client.query('whoami')).organizationId).toBe(server.organizationId);
  });
});

import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { cpus, loadavg, totalmem } from 'node:os';
import { createOpenSslSignatureVerifier } from '@keyhold/crypto-node';
import { createApiKeyStamper, generateApiKeyPair } from '@keyhold/server';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import {
  BENCH_SERVER,
  type ChildStore,
  POSTGRES_URL,
  percentile,
  prepareChildStore,
  startChildServer,
  stopChild,
} from './bench-server.js';
import {
  type BenchResponse,
  KeepAliveConnection,
  postRequestBytes,
} from './keep-alive-connection.js';

const env = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number`);
  return value;
};
const CONCURRENCY = Math.floor(env('BENCH_CONCURRENCY', 16));
const E2E_SECONDS = env('BENCH_SECONDS', 12);
/**
 * Timed requests per store, all pre-stamped: by default enough for E2E_SECONDS at 4,000 req/s.
 * (A fixed 10,000 ran out after the first two of six windows on a machine serving 2,200 req/s, so
 * the last windows were empty while the bare loop still ran in every round.)
 */
const REQUESTS = Math.floor(env('BENCH_REQUESTS', Math.ceil(E2E_SECONDS * 4_000)));
const BARE_SECONDS = env('BENCH_BARE_SECONDS', 4);
/** The timed windows come in rounds of about this many seconds per store. */
const ROUND_SECONDS = env('BENCH_ROUND_SECONDS', 2);
/**
 * Requests sent, not measured, at the start of each window: a server idle while the others ran
 * comes back with V8's young generation shrunk and its caches cold — measured, 12 % more CPU per
 * request over 2 s windows with three servers taking turns than with one.
 */
const LEAD_SECONDS = env('BENCH_LEAD_SECONDS', 0.5);
// The windows: ROUNDS rounds, each a bare window and then one window per store. Interleaved so
// the machine's drift (its speed moves by tens of percent within minutes here) falls on every
// figure alike instead of on whichever ran during a slow minute.
const ROUNDS = Math.max(1, Math.round(E2E_SECONDS / ROUND_SECONDS));
/** Bodies pre-stamped for the windows' lead-ins: enough at 4,000 req/s. */
const LEAD_BODIES = Math.ceil(ROUNDS * LEAD_SECONDS * 4_000);
// Warm-up by time, not by count: the server's code runs on three isolates (the event loop and
// two signing threads), and on two contended cores V8 is still compiling it (about 800
// functions, seconds of compile threads) for the first 15–20 s under load. A window that opens
// after 300 requests measures the JIT as much as the server.
const WARMUP_SECONDS = env('BENCH_WARMUP_SECONDS', 15);
/**
 * …and at least this many requests, whatever the time: V8 tiers up by calls, not by seconds.
 * Measured (bench/README.md): the memory server's CPU per request falls until about 12,000
 * requests (3.2 ms over the first 4,000, 2.0–2.2 ms from 12,000 on), and a 15 s warm-up on a slow
 * minute is 8,000 requests, so the windows went on falling (3.07 → 2.13 ms over the six).
 */
const WARMUP_REQUESTS = Math.floor(env('BENCH_WARMUP_REQUESTS', 12_000));
/** The warm-up stops here even short of WARMUP_REQUESTS. */
const WARMUP_MAX_SECONDS = 90;
/** Bodies pre-stamped for the warm-up: WARMUP_REQUESTS, or enough for WARMUP_SECONDS at 3,000
 * req/s if that is more. */
const WARMUP_BODIES = Math.max(WARMUP_REQUESTS, Math.ceil(WARMUP_SECONDS * 3_000));
/**
 * Requests sent to each server in turn, not measured, after every warm-up and before the first
 * round. A server warmed up first then waits for the others' warm-ups (40–90 s), and a Node
 * process idle for 8 s has V8's memory reducer shrink its heap: measured, the first 1,500
 * requests after a 40 s pause cost 3.3 ms of server CPU each against 2.4 before it, and the
 * first window of every store was its slowest (memory 3.07, 3.75, 3.94 ms in three runs, against
 * 2.13–2.59 in its last). Settled, every server starts the rounds the way it starts each
 * later window: idle only for the other windows of one round (about 6 s).
 */
const SETTLE_SECONDS = env('BENCH_SETTLE_SECONDS', 5);
/** Bodies pre-stamped for the settling: enough for SETTLE_SECONDS at 3,000 req/s. */
const SETTLE_BODIES = Math.ceil(SETTLE_SECONDS * 3_000);
const STORE_NAMES = ['memory', 'pglite', 'postgres'] as const;
type StoreName = (typeof STORE_NAMES)[number];
const STORES = (process.env.BENCH_STORES ?? STORE_NAMES.join(','))
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean) as StoreName[];
for (const store of STORES) {
  if (!STORE_NAMES.includes(store)) {
    throw new Error(`BENCH_STORES: unknown store "${store}" (use ${STORE_NAMES.join(', ')})`);
  }
}

const nowNs = () => process.hrtime.bigint();
const msSince = (start: bigint) => Number(nowNs() - start) / 1e6;
const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

// ---------------------------------------------------------------------------------------
// (a) Bare cost

interface BareResult {
  ops: number;
  seconds: number;
  opsPerSecond: number;
  verifyOnlyPerSecond: number;
  signOnlyPerSecond: number;
  /** Ops per second in each window, in order. */
  windows: number[];
}

/** A request body of the size the e2e phase sends, stamped as a client would. */
function sampleStampedBody() {
  const key = generateApiKeyPair();
  const body = JSON.stringify({
    type: 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2',
    timestampMs: String(Date.now()),
    organizationId: '00000000-0000-4000-8000-000000000000',
    parameters: {
      signWith: `0x${randomBytes(20).toString('hex')}`,
      payload: `0x${randomBytes(32).toString('hex')}`,
      encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
      hashFunction: 'HASH_FUNCTION_NO_OP',
    },
  });
  const stamp = JSON.parse(
    Buffer.from(createApiKeyStamper(key.privateKey).stamp(body), 'base64url').toString(),
  ) as {
    publicKey: string;
    signature: string;
  };
  return {
    publicKey: Buffer.from(stamp.publicKey, 'hex'),
    message: Buffer.from(body),
    signature: Buffer.from(stamp.signature, 'hex'),
  };
}

async function timedLoop(seconds: number, maxOps: number, op: (i: number) => Promise<void> | void) {
  const deadline = seconds * 1000;
  const start = nowNs();
  let ops = 0;
  // Check the clock every 64 ops; stop at the deadline or at maxOps, whichever comes first.
  while (ops < maxOps) {
    await op(ops);
    ops++;
    if ((ops & 63) === 0 && msSince(start) >= deadline) break;
  }
  const elapsed = msSince(start) / 1000;
  return { ops, seconds: elapsed, perSecond: ops / elapsed };
}

/**
 * The bare loop, run in windows between the end-to-end ones (see the rounds below): its ops and
 * seconds add up over the windows.
 */
class BareLoop {
  ops = 0;
  seconds = 0;
  verifyOnlyPerSecond = Number.NaN;
  signOnlyPerSecond = Number.NaN;
  /** Ops per second in each window, in order. */
  readonly windows: number[] = [];
  private readonly verifier = createOpenSslSignatureVerifier();
  private readonly stamp = sampleStampedBody();
  private readonly signingKey = secp256k1.utils.randomSecretKey();
  private readonly digests = Array.from({ length: 256 }, () => new Uint8Array(randomBytes(32)));

  private readonly verifyOnce = async () => {
    const { publicKey, message, signature } = this.stamp;
    if (!(await this.verifier.verify('p256', publicKey, message, signature))) {
      throw new Error('bare: the stamp did not verify');
    }
  };
  private readonly signOnce = (i: number) => {
    const sig = secp256k1.sign(this.digests[i & 255]!, this.signingKey, {
      prehash: false,
      format: 'recovered',
    });
    if (sig.length !== 65) throw new Error('bare: unexpected signature length');
  };
  private readonly both = async (i: number) => {
    await this.verifyOnce();
    this.signOnce(i);
  };

  /** Warms both paths up (JIT, noble's precomputed tables, the verifier's key cache) for 1 s,
   * then times each half alone for 1 s. */
  async warmUp(): Promise<void> {
    await timedLoop(1, 1_000_000, this.both);
    this.verifyOnlyPerSecond = (await timedLoop(1, 1_000_000, this.verifyOnce)).perSecond;
    this.signOnlyPerSecond = (await timedLoop(1, 1_000_000, this.signOnce)).perSecond;
  }

  /** One timed window of verify-then-sign ops, added to the totals. */
  async window(seconds: number): Promise<void> {
    const run = await timedLoop(seconds, 1_000_000, this.both);
    this.ops += run.ops;
    this.seconds += run.seconds;
    this.windows.push(run.perSecond);
  }

  result(): BareResult {
    return {
      ops: this.ops,
      seconds: this.seconds,
      opsPerSecond: this.ops / this.seconds,
      verifyOnlyPerSecond: this.verifyOnlyPerSecond,
      signOnlyPerSecond: this.signOnlyPerSecond,
      windows: this.windows,
    };
  }
}

// ---------------------------------------------------------------------------------------
// (b) End to end

/** A body and its X-Stamp (the timed requests are then built into bytes, `prepared`). */
interface StampedBody {
  body: Buffer;
  stamp: string;
}

/** The timed request: a signature over a fresh 32-byte payload. */
const SIGN_PATH = '/public/v1/submit/sign_raw_payload';

/** A store for bench/server.ts, and which one it is. */
interface StoreSpec extends ChildStore {
  name: StoreName;
}

function post(
  agent: Agent,
  url: URL,
  path: string,
  body: Buffer,
  stamp: string,
): Promise<BenchResponse> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        method: 'POST',
        path,
        headers: {
          'content-type': 'application/json',
          'content-length': body.length,
          'x-stamp': stamp,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

interface E2eResult {
  store: StoreName;
  startSeconds: number;
  concurrency: number;
  sent: number;
  completed: number;
  failures: number;
  failureSamples: string[];
  seconds: number;
  requestsPerSecond: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
  verifiedSamples: number;
  /** CPU time per completed request in the timed window: the client process, the server process (all its threads). */
  clientCpuMsPerRequest: number;
  serverCpuMsPerRequest: number;
  /** Each timed window, in order. */
  windows: StoreWindow[];
  /** The window (from 1) in which the timed bodies ran out, if they did (see REQUESTS). */
  ranOutInWindow: number | undefined;
}

/** One timed window of a store: its requests per second and server CPU per request (ms). */
interface StoreWindow {
  requestsPerSecond: number;
  serverCpuMsPerRequest: number;
}

/** The CPU time (user + system, all threads) a process has used so far, in ms (Linux /proc). */
function processCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of stat(5), counted from 1, in clock ticks.
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return Number.NaN;
  }
}
const CLOCK_TICKS = 100;

/**
 * One store's server: started, given a wallet and its pre-stamped bodies, warmed up, then timed in
 * windows (interleaved with the other stores' and the bare loop's), then checked and stopped.
 */
class StoreRun {
  private child!: ChildProcess;
  private url!: URL;
  private organizationId!: string;
  private signWith!: string;
  private agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  private readonly stamper: ReturnType<typeof createApiKeyStamper>;
  private readonly apiPublicKey: string;
  private readonly digests: string[] = [];
  /** Every timed request, as the bytes the client writes (built before any timing). */
  private readonly prepared: Buffer[] = [];
  private connections: KeepAliveConnection[] = [];
  private next = 0;
  startSeconds = 0;
  failures = 0;
  readonly failureSamples: string[] = [];
  private readonly keep: { index: number; body: string }[] = [];
  private readonly latencies: number[] = [];
  private seconds = 0;
  private serverCpuMs = 0;
  private clientCpuMs = 0;
  /** Each timed window, in order. */
  readonly windows: StoreWindow[] = [];
  /** The window (from 1) in which the timed bodies ran out, if they did (see REQUESTS). */
  ranOutInWindow: number | undefined;

  constructor(readonly store: StoreSpec) {
    const apiKey = generateApiKeyPair();
    this.apiPublicKey = apiKey.publicKey;
    this.stamper = createApiKeyStamper(apiKey.privateKey);
  }

  private stamped(body: object): StampedBody {
    const text = JSON.stringify(body);
    return { body: Buffer.from(text), stamp: this.stamper.stamp(text) };
  }

  /** Starts the server, creates the wallet and pre-stamps every body (none of it timed). */
  async start(): Promise<void> {
    const startAt = nowNs();
    const { child, info } = await startChildServer(this.apiPublicKey, this.store);
    this.child = child;
    this.startSeconds = msSince(startAt) / 1000;
    process.stdout.write(`  server started in ${fmt(this.startSeconds, 1)} s (not measured)\n`);
    this.url = new URL(info.url);
    if (this.url.hostname !== '127.0.0.1')
      throw new Error(`refusing to benchmark a non-loopback server: ${info.url}`);
    this.organizationId = info.organizationId;

    // Setup (not timed): a wallet with one Ethereum account.
    const wallet = this.stamped({
      type: 'ACTIVITY_TYPE_CREATE_WALLET',
      timestampMs: String(Date.now()),
      organizationId: this.organizationId,
      parameters: {
        walletName: 'bench',
        accounts: [
          {
            curve: 'CURVE_SECP256K1',
            pathFormat: 'PATH_FORMAT_BIP32',
            path: "m/44'/60'/0'/0/0",
            addressFormat: 'ADDRESS_FORMAT_ETHEREUM',
          },
        ],
      },
    });
    const created = await post(
      this.agent,
      this.url,
      '/public/v1/submit/create_wallet',
      wallet.body,
      wallet.stamp,
    );
    const createdActivity = JSON.parse(created.body).activity;
    if (created.status !== 200 || createdActivity?.status !== 'ACTIVITY_STATUS_COMPLETED') {
      throw new Error(`create_wallet failed: ${created.status} ${created.body.slice(0, 300)}`);
    }
    this.signWith = createdActivity.result.createWalletResult.addresses[0];

    // Pre-stamp every body: a unique timestampMs (and digest) each, so each is a new activity.
    const total = WARMUP_BODIES + SETTLE_BODIES + REQUESTS + LEAD_BODIES;
    const baseTimestamp = Date.now();
    const stampStart = nowNs();
    for (let i = 0; i < total; i++) {
      const payload = `0x${randomBytes(32).toString('hex')}`;
      this.digests.push(payload);
      const { body, stamp } = this.stamped({
        type: 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2',
        timestampMs: String(baseTimestamp + i),
        organizationId: this.organizationId,
        parameters: {
          signWith: this.signWith,
          payload,
          encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
          hashFunction: 'HASH_FUNCTION_NO_OP',
        },
      });
      this.prepared.push(postRequestBytes(this.url, SIGN_PATH, body, { 'x-stamp': stamp }));
    }
    process.stdout.write(
      `  pre-stamped ${fmt(total)} bodies in ${fmt(msSince(stampStart) / 1000, 2)} s (not measured)\n`,
    );
  }

  private check(index: number, response: BenchResponse): void {
    let ok = false;
    if (response.status === 200) {
      try {
        ok = JSON.parse(response.body).activity?.status === 'ACTIVITY_STATUS_COMPLETED';
      } catch {
        ok = false;
      }
    }
    if (!ok) {
      this.failures++;
      if (this.failureSamples.length < 5)
        this.failureSamples.push(`${response.status} ${response.body.slice(0, 200)}`);
    } else if (index % Math.max(1, Math.floor(REQUESTS / 50)) === 0 && this.keep.length < 50) {
      this.keep.push({ index, body: response.body });
    }
  }

  /** CONCURRENCY clients send bodies up to `end` for at most `deadlineMs`; returns the seconds. */
  private async send(end: number, deadlineMs: number, latencies: number[] | null) {
    // Sockets left idle while other servers ran may be past this one's keep-alive timeout.
    this.closeConnections();
    this.connections = Array.from({ length: CONCURRENCY }, () => new KeepAliveConnection(this.url));
    const start = nowNs();
    const worker = async (connection: KeepAliveConnection) => {
      while (this.next < end && msSince(start) < deadlineMs) {
        const index = this.next++;
        const t0 = nowNs();
        let response: BenchResponse;
        try {
          response = await connection.send(this.prepared[index]!);
        } catch (error) {
          response = { status: 0, body: String(error) };
        }
        latencies?.push(msSince(t0));
        this.check(index, response);
      }
    };
    await Promise.all(this.connections.map(worker));
    return msSince(start) / 1000;
  }

  private closeConnections(): void {
    for (const connection of this.connections) connection.close();
    this.connections = [];
  }

  /** Warm-up (not timed): JIT, connections, server caches. */
  async warmUp(): Promise<void> {
    let seconds = await this.send(WARMUP_BODIES, WARMUP_SECONDS * 1000, null);
    if (this.next < WARMUP_REQUESTS) {
      seconds += await this.send(WARMUP_REQUESTS, (WARMUP_MAX_SECONDS - seconds) * 1000, null);
    }
    process.stdout.write(
      `  warm-up: ${fmt(this.next)} requests in ${fmt(seconds, 1)} s (not measured)\n`,
    );
    if (this.failures > 0) {
      throw new Error(
        `warm-up requests failed (${this.failures}); first: ${this.failureSamples[0] ?? '?'}`,
      );
    }
    this.keep.length = 0;
  }

  /** SETTLE_SECONDS of requests not measured, just before the rounds (see SETTLE_SECONDS). */
  async settle(): Promise<void> {
    const served = this.next;
    const seconds = await this.send(this.next + SETTLE_BODIES, SETTLE_SECONDS * 1000, null);
    process.stdout.write(
      `  ${this.store.name}: ${fmt(this.next - served)} requests in ${fmt(seconds, 1)} s\n`,
    );
    this.keep.length = 0;
  }

  /**
   * One timed window, added to the totals, after LEAD_SECONDS of requests not measured; the
   * timed requests stop at REQUESTS.
   */
  async window(seconds: number): Promise<void> {
    await this.send(
      Math.min(this.prepared.length, this.next + Math.ceil(LEAD_BODIES / ROUNDS)),
      LEAD_SECONDS * 1000,
      null,
    );
    const clientCpu0 = process.cpuUsage();
    const serverCpu0 = processCpuMs(this.child.pid!);
    const before = this.latencies.length;
    const failuresBefore = this.failures;
    const windowSeconds = await this.send(
      Math.min(this.prepared.length, this.next + REQUESTS - this.latencies.length),
      seconds * 1000,
      this.latencies,
    );
    const client = process.cpuUsage(clientCpu0);
    const serverCpuMs = processCpuMs(this.child.pid!) - serverCpu0;
    const completed = this.latencies.length - before - (this.failures - failuresBefore);
    this.seconds += windowSeconds;
    this.clientCpuMs += (client.user + client.system) / 1000;
    this.serverCpuMs += serverCpuMs;
    this.windows.push({
      requestsPerSecond: completed / windowSeconds,
      serverCpuMsPerRequest: serverCpuMs / Math.max(1, completed),
    });
    // A window cut short by the end of the bodies would leave the rounds unequal: say so.
    if (this.latencies.length >= REQUESTS && windowSeconds < seconds * 0.95) {
      this.ranOutInWindow ??= this.windows.length;
    }
  }

  /** Checks sampled signatures against the account key, stops the server, sums up. */
  async finish(): Promise<E2eResult> {
    try {
      const accountKey = await accountPublicKey(
        this.agent,
        this.url,
        this.organizationId,
        this.stamper,
        this.signWith,
      );
      let verifiedSamples = 0;
      for (const { index, body } of this.keep) {
        const { r, s, v } = JSON.parse(body).activity.result.signRawPayloadResult as {
          r: string;
          s: string;
          v: string;
        };
        const sig = secp256k1.Signature.fromBytes(
          Buffer.from(r + s, 'hex'),
          'compact',
        ).addRecoveryBit(Number(v));
        const recovered = sig
          .recoverPublicKey(Buffer.from(this.digests[index]!.slice(2), 'hex'))
          .toHex(true);
        if (recovered !== accountKey)
          throw new Error(`signature ${index} does not recover to the account key`);
        verifiedSamples++;
      }
      const latencies = [...this.latencies].sort((a, b) => a - b);
      const sent = latencies.length;
      const completed = sent - this.failures;
      return {
        store: this.store.name,
        startSeconds: this.startSeconds,
        concurrency: CONCURRENCY,
        sent,
        completed,
        failures: this.failures,
        failureSamples: this.failureSamples,
        seconds: this.seconds,
        requestsPerSecond: completed / this.seconds,
        p50Ms: percentile(latencies, 50),
        p90Ms: percentile(latencies, 90),
        p99Ms: percentile(latencies, 99),
        maxMs: latencies[latencies.length - 1] ?? Number.NaN,
        verifiedSamples,
        clientCpuMsPerRequest: this.clientCpuMs / Math.max(1, completed),
        serverCpuMsPerRequest: this.serverCpuMs / Math.max(1, completed),
        windows: this.windows,
        ranOutInWindow: this.ranOutInWindow,
      };
    } finally {
      await this.stop();
    }
  }

  async stop(): Promise<void> {
    this.agent.destroy();
    this.closeConnections();
    if (this.child) await stopChild(this.child, 5_000);
  }
}

async function accountPublicKey(
  agent: Agent,
  url: URL,
  organizationId: string,
  stamper: ReturnType<typeof createApiKeyStamper>,
  address: string,
): Promise<string> {
  const text = JSON.stringify({ organizationId });
  const response = await post(
    agent,
    url,
    '/public/v1/query/list_wallet_accounts',
    Buffer.from(text),
    stamper.stamp(text),
  );
  const account = (
    JSON.parse(response.body).accounts as { address: string; publicKey: string }[]
  ).find((a) => a.address === address);
  if (!account) throw new Error('the bench account is missing from list_wallet_accounts');
  return account.publicKey.replace(/^0x/, '').toLowerCase();
}

// ---------------------------------------------------------------------------------------
// The stores

/** The store's spec, or a reason it cannot run here. */
async function prepareStore(name: StoreName): Promise<StoreSpec | string> {
  try {
    return { name, ...(await prepareChildStore(name, 'keyhold-bench')) };
  } catch (error) {
    if (name !== 'postgres') throw error;
    return `Postgres at ${new URL(POSTGRES_URL).host} is unreachable (${error instanceof Error ? error.message : String(error)}); set BENCH_POSTGRES_URL`;
  }
}

const STORE_LABEL: Record<StoreName, string> = {
  memory: 'memory (--memory)',
  pglite: 'PGlite (--data, a fresh directory)',
  postgres: `Postgres (--postgres, a fresh database on ${new URL(POSTGRES_URL).host})`,
};

// ---------------------------------------------------------------------------------------

const cpu = cpus();
const machine = `${cpu.length} CPU(s) ${cpu[0]?.model ?? '?'}, ${fmt(totalmem() / 2 ** 30, 1)} GiB, node ${process.version}, ${process.platform}/${process.arch}`;
const load = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');
process.stdout.write(
  `Keyhold bench — ${machine}\nload average before: ${load()} (the client, the server and anything else share these CPUs)\n\n`,
);

process.stdout.write(
  `(a) bare: 1 P-256 stamp verify (OpenSSL) + 1 secp256k1 recoverable sign (noble), ${fmt(BARE_SECONDS / ROUNDS, 1)} s in each of ${ROUNDS} rounds\n`,
);
const bareLoop = new BareLoop();
await bareLoop.warmUp();

const runs: StoreRun[] = [];
const skipped: { store: StoreName; reason: string }[] = [];
try {
  for (const name of STORES) {
    process.stdout.write(
      `\n(b) end to end on ${STORE_LABEL[name]}: sign_raw_payload V2 over keep-alive HTTP to a` +
        ` ${BENCH_SERVER === 'cli' ? '`keyhold serve` child process' : 'child-process Express server (bench/server.ts)'}, concurrency ${CONCURRENCY}, ${fmt(E2E_SECONDS / ROUNDS, 1)} s in each of ${ROUNDS} rounds (${fmt(REQUESTS)} timed bodies at most)\n`,
    );
    const spec = await prepareStore(name);
    if (typeof spec === 'string') {
      process.stdout.write(`  SKIPPED: ${spec}\n`);
      skipped.push({ store: name, reason: spec });
      continue;
    }
    const run = new StoreRun(spec);
    runs.push(run);
    await run.start();
    await run.warmUp();
  }

  process.stdout.write(
    `\n(c) settling: ${fmt(SETTLE_SECONDS, 1)} s of each server in turn, not measured\n`,
  );
  for (const run of runs) await run.settle();
  process.stdout.write(
    `\n(c) ${ROUNDS} rounds of: bare ${fmt(BARE_SECONDS / ROUNDS, 1)} s, then ${runs.map((r) => `${r.store.name} ${fmt(E2E_SECONDS / ROUNDS, 1)} s`).join(', ')}\n`,
  );
  for (let round = 0; round < ROUNDS; round++) {
    await bareLoop.window(BARE_SECONDS / ROUNDS);
    for (const run of runs) await run.window(E2E_SECONDS / ROUNDS);
  }
} catch (error) {
  await Promise.allSettled(runs.map((r) => r.stop()));
  await Promise.allSettled(runs.map((r) => r.store.dispose()));
  throw error;
}

const bare = bareLoop.result();
process.stdout.write('\n(a) bare, over its windows\n');
process.stdout.write(
  `  ${fmt(bare.opsPerSecond)} ops/s  (${fmt(bare.ops)} ops in ${fmt(bare.seconds, 2)} s;` +
    ` verify alone ${fmt(bare.verifyOnlyPerSecond)}/s, sign alone ${fmt(bare.signOnlyPerSecond)}/s, each for 1 s before the rounds)\n` +
    `  each window: ${bare.windows.map((w) => fmt(w)).join(', ')} ops/s\n`,
);
const results: E2eResult[] = [];
for (const run of runs) {
  let e2e: E2eResult;
  try {
    e2e = await run.finish();
  } finally {
    await run.store.dispose();
  }
  results.push(e2e);
  process.stdout.write(
    `\n(b) ${STORE_LABEL[e2e.store]}, over its windows\n` +
      `  ${fmt(e2e.requestsPerSecond)} req/s  (${fmt(e2e.completed)} COMPLETED of ${fmt(e2e.sent)} in ${fmt(e2e.seconds, 2)} s;` +
      ` failures ${e2e.failures})\n` +
      `  latency p50 ${fmt(e2e.p50Ms, 2)} ms, p90 ${fmt(e2e.p90Ms, 2)} ms, p99 ${fmt(e2e.p99Ms, 2)} ms, max ${fmt(e2e.maxMs, 2)} ms\n` +
      `  CPU per request: server ${fmt(e2e.serverCpuMsPerRequest, 3)} ms (all threads), client ${fmt(e2e.clientCpuMsPerRequest, 3)} ms\n` +
      `  each window: ${e2e.windows.map((w) => `${fmt(w.requestsPerSecond)} req/s at ${fmt(w.serverCpuMsPerRequest, 2)} ms`).join(', ')}\n` +
      `  ${e2e.verifiedSamples} sampled signatures recovered to the account key\n`,
  );
  if (e2e.ranOutInWindow !== undefined) {
    process.stdout.write(
      `  WARNING: the ${fmt(REQUESTS)} timed bodies ran out in window ${e2e.ranOutInWindow} of ${ROUNDS}; its figures cover fewer windows than the bare loop's (raise BENCH_REQUESTS)\n`,
    );
  }
  for (const sample of e2e.failureSamples) process.stdout.write(`  failure: ${sample}\n`);
}

const memory = results.find((r) => r.store === 'memory');
const rows = results.map((r) => ({
  ...r,
  vsMemory: memory ? r.requestsPerSecond / memory.requestsPerSecond : Number.NaN,
  vsBare: r.requestsPerSecond / bare.opsPerSecond,
}));
const pad = (text: string, width: number) => text.padStart(width);
process.stdout.write(
  `\nsummary (bare ${fmt(bare.opsPerSecond)} ops/s over its windows; concurrency ${CONCURRENCY}; ${ROUNDS} interleaved rounds)\n` +
    `  ${'store'.padEnd(9)}${pad('req/s', 8)}${pad('p50 ms', 9)}${pad('p99 ms', 9)}${pad('failures', 10)}${pad('/ memory', 10)}${pad('/ bare', 8)}\n`,
);
for (const r of rows) {
  process.stdout.write(
    `  ${r.store.padEnd(9)}${pad(fmt(r.requestsPerSecond), 8)}${pad(fmt(r.p50Ms, 1), 9)}${pad(fmt(r.p99Ms, 1), 9)}` +
      `${pad(String(r.failures), 10)}${pad(Number.isNaN(r.vsMemory) ? '-' : fmt(r.vsMemory, 2), 10)}${pad(fmt(r.vsBare, 2), 8)}\n`,
  );
}
for (const s of skipped) process.stdout.write(`  ${s.store.padEnd(9)}skipped: ${s.reason}\n`);
// Issue #11's aims: memory against the bare crypto, the SQL stores against memory.
const aims: [store: string, against: 'bare' | 'memory', aim: number][] = [
  ['memory', 'bare', 0.8],
  ['postgres', 'memory', 0.6],
  ['pglite', 'memory', 0.5],
];
for (const [store, against, aim] of aims) {
  const row = rows.find((r) => r.store === store);
  if (!row || (against === 'memory' && !memory)) continue;
  const ratio = against === 'bare' ? row.vsBare : row.vsMemory;
  const uneven = [row, ...(against === 'memory' ? [memory!] : [])].some(
    (r) => r.ranOutInWindow !== undefined,
  );
  process.stdout.write(
    `aim: ${store} >= ${aim} x ${against}: ${fmt(ratio, 2)} — ${uneven ? 'not comparable (timed bodies ran out)' : ratio >= aim ? 'met' : 'NOT met'}\n`,
  );
}
process.stdout.write(`load average after: ${load()}\n`);
process.stdout.write(
  `${JSON.stringify({
    machine: { cpus: cpu.length, model: cpu[0]?.model, node: process.version, loadavg: loadavg() },
    rounds: ROUNDS,
    bare: {
      opsPerSecond: Math.round(bare.opsPerSecond),
      verifyOnlyPerSecond: Math.round(bare.verifyOnlyPerSecond),
      signOnlyPerSecond: Math.round(bare.signOnlyPerSecond),
      windows: bare.windows.map(Math.round),
    },
    e2e: rows.map((r) => ({
      store: r.store,
      concurrency: r.concurrency,
      requestsPerSecond: Math.round(r.requestsPerSecond),
      sent: r.sent,
      failures: r.failures,
      p50Ms: Number(r.p50Ms.toFixed(2)),
      p99Ms: Number(r.p99Ms.toFixed(2)),
      vsMemory: Number.isNaN(r.vsMemory) ? null : Number(r.vsMemory.toFixed(3)),
      vsBare: Number(r.vsBare.toFixed(3)),
      ranOutInWindow: r.ranOutInWindow ?? null,
      windows: r.windows.map((w) => ({
        requestsPerSecond: Math.round(w.requestsPerSecond),
        serverCpuMsPerRequest: Number(w.serverCpuMsPerRequest.toFixed(3)),
      })),
    })),
    skipped,
  })}\n`,
);
process.exitCode = rows.some((r) => r.failures > 0) ? 1 : 0;

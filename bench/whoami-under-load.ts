/**
 * `pnpm bench:load`: how long a whoami takes while other clients create large wallets — issue
 * #10, finding 2 ("heavy valid requests stall everyone") — with key crypto inline on the event
 * loop and in the piscina worker pool, measured one after the other in the same run.
 *
 * For each mode (BENCH_LOAD_MODES, default `inline,piscina`) a fresh server (bench/server.ts, a
 * CHILD process, so this process's stamping is not on its event loop; BENCH_CRYPTO_THREADS=0
 * for inline, one thread per core for piscina, as `keyhold serve` defaults) on a fresh store:
 *  1. idle: BENCH_LOAD_IDLE (40) stamped whoamis, one after the other — the baseline;
 *  2. loaded: BENCH_LOAD_CREATORS (4) clients each create wallets of BENCH_LOAD_ACCOUNTS (100)
 *     BIP86 Taproot accounts (ADDRESS_FORMAT_BITCOIN_MAINNET_P2TR, m/86'/0'/0'/0/i) back to back
 *     for BENCH_LOAD_SECONDS (10) while one more client stamps whoami after whoami (5 ms apart).
 * Every whoami must answer 200 with its organization, every wallet 200 with COMPLETED and as
 * many bc1p… addresses as accounts; anything else is a failure and the exit code is 1.
 *
 * Printed per mode: whoami idle p50, whoami under load p50 / p90 / p99 / max, the load's ratio
 * to idle, wallets per second and CREATE_WALLET p50; then piscina against inline.
 *
 * BENCH_LOAD_STORE: `postgres` (default; a fresh database at BENCH_POSTGRES_URL, dropped
 * afterwards), `memory` or `pglite`. The memory store and PGlite run one transaction at a
 * time, so there a whoami also waits for the wallet transactions queued before it, whatever
 * thread derives; Postgres runs them side by side, which is where the pool shows.
 * Bounded loops, 127.0.0.1 only.
 * @module
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism, cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createApiKeyStamper, generateApiKeyPair } from '@keyhold/server';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const positive = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number`);
  return value;
};
const CREATORS = Math.floor(positive('BENCH_LOAD_CREATORS', 4));
const ACCOUNTS = Math.floor(positive('BENCH_LOAD_ACCOUNTS', 100));
const SECONDS = positive('BENCH_LOAD_SECONDS', 10);
const IDLE = Math.floor(positive('BENCH_LOAD_IDLE', 40));
const WHOAMI_GAP_MS = 5;
const THREADS = availableParallelism();
const MODES = (process.env.BENCH_LOAD_MODES ?? 'inline,piscina').split(',').map((m) => m.trim());
for (const mode of MODES) {
  if (mode !== 'inline' && mode !== 'piscina') {
    throw new Error(`BENCH_LOAD_MODES: unknown mode "${mode}" (use inline, piscina)`);
  }
}
const STORE = process.env.BENCH_LOAD_STORE ?? 'postgres';
if (!['postgres', 'memory', 'pglite'].includes(STORE)) {
  throw new Error(`BENCH_LOAD_STORE must be postgres, memory or pglite, got "${STORE}"`);
}
const POSTGRES_URL = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const fmt = (n: number, digits = 1) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  return sorted[
    Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))
  ]!;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------
// The server and its store

interface StoreSpec {
  arg: string;
  env: Record<string, string>;
  dispose(): Promise<void>;
}

/** `pg`, from the SQL adapter's dependencies (the workspace root does not depend on it). */
const pg = createRequire(join(ROOT, 'adapters/store-postgres/package.json'))('pg') as {
  Client: new (config: {
    connectionString: string;
    connectionTimeoutMillis?: number;
  }) => {
    connect(): Promise<unknown>;
    query(text: string): Promise<unknown>;
    end(): Promise<void>;
  };
};

async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    await client.query(sql);
  } finally {
    await client.end().catch(() => {});
  }
}

async function prepareStore(): Promise<StoreSpec> {
  if (STORE === 'memory') return { arg: 'memory', env: {}, dispose: async () => {} };
  if (STORE === 'pglite') {
    const dir = mkdtempSync(join(tmpdir(), 'keyhold-bench-load-'));
    return {
      arg: `data:${dir}`,
      env: {},
      dispose: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const database = `keyhold_bench_load_${process.pid}_${randomBytes(4).toString('hex')}`;
  await adminQuery(`CREATE DATABASE "${database}"`);
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${database}`;
  return {
    arg: `postgres:${url}`,
    env: { KEYHOLD_MASTER_KEY: randomBytes(32).toString('hex') },
    dispose: () => adminQuery(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`),
  };
}

interface ServerInfo {
  url: string;
  organizationId: string;
}

function startChildServer(
  apiPublicKey: string,
  store: StoreSpec,
  threads: number,
): Promise<{ child: ChildProcess; info: ServerInfo }> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      '--conditions=keyhold-source',
      join(ROOT, 'bench/server.ts'),
      apiPublicKey,
      store.arg,
    ],
    {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'inherit'],
      env: {
        ...process.env,
        KEYHOLD_MASTER_KEY: undefined,
        ...store.env,
        BENCH_CRYPTO_THREADS: String(threads),
      },
    },
  );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error('the bench server did not start within 60 s')),
      60_000,
    );
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the bench server exited early (code ${code})`)));
    createInterface({ input: child.stdout! }).once('line', (line) => {
      clearTimeout(timer);
      resolve({ child, info: JSON.parse(line) as ServerInfo });
    });
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.removeAllListeners('exit');
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timeout = new Promise<'timeout'>((resolve) =>
    setTimeout(() => resolve('timeout'), 10_000).unref(),
  );
  if ((await Promise.race([exited, timeout])) === 'timeout') {
    child.kill('SIGKILL');
    await exited;
  }
}

// ---------------------------------------------------------------------------------------
// The clients

const accounts = Array.from({ length: ACCOUNTS }, (_, i) => ({
  curve: 'CURVE_SECP256K1',
  pathFormat: 'PATH_FORMAT_BIP32',
  path: `m/86'/0'/0'/0/${i}`,
  addressFormat: 'ADDRESS_FORMAT_BITCOIN_MAINNET_P2TR',
}));

/** The members of the answers that the bench checks. */
interface Answer {
  organizationId?: string;
  activity?: { status?: string; result?: { createWalletResult?: { addresses?: string[] } } };
}

interface Client {
  whoami(): Promise<number>;
  createWallet(name: string): Promise<number>;
}

function clientOf(url: string, organizationId: string, privateKey: string): Client {
  const stamper = createApiKeyStamper(privateKey);
  /** POSTs a stamped body; resolves with the milliseconds to the parsed answer. */
  const post = async (path: string, body: unknown, check: (json: Answer) => boolean) => {
    const text = JSON.stringify(body);
    const stamp = stamper.stamp(text); // before the clock starts: the client's cost is not the server's
    const started = performance.now();
    const response = await fetch(url + path, {
      method: 'POST',
      body: text,
      headers: { 'x-stamp': stamp },
    });
    const json = (await response.json()) as Answer;
    const elapsed = performance.now() - started;
    if (response.status !== 200 || !check(json)) {
      throw new Error(`${path}: ${response.status} ${JSON.stringify(json).slice(0, 300)}`);
    }
    return elapsed;
  };
  return {
    whoami: () =>
      post(
        '/public/v1/query/whoami',
        { organizationId },
        (json) => json.organizationId === organizationId,
      ),
    createWallet: (walletName) =>
      post(
        '/public/v1/submit/create_wallet',
        {
          type: 'ACTIVITY_TYPE_CREATE_WALLET',
          timestampMs: String(Date.now()),
          organizationId,
          parameters: { walletName, accounts },
        },
        (json) => {
          const addresses = json.activity?.result?.createWalletResult?.addresses;
          return (
            json.activity?.status === 'ACTIVITY_STATUS_COMPLETED' &&
            addresses?.length === ACCOUNTS &&
            addresses.every((a) => a.startsWith('bc1p'))
          );
        },
      ),
  };
}

// ---------------------------------------------------------------------------------------

interface ModeResult {
  mode: string;
  threads: number;
  idle: number[];
  whoami: number[];
  wallets: number[];
  seconds: number;
}

async function measure(mode: 'inline' | 'piscina'): Promise<ModeResult> {
  const threads = mode === 'inline' ? 0 : THREADS;
  const key = generateApiKeyPair();
  const store = await prepareStore();
  const { child, info } = await startChildServer(key.publicKey, store, threads);
  try {
    const client = clientOf(info.url, info.organizationId, key.privateKey);
    await client.createWallet('warm-up'); // compiled paths, workers' first jobs: not measured
    const idle: number[] = [];
    for (let i = 0; i < IDLE; i++) {
      idle.push(await client.whoami());
      await sleep(WHOAMI_GAP_MS);
    }
    const whoami: number[] = [];
    const wallets: number[] = [];
    const started = performance.now();
    const deadline = started + SECONDS * 1000;
    let loading = true;
    const creators = Array.from({ length: CREATORS }, async (_, c) => {
      for (let w = 0; performance.now() < deadline; w++) {
        wallets.push(await client.createWallet(`load-${c}-${w}`));
      }
    });
    const load = Promise.all(creators).finally(() => {
      loading = false;
    });
    const prober = (async () => {
      await sleep(20); // the first wallets reach the server first
      while (loading) {
        const elapsed = await client.whoami();
        if (loading) whoami.push(elapsed);
        await sleep(WHOAMI_GAP_MS);
      }
    })();
    await Promise.all([load, prober]);
    return { mode, threads, idle, whoami, wallets, seconds: (performance.now() - started) / 1000 };
  } finally {
    await stopChild(child);
    await store.dispose();
  }
}

const cpu = cpus();
process.stdout.write(
  `whoami under wallet-creation load (issue #10, finding 2)\n` +
    `machine: ${cpu.length} CPU(s) ${cpu[0]?.model ?? '?'}, ${fmt(totalmem() / 2 ** 30)} GiB, node ${process.version}; ` +
    `load average before ${loadavg()
      .map((l) => fmt(l, 2))
      .join(' ')}\n` +
    `store ${STORE}; ${CREATORS} clients creating ${ACCOUNTS}-account Taproot wallets for ${SECONDS} s; ` +
    `piscina = ${THREADS} worker threads\n\n`,
);

let failed = false;
const results: ModeResult[] = [];
for (const mode of MODES as ('inline' | 'piscina')[]) {
  try {
    const r = await measure(mode);
    results.push(r);
    const idle50 = percentile(r.idle, 50);
    const load50 = percentile(r.whoami, 50);
    process.stdout.write(
      `${mode.padEnd(8)} whoami idle p50 ${fmt(idle50)} ms | under load ×${r.whoami.length}: ` +
        `p50 ${fmt(load50)}, p90 ${fmt(percentile(r.whoami, 90))}, p99 ${fmt(percentile(r.whoami, 99))}, ` +
        `max ${fmt(Math.max(...r.whoami))} ms (p50 ${fmt(load50 / idle50)}× idle) | ` +
        `${r.wallets.length} wallets, ${fmt(r.wallets.length / r.seconds, 2)}/s, CREATE_WALLET p50 ${fmt(percentile(r.wallets, 50), 0)} ms\n`,
    );
  } catch (error) {
    failed = true;
    process.stdout.write(
      `${mode.padEnd(8)} FAILED: ${error instanceof Error ? error.message : String(error)}\n`,
    );
  }
}

const inline = results.find((r) => r.mode === 'inline');
const pooled = results.find((r) => r.mode === 'piscina');
if (inline && pooled) {
  const ratio = (p: number) => percentile(inline.whoami, p) / percentile(pooled.whoami, p);
  process.stdout.write(
    `\ninline ÷ piscina, whoami under load: p50 ${fmt(ratio(50))}×, p90 ${fmt(ratio(90))}×, p99 ${fmt(ratio(99))}×; ` +
      `wallets/s piscina ÷ inline ${fmt(pooled.wallets.length / pooled.seconds / (inline.wallets.length / inline.seconds), 2)}×\n`,
  );
}
process.stdout.write(
  `load average after ${loadavg()
    .map((l) => fmt(l, 2))
    .join(' ')}\n`,
);
process.stdout.write(
  `${JSON.stringify({
    store: STORE,
    creators: CREATORS,
    accounts: ACCOUNTS,
    results: results.map((r) => ({
      mode: r.mode,
      threads: r.threads,
      idleP50Ms: percentile(r.idle, 50),
      whoamiP50Ms: percentile(r.whoami, 50),
      whoamiP90Ms: percentile(r.whoami, 90),
      whoamiP99Ms: percentile(r.whoami, 99),
      whoamiMaxMs: Math.max(...r.whoami),
      wallets: r.wallets.length,
      seconds: r.seconds,
    })),
  })}\n`,
);
process.exit(failed ? 1 : 0);

import { availableParallelism, cpus, loadavg, totalmem } from 'node:os';
import { createApiKeyStamper, generateApiKeyPair } from '@keyhold/server';
import { percentile, prepareChildStore, startChildServer, stopChild } from './bench-server.js';

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
const STORE = (process.env.BENCH_LOAD_STORE ?? 'postgres') as 'postgres' | 'memory' | 'pglite';
if (!['postgres', 'memory', 'pglite'].includes(STORE)) {
  throw new Error(`BENCH_LOAD_STORE must be postgres, memory or pglite, got "${STORE}"`);
}

const fmt = (n: number, digits = 1) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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
  const store = await prepareChildStore(STORE, 'keyhold-bench-load');
  const { child, info } = await startChildServer(key.publicKey, store, {
    BENCH_CRYPTO_THREADS: String(threads),
  });
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
    await stopChild(child, 10_000);
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

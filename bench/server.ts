/**
 * The benchmark's server process: `startServer()` (Express + software vault + OpenSSL stamp
 * verifier, exactly what `keyhold serve` composes) on a free port of 127.0.0.1, on the store
 * named by the second argument, bootstrapped with the API public key given as the first.
 *
 *   bench/server.ts <api public key> [memory | data:<dir> | postgres:<url>]
 *
 * The store is opened by `openStore()`, the CLI's own store selection: `memory` (the default)
 * is `keyhold serve --memory`, `data:<dir>` is `--data <dir>` (embedded PGlite in <dir>/pgdata,
 * the master key in <dir>/master.key), `postgres:<url>` is `--postgres <url>` (the master key
 * from KEYHOLD_MASTER_KEY). Prints one JSON line `{"url","organizationId","userId"}` on stdout
 * when it listens; SIGTERM or SIGINT closes it and exits 0.
 *
 * Key crypto runs as `keyhold serve` runs it: in a piscina pool of one worker thread per core;
 * BENCH_CRYPTO_THREADS=N sets the threads, and 0 runs it inline on the event loop (what an
 * embedded `createKeyhold()` does by default).
 *
 * Spawned by bench/run.ts; not meant to be run by hand (but it can be:
 * `tsx --conditions=keyhold-source bench/server.ts 02… data:/tmp/bench`).
 * @module
 */
// The CLI's store selection (@keyhold/cli).
import { availableParallelism } from 'node:os';
import { openStore, type StoreChoice, startServer } from '@keyhold/cli';
import { silentLogger } from '@keyhold/server';
// Not a dependency of the workspace root: imported by path, run from its sources by tsx.
import { PiscinaCryptoWorkPool } from '../adapters/worker-pool-piscina/src/index.js';

const usage = () => {
  process.stderr.write(
    'usage: bench/server.ts <compressed P-256 API public key hex> [memory | data:<dir> | postgres:<url>]\n',
  );
  process.exit(2);
};

const apiPublicKey = process.argv[2];
if (!apiPublicKey || !/^0[23][0-9a-f]{64}$/.test(apiPublicKey)) usage();
const spec = process.argv[3] ?? 'memory';
const choice: StoreChoice | undefined =
  spec === 'memory'
    ? { kind: 'memory' }
    : spec.startsWith('data:')
      ? { kind: 'data', dir: spec.slice('data:'.length) }
      : spec.startsWith('postgres:')
        ? { kind: 'postgres', url: spec.slice('postgres:'.length) }
        : undefined;
if (!choice) usage();

const masterKeyHex = process.env.KEYHOLD_MASTER_KEY;
const opened = await openStore(choice!, {
  env: 'development',
  ...(masterKeyHex ? { masterKeyHex } : {}),
});
const threads = Number(process.env.BENCH_CRYPTO_THREADS ?? availableParallelism());
if (!Number.isInteger(threads) || threads < 0) {
  process.stderr.write('BENCH_CRYPTO_THREADS must be an integer ≥ 0\n');
  process.exit(2);
}
const server = await startServer({
  host: '127.0.0.1',
  port: 0,
  logger: silentLogger,
  store: opened.store,
  masterKey: opened.masterKey,
  bootstrapApiPublicKey: apiPublicKey,
  bootstrapOrganizationName: 'Bench',
  // Closed with the server (Keyhold.close closes the pool last).
  ...(threads > 0 ? { cryptoWorkPool: new PiscinaCryptoWorkPool({ threads }) } : {}),
});
process.stdout.write(
  `${JSON.stringify({ url: server.url, organizationId: server.organizationId, userId: server.userId })}\n`,
);

let closing = false;
const stop = () => {
  if (closing) return;
  closing = true;
  server.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
// If the parent dies without signalling, do not linger.
process.stdin.on('end', stop);
process.stdin.resume();

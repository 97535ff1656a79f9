/**
 * What the end-to-end benches share: a `bench/server.ts` child process on a store (started,
 * its listening line read, stopped), a Postgres database of its own, and percentiles.
 * @module
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const POSTGRES_URL =
  process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** The `p`th percentile (nearest rank) of `values`; NaN when empty. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

/** How bench/server.ts opens a store (its second argument), and the environment it needs. */
export interface ChildStore {
  arg: string;
  env: Record<string, string>;
  /** Releases what was made for it (a data directory, a database). */
  dispose(): Promise<void>;
}

/** The listening line of bench/server.ts. */
export interface ServerInfo {
  url: string;
  organizationId: string;
  userId: string;
}

/** `pg`, from the SQL adapter's dependencies (the workspace root does not depend on it). */
interface PgClient {
  connect(): Promise<unknown>;
  query(text: string): Promise<unknown>;
  end(): Promise<void>;
}
const pg = createRequire(join(ROOT, 'adapters/store-postgres/package.json'))('pg') as {
  Client: new (config: { connectionString: string; connectionTimeoutMillis?: number }) => PgClient;
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

/**
 * A store for bench/server.ts: in memory, a fresh PGlite directory, or a fresh Postgres
 * database at BENCH_POSTGRES_URL (the CLI's --postgres uses the `public` schema of its URL).
 * @throws when Postgres cannot be reached
 */
export async function prepareChildStore(
  kind: 'memory' | 'pglite' | 'postgres',
  prefix: string,
): Promise<ChildStore> {
  if (kind === 'memory') return { arg: 'memory', env: {}, dispose: async () => {} };
  if (kind === 'pglite') {
    const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
    return {
      arg: `data:${dir}`,
      env: {},
      dispose: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const database = `${prefix.replaceAll('-', '_')}_${process.pid}_${randomBytes(4).toString('hex')}`;
  await adminQuery(`CREATE DATABASE "${database}"`);
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${database}`;
  return {
    arg: `postgres:${url}`,
    env: { KEYHOLD_MASTER_KEY: randomBytes(32).toString('hex') },
    dispose: () => adminQuery(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`),
  };
}

/**
 * What serves the bench: `bench/server.ts` (the default: `startServer()` composed as `keyhold
 * serve` composes it, quiet) or, with BENCH_SERVER=cli, `keyhold serve` itself as a user starts
 * it (`pnpm keyhold serve`: its logger and access lines included).
 */
export const BENCH_SERVER = process.env.BENCH_SERVER === 'cli' ? 'cli' : 'bench';

/** `keyhold serve`'s store flags for a ChildStore argument. */
function storeFlags(arg: string): string[] {
  if (arg === 'memory') return ['--memory'];
  if (arg.startsWith('data:')) return ['--data', arg.slice('data:'.length)];
  return ['--postgres', arg.slice('postgres:'.length)];
}

/**
 * Starts the bench's server (see BENCH_SERVER) on `store` and resolves with its listening line
 * (60 s at most).
 */
export function startChildServer(
  apiPublicKey: string,
  store: ChildStore,
  env: Record<string, string> = {},
): Promise<{ child: ChildProcess; info: ServerInfo }> {
  const args =
    BENCH_SERVER === 'cli'
      ? [
          join(ROOT, 'packages/cli/src/main.ts'),
          'serve',
          '--host',
          '127.0.0.1',
          '--port',
          '0',
          '--bootstrap-api-public-key',
          apiPublicKey,
          ...storeFlags(store.arg),
        ]
      : [join(ROOT, 'bench/server.ts'), apiPublicKey, store.arg];
  const child = spawn(
    process.execPath,
    [
      ...(process.env.BENCH_CPU_PROF
        ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`]
        : []),
      // Node or V8 flags for the server (`--trace-opt`, `--max-semi-space-size=32`, …).
      ...(process.env.BENCH_NODE_FLAGS?.split(' ').filter(Boolean) ?? []),
      '--import',
      'tsx',
      '--conditions=keyhold-source',
      ...args,
    ],
    {
      cwd: ROOT,
      // `keyhold serve` logs every request: read and dropped, kept only to explain an early exit.
      stdio: ['pipe', 'pipe', BENCH_SERVER === 'cli' ? 'pipe' : 'inherit'],
      env: { ...process.env, KEYHOLD_MASTER_KEY: undefined, ...store.env, ...env },
    },
  );
  let stderrTail = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderrTail = (stderrTail + chunk.toString()).slice(-2_000);
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error('the bench server did not start within 60 s')),
      60_000,
    );
    child.once('error', reject);
    child.once('exit', (code) =>
      reject(new Error(`the bench server exited early (code ${code})\n${stderrTail}`)),
    );
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      let parsed: (ServerInfo & { event?: string }) | undefined;
      try {
        parsed = JSON.parse(line) as ServerInfo & { event?: string };
      } catch {
        return; // a log line
      }
      if (BENCH_SERVER === 'cli' && parsed.event !== 'listening') return;
      clearTimeout(timer);
      // Whatever it prints afterwards (access lines, a flag's traces) is read and dropped, so it
      // never blocks — or appended to BENCH_CHILD_LOG.
      lines.removeAllListeners('line');
      const log = process.env.BENCH_CHILD_LOG;
      lines.on('line', log ? (line) => appendFileSync(log, `${line}\n`) : () => {});
      resolve({ child, info: parsed });
    });
  });
}

/** SIGTERM, then SIGKILL if the child has not exited after `graceMs`. */
export async function stopChild(child: ChildProcess, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.removeAllListeners('exit');
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timeout = new Promise<'timeout'>((resolve) =>
    setTimeout(() => resolve('timeout'), graceMs).unref(),
  );
  if ((await Promise.race([exited, timeout])) === 'timeout') {
    child.kill('SIGKILL');
    await exited;
  }
}

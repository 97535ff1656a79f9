/**
 * `pnpm bench:statements`: where one signature's time goes on embedded PGlite — each statement
 * the SQL store sends for a stamped sign_raw_payload, in milliseconds per request, and for the
 * reads the planner's share (EXPLAIN ANALYZE's planning time). One request at a time, in
 * process (`Keyhold.handle()` through the embedded client), on a PGlite data directory as
 * `keyhold serve` opens it; not part of `pnpm bench`. Timings: compare rows of one run.
 *
 * BENCH_STATEMENT_REQUESTS (default 300) sets the timed requests, after 50 to warm up.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  PgliteDriver,
  type SqlClient,
  type SqlDriver,
  SqlStore,
} from '../adapters/store-postgres/src/index.js';
import { signingOrganization, signRawPayloadParameters } from './signing-organization.js';

const ROOT = join(fileURLToPath(import.meta.url), '../..');
const REQUESTS = Number(process.env.BENCH_STATEMENT_REQUESTS ?? 300);

interface Timed {
  count: number;
  ms: number;
  /** The first call's text and parameters, to EXPLAIN it afterwards. */
  text: string;
  params: readonly unknown[] | undefined;
  /** A fixed statement: prepared once per session, not planned per call. */
  fixed: boolean;
}

/** Times each statement (by its text) and the transactions around them. */
class TimingDriver implements SqlDriver {
  readonly kind = 'pglite' as const;
  readonly statements = new Map<string, Timed>();
  transactionMs = 0;
  constructor(private readonly inner: SqlDriver) {}
  reset(): void {
    this.statements.clear();
    this.transactionMs = 0;
  }
  async transaction<T>(work: (client: SqlClient) => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await this.inner.transaction((client) =>
        work({
          query: async (text, params, fixed) => {
            const start = performance.now();
            try {
              return await client.query(text, params, fixed);
            } finally {
              const key = text.replace(/\s+/g, ' ').trim();
              const timed = this.statements.get(key) ?? {
                count: 0,
                ms: 0,
                text,
                params,
                fixed: fixed === true,
              };
              timed.count++;
              timed.ms += performance.now() - start;
              this.statements.set(key, timed);
            }
          },
          exec: (script) => client.exec(script),
        }),
      );
    } finally {
      this.transactionMs += performance.now() - started;
    }
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

const requireFromStore = createRequire(join(ROOT, 'adapters/store-postgres/package.json'));
const { PGlite } = (await import(requireFromStore.resolve('@electric-sql/pglite'))) as {
  PGlite: {
    create(dataDir: string): Promise<
      ConstructorParameters<typeof PgliteDriver>[0] & {
        query(text: string, params?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
        close(): Promise<void>;
      }
    >;
  };
};
const dataDir = mkdtempSync(join(tmpdir(), 'keyhold-statements-'));
const db = await PGlite.create(dataDir);
await db.exec('SET search_path TO public');
const driver = new TimingDriver(new PgliteDriver(db, 'public', () => db.close(), true));
const { store } = await SqlStore.open(driver, { schema: 'public' });
const { keyhold, client, address } = await signingOrganization(store, 'statement timings');
const sign = (n: number) =>
  client.submit('ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2', signRawPayloadParameters(address, n));

for (let i = 0; i < 50; i++) await sign(1_000_000 + i);
driver.reset();
const started = performance.now();
for (let i = 0; i < REQUESTS; i++) await sign(i);
const totalMs = performance.now() - started;

const rows = [...driver.statements.values()].sort((a, b) => b.ms - a.ms);
const perRequest = (ms: number) => (ms / REQUESTS).toFixed(3).padStart(7);
console.log(`sign_raw_payload on PGlite (data directory), ${REQUESTS} requests one at a time`);
console.log(`  per request          ${perRequest(totalMs)} ms`);
console.log(`  in its transaction   ${perRequest(driver.transactionMs)} ms`);
console.log(
  `  in statements        ${perRequest(rows.reduce((sum, r) => sum + r.ms, 0))} ms (${rows.reduce((n, r) => n + r.count, 0) / REQUESTS} a request, BEGIN/COMMIT not counted)\n`,
);
console.log('  ms/request  planning ms  statement');
for (const row of rows) {
  let planning = row.fixed ? 'prepared' : '';
  if (!row.fixed && /^\s*(SELECT|WITH found)/i.test(row.text)) {
    const plan = await db.query(
      `EXPLAIN (ANALYZE, TIMING OFF, SUMMARY ON) ${row.text}`,
      row.params as unknown[],
    );
    const line = plan.rows
      .map((r) => String((r as Record<string, unknown>)['QUERY PLAN']))
      .find((l) => l.startsWith('Planning Time'));
    planning = line?.match(/([\d.]+) ms/)?.[1] ?? '';
  }
  const text = row.text.replace(/\s+/g, ' ').trim().slice(0, 70);
  console.log(`  ${perRequest(row.ms)}   ${planning.padStart(10)}   ${text}`);
}
await keyhold.close();
rmSync(dataDir, { recursive: true, force: true });

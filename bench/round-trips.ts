/**
 * `pnpm bench:round-trips`: how many times one request goes to the store, per store — the
 * statements a SQL store sends (BEGIN and COMMIT included) and the repository calls the memory
 * store answers. Counts, not timings: they are the same on any machine, whatever its load.
 *
 * Each store serves one organization (bootstrapped root user, a wallet with one Ethereum
 * account), through `Keyhold.handle()` with stamped bodies, and is counted over:
 *  - sign_raw_payload by the root user (no policies: the root quorum decides);
 *  - the same with one ALLOW policy on signing (the decision builds the condition keywords);
 *  - a sign_raw_payload that fails (an unknown `signWith`): stored FAILED;
 *  - the same body again (answered from the stored activity).
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createApiKeyStamper } from '@keyhold/server';
import pg from 'pg';
import { MemoryStore } from '../adapters/store-memory/src/index.js';
import {
  PgDriver,
  PgliteDriver,
  type SqlClient,
  type SqlDriver,
  SqlStore,
} from '../adapters/store-postgres/src/index.js';
// Test-support code of the store package, by path, as the store itself is imported above.
import { observedPool } from '../adapters/store-postgres/src/testing/observed-pool.js';
import { POSTGRES_URL } from './bench-server.js';
import {
  type BenchStore,
  signingOrganization,
  signRawPayloadParameters,
} from './signing-organization.js';

const ROOT = join(fileURLToPath(import.meta.url), '../..');

/** Counts every statement (and BEGIN, COMMIT) a driver sends, from `reset()` on. */
class CountingDriver implements SqlDriver {
  readonly kind: 'pg' | 'pglite';
  statements = 0;
  transactions = 0;
  constructor(
    private readonly inner: SqlDriver,
    /** Round trips BEGIN and COMMIT take together (pg sends BEGIN with its SETs at once). */
    private readonly perTransaction: number,
  ) {
    this.kind = inner.kind;
  }
  reset(): void {
    this.statements = 0;
    this.transactions = 0;
  }
  transaction<T>(work: (client: SqlClient) => Promise<T>): Promise<T> {
    this.transactions++;
    this.statements += this.perTransaction;
    return this.inner.transaction((client) =>
      work({
        query: (text, params, fixed, last) => {
          this.statements++;
          return client.query(text, params, fixed, last);
        },
        exec: (script) => {
          this.statements++;
          return client.exec(script);
        },
      }),
    );
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

/** A memory store whose transactions count the repository calls made in them. */
class CountingMemoryStore extends MemoryStore {
  calls = 0;
  transactions = 0;
  reset(): void {
    this.calls = 0;
    this.transactions = 0;
  }
  override transaction<T>(work: Parameters<MemoryStore['transaction']>[0]): Promise<T> {
    this.transactions++;
    return super.transaction((tx) => {
      const counted = new Proxy(tx, {
        get: (target, name) => {
          const member = Reflect.get(target, name);
          if (typeof member === 'function') {
            return (...args: unknown[]) => {
              this.calls++;
              return member.apply(target, args);
            };
          }
          if (typeof member !== 'object' || member === null) return member;
          return new Proxy(member, {
            get: (repo, method) => {
              const fn = Reflect.get(repo, method);
              if (typeof fn !== 'function') return fn;
              return (...args: unknown[]) => {
                this.calls++;
                return fn.apply(repo, args);
              };
            },
          });
        },
      });
      return work(counted) as Promise<T>;
    }) as Promise<T>;
  }
}

type Counter = { reset(): void; read(): string };

async function measure(name: string, store: unknown, counter: Counter): Promise<void> {
  const { key, keyhold, organizationId, client, address } = await signingOrganization(
    store as BenchStore,
    'round trips',
  );
  const sign = signRawPayloadParameters;
  const rows: [string, string][] = [];
  const count = async (what: string, run: () => Promise<unknown>) => {
    await run(); // warm: caches (compiled policies, schemas) filled
    counter.reset();
    await run();
    rows.push([what, counter.read()]);
  };
  let n = 0;
  await count('sign_raw_payload, root user', () =>
    client.submit('ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2', sign(address, ++n)),
  );
  await count('sign_raw_payload that fails (unknown signWith)', () =>
    client.submit(
      'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2',
      sign('0x000000000000000000000000000000000000dEaD', ++n),
    ),
  );
  // The very same bytes twice: the second is answered from the stored activity.
  const stamper = createApiKeyStamper(key.privateKey);
  const text = JSON.stringify({
    type: 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2',
    timestampMs: String(Date.now()),
    organizationId,
    parameters: sign(address, ++n),
  });
  await count('the same body again (its stored activity)', async () => {
    const response = await keyhold.handle({
      method: 'POST',
      path: '/public/v1/submit/sign_raw_payload',
      headers: { 'content-type': 'application/json', 'x-stamp': stamper.stamp(text) },
      rawBody: new TextEncoder().encode(text),
    });
    if (response.status !== 200) throw new Error(`HTTP ${response.status}: ${response.body}`);
  });
  await client.run('ACTIVITY_TYPE_CREATE_POLICY_V3', {
    policyName: 'signing',
    effect: 'EFFECT_ALLOW',
    condition: "activity.resource == 'PRIVATE_KEY' && activity.action == 'SIGN'",
    notes: '',
  });
  await count('sign_raw_payload, root user, one ALLOW policy', () =>
    client.submit('ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2', sign(address, ++n)),
  );
  await keyhold.close();
  console.log(`\n${name}`);
  for (const [what, counts] of rows) console.log(`  ${what.padEnd(52)} ${counts}`);
}

const memory = new CountingMemoryStore();
await measure('memory (repository calls)', memory, {
  reset: () => memory.reset(),
  read: () => `${memory.transactions} transaction(s), ${memory.calls} repository calls`,
});

// PGlite as `createPgliteStore` opens it in memory: the session keeps the schema's search_path.
const requireFromStore = createRequire(join(ROOT, 'adapters/store-postgres/package.json'));
const { PGlite } = (await import(requireFromStore.resolve('@electric-sql/pglite'))) as {
  PGlite: { create(): Promise<ConstructorParameters<typeof PgliteDriver>[0]> };
};
const db = await PGlite.create();
await db.exec('SET search_path TO public');
const pglite = new CountingDriver(new PgliteDriver(db, 'public', () => db.close(), true), 0);
// BEGIN, COMMIT and ROLLBACK as the driver sends them (PGlite's `transaction` sends each as a
// simple Query message, 'Q'): counted where they reach PGlite, so a transaction that runs its
// statements alone counts none.
const exchange = db.execProtocolStream.bind(db);
db.execProtocolStream = (message, options) => {
  if (message[0] === 0x51) {
    const text = new TextDecoder().decode(message.subarray(5, message.length - 1)).trim();
    if (/^(BEGIN|COMMIT|ROLLBACK)$/i.test(text)) pglite.statements++;
  }
  return exchange(message, options);
};
const { store: pgliteStore } = await SqlStore.open(pglite, { schema: 'public' });
await measure('PGlite (statements, BEGIN and COMMIT included)', pgliteStore, {
  reset: () => pglite.reset(),
  read: () => `${pglite.transactions} transaction(s), ${pglite.statements} statements`,
});

const admin = new pg.Pool({ connectionString: POSTGRES_URL, max: 1 });
try {
  await admin.query('SELECT 1');
} catch (error) {
  console.log(`\nPostgres skipped: ${POSTGRES_URL} is not reachable (${String(error)})`);
  await admin.end();
  process.exit(0);
}
const schema = `keyhold_round_trips_${process.pid}`;
try {
  // As `createPostgresStore` and `keyhold serve --postgres` open it: the driver owns its pool,
  // so it sets each connection's session once and sends BEGIN at a transaction's first write.
  let roundTrips = 0;
  const postgres = new CountingDriver(
    new PgDriver(
      observedPool(POSTGRES_URL, 2, () => roundTrips++),
      schema,
      true,
    ),
    0,
  );
  const { store: pgStore } = await SqlStore.open(postgres, { schema });
  await measure('Postgres (round trips, BEGIN and COMMIT included)', pgStore, {
    reset: () => {
      postgres.reset();
      roundTrips = 0;
    },
    read: () => `${postgres.transactions} transaction(s), ${roundTrips} round trips`,
  });
} finally {
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => {});
  await admin.end().catch(() => {});
}

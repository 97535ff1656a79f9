/**
 * Which Store a server runs on, and the master key that goes with it: in memory (a random key
 * unless one is given), embedded PGlite in a data directory (the key file beside it), or a
 * Postgres server shared by many instances (the key from the environment, so all share it).
 * @module
 */
import type { Store } from '@keyhold/activities';
import { MemoryStore } from '@keyhold/store-memory';
import { generateMasterKey } from '@keyhold/vault-software';
import { hexToBytes } from '@noble/hashes/utils.js';
import { makePrivate, openDataDirectory } from './data-directory.js';
import { settleDataDirectoryKey, storedDerivationRoot } from './master-key-rotation.js';

export const DEFAULT_DATA_DIR = '.keyhold/data';

export type StoreChoice =
  | { kind: 'memory' }
  | { kind: 'data'; dir: string }
  | { kind: 'postgres'; url: string };

export interface OpenedStore {
  kind: StoreChoice['kind'];
  store: Store;
  masterKey: Uint8Array;
  /** What the published keys derive from (see master-key-rotation.ts); the master key until a rotation. */
  derivationRoot: Uint8Array;
}

export class StoreConfigurationError extends Error {
  override name = 'StoreConfigurationError';
}

export async function openStore(
  choice: StoreChoice,
  options: { env: 'development' | 'production'; masterKeyHex?: string },
): Promise<OpenedStore> {
  const given = options.masterKeyHex ? hexToBytes(options.masterKeyHex) : undefined;
  switch (choice.kind) {
    case 'memory': {
      if (!given && options.env === 'production') {
        throw new StoreConfigurationError(
          'production needs KEYHOLD_MASTER_KEY; refusing to generate one',
        );
      }
      const masterKey = given ?? generateMasterKey();
      return { kind: 'memory', store: new MemoryStore(), masterKey, derivationRoot: masterKey };
    }
    case 'data': {
      const dir = await openDataDirectory(choice.dir, {
        env: options.env,
        ...(options.masterKeyHex ? { masterKeyHex: options.masterKeyHex } : {}),
      });
      // Loaded here, not at the top: embedding @keyhold/server loads no database driver.
      const { createPgliteStore } = await import('@keyhold/store-postgres');
      // PGlite on the request thread: on a worker (`thread: 'worker'`) each statement is a
      // message each way, and the worker holds PGlite's one transaction while it waits for the
      // next — measured slower (bench/README.md, "PGlite on a worker thread").
      const store = await createPgliteStore({ dataDir: dir.pgdata });
      let keys: { masterKey: Uint8Array; derivationRoot: Uint8Array };
      try {
        // A rotation cut short is finished or discarded before anything opens a secret.
        keys = await settleDataDirectoryKey(dir.root, store, dir.masterKey);
      } catch (error) {
        await store.close();
        throw new StoreConfigurationError(`--data ${dir.root}: ${(error as Error).message}`);
      }
      await makePrivate(dir.root);
      const close = store.close.bind(store);
      store.close = async () => {
        await close();
        await makePrivate(dir.root);
      };
      return { kind: 'data', store, ...keys };
    }
    case 'postgres': {
      if (!given) {
        throw new StoreConfigurationError(
          '--postgres needs KEYHOLD_MASTER_KEY (64 hex characters), shared by every instance',
        );
      }
      const { createPostgresStore } = await import('@keyhold/store-postgres');
      const store = await createPostgresStore(postgresTarget(choice.url));
      let root: Uint8Array | undefined;
      try {
        root = await storedDerivationRoot(store, given);
      } catch (error) {
        await store.close();
        throw new StoreConfigurationError(`KEYHOLD_MASTER_KEY: ${(error as Error).message}`);
      }
      return { kind: 'postgres', store, masterKey: given, derivationRoot: root ?? given };
    }
  }
}

/**
 * A `--postgres` URL as the store takes it: its `schema` query parameter (the schema Keyhold's
 * tables live in; default `public`) and `pool_max` (the most connections the instance opens;
 * default 10, `pg`'s) taken out, the rest passed to the driver as it is.
 * @throws Error when `pool_max` is not an integer from 1 to 1000
 * @example
 * postgresTarget('postgres://db/keyhold?schema=tenant_a&pool_max=4');
 * // { connectionString: 'postgres://db/keyhold', schema: 'tenant_a', poolOptions: { max: 4 } }
 */
export function postgresTarget(url: string): {
  connectionString: string;
  schema?: string;
  poolOptions?: { max: number };
} {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { connectionString: url };
  }
  const schema = parsed.searchParams.get('schema');
  const poolMax = parsed.searchParams.get('pool_max');
  if (schema === null && poolMax === null) return { connectionString: url };
  parsed.searchParams.delete('schema');
  parsed.searchParams.delete('pool_max');
  const max = poolMax === null ? undefined : Number(poolMax);
  if (max !== undefined && !(Number.isInteger(max) && max >= 1 && max <= 1000)) {
    throw new Error(`--postgres: pool_max must be an integer from 1 to 1000, got "${poolMax}"`);
  }
  return {
    connectionString: parsed.toString(),
    ...(schema === null ? {} : { schema }),
    ...(max === undefined ? {} : { poolOptions: { max } }),
  };
}

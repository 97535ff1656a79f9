/**
 * Opening a store for the operator commands (`whoami`, `audit`): `--data DIR` (refused while a
 * running server holds it, and never created when absent) or `--postgres URL`. No master key:
 * these commands read nothing sealed.
 * @module
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Store } from '@keyhold/activities';
import { DEFAULT_DATA_DIR, postgresTarget } from './store-selection.js';

/** The store flags these commands take (also `KEYHOLD_DATA`, `KEYHOLD_POSTGRES_URL`). */
export const STORE_OPTIONS = {
  data: { type: 'string' },
  postgres: { type: 'string' },
} as const;

/** Why a store could not be opened, for the command to print (exit 2). */
export class StoreUnreadableError extends Error {
  override readonly name = 'StoreUnreadableError';
}

/**
 * The store named by `--data` or `--postgres` (default: the default data directory).
 * @throws StoreUnreadableError naming the flag
 * @example
 * const store = await openStoreForReading({ data: '.keyhold/data' });
 */
export async function openStoreForReading(values: {
  data?: string | undefined;
  postgres?: string | undefined;
}): Promise<Store> {
  if (values.data !== undefined && values.postgres !== undefined) {
    throw new StoreUnreadableError('choose one of --data and --postgres');
  }
  const { createPgliteStore, createPostgresStore } = await import('@keyhold/store-postgres');
  try {
    if (values.postgres !== undefined) {
      return await createPostgresStore(postgresTarget(values.postgres));
    }
    const dir = values.data ?? DEFAULT_DATA_DIR;
    const pgdata = join(dir, 'pgdata');
    // Opening an absent directory would create an empty store: say there is none instead.
    if (!existsSync(pgdata)) {
      throw new StoreUnreadableError(
        `--data ${dir} holds no Keyhold data (no ${pgdata}); start keyhold serve first`,
      );
    }
    return await createPgliteStore({ dataDir: pgdata });
  } catch (error) {
    if (error instanceof StoreUnreadableError) throw error;
    throw new StoreUnreadableError(error instanceof Error ? error.message : String(error));
  }
}

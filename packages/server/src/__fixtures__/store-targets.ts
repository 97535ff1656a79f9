/**
 * The stores HTTP tests run on: memory, and embedded PGlite from the dumped template (the SQL
 * path, quickly). Each entry opens its store; `closeStoreTargets()` (in `afterAll`) closes the
 * PGlite databases opened beside the servers.
 */
import type { Store } from '@keyhold/activities';
import { createPgliteStore } from '@keyhold/store-postgres';
import { templatePglite } from '../../../../adapters/store-postgres/src/testing/pglite-template.js';

const disposers: (() => Promise<void>)[] = [];

/** `[name, open]` pairs for `describe.each`; `open()` gives the `store` option of a server. */
export const STORE_TARGETS: [string, () => Promise<{ store?: Store }>][] = [
  ['memory', async () => ({})],
  [
    'embedded PGlite',
    async () => {
      const pglite = await templatePglite();
      disposers.push(() => pglite.close());
      return { store: await createPgliteStore({ pglite }) };
    },
  ],
];

/** Closes every PGlite database a target opened (after the servers on them are closed). */
export async function closeStoreTargets(): Promise<void> {
  for (const dispose of disposers.splice(0)) await dispose();
}

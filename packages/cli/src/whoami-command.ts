/**
 * `keyhold whoami`: the root organizations a store holds, read straight from the store — the
 * way back to an organization id after a restart without bootstrap flags, when no listening
 * line prints it. No key is needed (nothing sealed is read); a data directory a running server
 * holds is refused (ask that server instead).
 * @module
 */
import type { Store } from '@keyhold/activities';
import { resolveSettings } from './configuration.js';
import { openStoreForReading, STORE_OPTIONS, StoreUnreadableError } from './read-only-store.js';
import { DEFAULT_DATA_DIR } from './store-selection.js';

const HELP = `usage: keyhold whoami [--data DIR | --postgres URL]

Prints the root organizations the store holds, one JSON line each, oldest first:
  {"organizationId": "…", "name": "Keyhold", "rootUserIds": ["…"], "rootQuorumThreshold": 1,
   "createdAt": "2026-11-26T07:30:00.000Z"}
--data DIR is the embedded store (default ${DEFAULT_DATA_DIR}), and must not be held by a
running keyhold serve: ask that server instead (POST /public/v1/query/whoami). --postgres URL
reads a Postgres store. Also KEYHOLD_DATA, KEYHOLD_POSTGRES_URL and --config, as serve takes them.
`;

export async function runWhoamiCommand(args: string[]): Promise<number> {
  const { values, help } = resolveSettings(args, STORE_OPTIONS, process.env, [
    ['data', 'postgres'],
  ]);
  if (help) {
    process.stdout.write(HELP);
    return 0;
  }
  const fail = (message: string) => {
    process.stderr.write(`keyhold whoami: ${message}\n`);
    return 2;
  };
  let store: Store;
  try {
    store = await openStoreForReading(values);
  } catch (error) {
    if (error instanceof StoreUnreadableError) return fail(error.message);
    throw error;
  }
  try {
    const roots = await store.transaction((tx) => tx.organizations.listRoots());
    for (const org of roots) {
      process.stdout.write(
        `${JSON.stringify({
          organizationId: org.organizationId,
          name: org.name,
          rootUserIds: org.rootQuorum.userIds,
          rootQuorumThreshold: org.rootQuorum.threshold,
          createdAt: new Date(org.createdAt).toISOString(),
        })}\n`,
      );
    }
    if (roots.length === 0)
      process.stderr.write('keyhold whoami: the store holds no organization\n');
    return 0;
  } finally {
    await store.close?.();
  }
}

/**
 * `keyhold whoami`: the root organizations a store holds, read straight from the store — the
 * way back to an organization id after a restart without bootstrap flags, when no listening
 * line prints it. No key is needed (nothing sealed is read); a data directory a running server
 * holds is refused (ask that server instead).
 * @module
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Store } from '@keyhold/activities';
import { resolveSettings } from './configuration.js';
import { DEFAULT_DATA_DIR } from './store-selection.js';

const HELP = `usage: keyhold whoami [--data DIR | --postgres URL]

Prints the root organizations the store holds, one JSON line each, oldest first:
  {"organizationId": "…", "name": "Keyhold", "rootUserIds": ["…"], "rootQuorumThreshold": 1,
   "createdAt": "2026-11-26T07:30:00.000Z"}
--data DIR is the embedded store (default ${DEFAULT_DATA_DIR}), and must not be held by a
running keyhold serve: ask that server instead (POST /public/v1/query/whoami). --postgres URL
reads a Postgres store. Also KEYHOLD_DATA, KEYHOLD_POSTGRES_URL and --config, as serve takes them.
`;

const WHOAMI_OPTIONS = {
  data: { type: 'string' },
  postgres: { type: 'string' },
} as const;

export async function runWhoamiCommand(args: string[]): Promise<number> {
  const { values, help } = resolveSettings(args, WHOAMI_OPTIONS, process.env, [
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
  if (values.data !== undefined && values.postgres !== undefined) {
    return fail('choose one of --data and --postgres\n  (keyhold whoami --help)');
  }
  const { createPgliteStore, createPostgresStore } = await import('@keyhold/store-postgres');
  let store: Store;
  try {
    if (values.postgres !== undefined) {
      store = await createPostgresStore({ connectionString: values.postgres });
    } else {
      const dir = values.data ?? DEFAULT_DATA_DIR;
      const pgdata = join(dir, 'pgdata');
      // Opening an absent directory would create an empty store: say there is none instead.
      if (!existsSync(pgdata)) {
        return fail(
          `--data ${dir} holds no Keyhold data (no ${pgdata}); start keyhold serve first`,
        );
      }
      store = await createPgliteStore({ dataDir: pgdata });
    }
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error));
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

/**
 * `keyhold master-key rotate`: re-seals every secret of the software vault under a new master
 * key in one transaction (see master-key-rotation.ts for what changes and what does not). The
 * server must be stopped: a data directory a server holds is refused, and with Postgres every
 * instance must restart with the new key anyway.
 * @module
 */
import { existsSync } from 'node:fs';
import { chmod, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SqlStore } from '@keyhold/store-postgres';
import { generateMasterKey, masterKeyFromHex } from '@keyhold/vault-software';
import { resolveSettings } from './configuration.js';
import { openDataDirectory } from './data-directory.js';
import {
  keyFiles,
  keyHex,
  MasterKeyMismatchError,
  rotateMasterKey,
  settleDataDirectoryKey,
} from './master-key-rotation.js';
import { STORE_OPTIONS } from './read-only-store.js';
import { DEFAULT_DATA_DIR, postgresTarget } from './store-selection.js';

const HELP = `usage: keyhold master-key rotate [--data DIR | --postgres URL]

Re-seals every wallet seed, wallet-account key and private key of the software vault under a
new master key, in one database transaction: interrupted, the data stays under the old key.
Stop the server first.

  --data DIR       the embedded store (default ${DEFAULT_DATA_DIR}): the current key is its
                   master.key (or KEYHOLD_MASTER_KEY); the new one is generated (or
                   KEYHOLD_NEW_MASTER_KEY) and replaces master.key once the transaction commits.
  --postgres URL   a Postgres store: the current key is KEYHOLD_MASTER_KEY, the new one
                   KEYHOLD_NEW_MASTER_KEY (required); restart every instance with the new key.

The published keys (signer, notarizer, TLS fetcher, webhook; what clients pin) do not change:
they derive from a root kept sealed beside the secrets, which until the first rotation is the
first master key. Prints one JSON line: {"seeds": n, "keys": n, "skipped": n}.
`;

const USAGE = 'usage: keyhold master-key rotate [--data DIR | --postgres URL]   (--help)';

export async function runMasterKeyCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === '--help' || sub === '-h' || sub === 'help') {
    process.stdout.write(HELP);
    return 0;
  }
  if (sub !== 'rotate') {
    process.stderr.write(
      `keyhold master-key: ${sub === undefined ? 'name a subcommand' : `unknown subcommand "${sub}"`}\n${USAGE}\n`,
    );
    return 2;
  }
  const { values, help } = resolveSettings(rest, STORE_OPTIONS, process.env, [
    ['data', 'postgres'],
  ]);
  if (help) {
    process.stdout.write(HELP);
    return 0;
  }
  const fail = (message: string) => {
    process.stderr.write(`keyhold master-key rotate: ${message}\n`);
    return 2;
  };
  let to: Uint8Array;
  try {
    const given = process.env.KEYHOLD_NEW_MASTER_KEY;
    to = given ? masterKeyFromHex(given) : generateMasterKey();
  } catch {
    return fail('KEYHOLD_NEW_MASTER_KEY must be 64 hex characters (32 bytes)');
  }
  try {
    return values.postgres !== undefined
      ? await rotatePostgres(values.postgres, to, fail)
      : await rotateDataDirectory(values.data ?? DEFAULT_DATA_DIR, to, fail);
  } catch (error) {
    if (error instanceof MasterKeyMismatchError) return fail(error.message);
    throw error;
  }
}

/** A test-only fault: the process dies at a chosen step (`before-commit`, `after-commit`). */
const faultAt = async (step: 'before-commit' | 'after-commit') => {
  if (process.env.KEYHOLD_TEST_ROTATE_FAULT === step) process.kill(process.pid, 'SIGKILL');
};

function printReport(report: object): void {
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

async function rotatePostgres(
  url: string,
  to: Uint8Array,
  fail: (message: string) => number,
): Promise<number> {
  const current = process.env.KEYHOLD_MASTER_KEY;
  if (!current) return fail('--postgres needs KEYHOLD_MASTER_KEY (the current key)');
  if (!process.env.KEYHOLD_NEW_MASTER_KEY) {
    return fail('--postgres needs KEYHOLD_NEW_MASTER_KEY (the new key every instance will use)');
  }
  let from: Uint8Array;
  try {
    from = masterKeyFromHex(current);
  } catch {
    return fail('KEYHOLD_MASTER_KEY must be 64 hex characters (32 bytes)');
  }
  const { createPostgresStore } = await import('@keyhold/store-postgres');
  const store = await createPostgresStore(postgresTarget(url));
  try {
    const report = await rotateMasterKey(store, from, to, {
      beforeCommit: () => faultAt('before-commit'),
    });
    printReport(report);
    process.stderr.write(
      'keyhold master-key rotate: done; restart every instance with KEYHOLD_MASTER_KEY set to the new key\n',
    );
    return 0;
  } finally {
    await store.close();
  }
}

async function rotateDataDirectory(
  dir: string,
  to: Uint8Array,
  fail: (message: string) => number,
): Promise<number> {
  if (!existsSync(join(dir, 'pgdata'))) {
    return fail(`--data ${dir} holds no Keyhold data (no ${join(dir, 'pgdata')})`);
  }
  const given = process.env.KEYHOLD_MASTER_KEY;
  const opened = await openDataDirectory(dir, {
    env: 'production', // never generate a key here: the data is under one already
    ...(given ? { masterKeyHex: given } : {}),
  }).catch((error: Error) => error);
  if (opened instanceof Error) return fail(opened.message);
  const { createPgliteStore } = await import('@keyhold/store-postgres');
  let store: SqlStore;
  try {
    store = await createPgliteStore({ dataDir: opened.pgdata });
  } catch (error) {
    return fail((error as Error).message);
  }
  const files = keyFiles(dir);
  try {
    const { masterKey: from } = await settleDataDirectoryKey(dir, store, opened.masterKey);
    process.umask(0o077);
    // The new key is on disk before the commit, so a commit is never left without its key.
    await writeFile(files.next, `${keyHex(to)}\n`, { mode: 0o600 });
    await chmod(files.next, 0o600);
    let report: object;
    try {
      report = await rotateMasterKey(store, from, to, {
        beforeCommit: () => faultAt('before-commit'),
      });
    } catch (error) {
      await rm(files.next, { force: true });
      throw error;
    }
    await faultAt('after-commit');
    await store.close();
    await rename(files.next, files.current);
    printReport(report);
    if (given) {
      process.stderr.write(
        `keyhold master-key rotate: done; KEYHOLD_MASTER_KEY no longer matches: use the new key in ${files.current}\n`,
      );
    }
    return 0;
  } finally {
    await store.close();
  }
}

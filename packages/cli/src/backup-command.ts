/**
 * `keyhold backup` and `keyhold restore`: the embedded store (`--data DIR`) to one file and
 * back, through PGlite's own dump of its data directory (a gzipped tarball). The backup holds
 * the database only — sealed secrets, never the master key: keep the key (DIR/master.key)
 * apart, and give it back to `restore` as KEYHOLD_MASTER_KEY. Both commands need the server
 * stopped (a directory a running server holds is refused).
 * @module
 */
import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { SqlStore } from '@keyhold/store-postgres';
import { masterKeyFromHex, resealSecret } from '@keyhold/vault-software';
import { makePrivate } from './data-directory.js';
import {
  keyFiles,
  keyHex,
  MasterKeyMismatchError,
  storedDerivationRoot,
} from './master-key-rotation.js';
import { DEFAULT_DATA_DIR } from './store-selection.js';

const BACKUP_HELP = `usage: keyhold backup [--data DIR] --out FILE

Writes the embedded store of DIR (default ${DEFAULT_DATA_DIR}) to FILE (mode 0600), a gzipped
tarball of its database. The server must be stopped. The backup holds sealed secrets but NOT
the master key: keep DIR/master.key (or KEYHOLD_MASTER_KEY) apart; restore needs it.
Also KEYHOLD_DATA.
`;

const RESTORE_HELP = `usage: keyhold restore [--data DIR] --from FILE      (KEYHOLD_MASTER_KEY=… in the environment)

Recreates the embedded store of DIR (default ${DEFAULT_DATA_DIR}; it must hold no database
yet) from a file \`keyhold backup\` wrote, writes KEYHOLD_MASTER_KEY as DIR/master.key, and
checks that the key opens the restored secrets (refusing, and removing nothing else, if not).
Also KEYHOLD_DATA.
`;

const OPTIONS = {
  data: { type: 'string' },
  out: { type: 'string' },
  from: { type: 'string' },
  help: { type: 'boolean' },
} as const;

/** Usage errors of these commands (main.ts prints them with the help hint, exit 2). */
class BackupUsageError extends Error {
  readonly code = 'ERR_PARSE_ARGS_BACKUP';
}

function settingsOf(args: string[]) {
  const { values } = parseArgs({ args, options: OPTIONS, allowPositionals: false });
  return { ...values, data: values.data ?? process.env.KEYHOLD_DATA ?? DEFAULT_DATA_DIR };
}

/** Refuses a data directory a running process holds (PGlite's lock, see store-postgres). */
function assertNotRunning(pgdata: string): void {
  const lock = join(pgdata, 'keyhold.lock');
  if (!existsSync(lock)) return;
  const pid = Number.parseInt(readFileSync(lock, 'utf8'), 10);
  if (!Number.isInteger(pid)) return;
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as { code?: string }).code !== 'EPERM') return; // a stale lock
  }
  throw new BackupUsageError(`${pgdata} is in use by process ${pid}; stop the server first`);
}

export async function runBackupCommand(args: string[]): Promise<number> {
  const values = settingsOf(args);
  if (values.help) {
    process.stdout.write(BACKUP_HELP);
    return 0;
  }
  if (values.out === undefined) throw new BackupUsageError('--out FILE is required');
  const pgdata = join(values.data, 'pgdata');
  if (!existsSync(pgdata)) {
    throw new BackupUsageError(`--data ${values.data} holds no Keyhold data (no ${pgdata})`);
  }
  if (existsSync(keyFiles(values.data).next)) {
    throw new BackupUsageError(
      `--data ${values.data}: a master-key rotation was cut short; start keyhold serve once (it settles it) or rotate again, then back up`,
    );
  }
  assertNotRunning(pgdata);
  const { PGlite } = await import('@electric-sql/pglite');
  const db = await PGlite.create(pgdata);
  try {
    const dump = await db.dumpDataDir('gzip');
    process.umask(0o077);
    await writeFile(values.out, new Uint8Array(await dump.arrayBuffer()), { mode: 0o600 });
    await chmod(values.out, 0o600);
  } finally {
    await db.close();
    await makePrivate(values.data);
  }
  process.stdout.write(`${JSON.stringify({ backup: values.out, data: values.data })}\n`);
  process.stderr.write(
    'keyhold backup: the backup does not hold the master key; keep it apart (restore needs it)\n',
  );
  return 0;
}

/** Whether `masterKey` opens the store's secrets: the sealed root, else one seed or key. */
async function assertKeyOpens(store: SqlStore, masterKey: Uint8Array): Promise<void> {
  if ((await storedDerivationRoot(store, masterKey)) !== undefined) return;
  const rows = await store.sqlTransaction((sql) =>
    sql.query<{ sealed: string }>(
      `(SELECT seed AS sealed FROM wallets WHERE seed LIKE 'ksw1.%' LIMIT 1)
       UNION ALL (SELECT key AS sealed FROM private_keys WHERE key LIKE 'ksw1.%' LIMIT 1)`,
    ),
  );
  for (const { sealed } of rows) {
    try {
      resealSecret(masterKey, masterKey, sealed);
    } catch {
      throw new MasterKeyMismatchError(
        'KEYHOLD_MASTER_KEY does not open the secrets of this backup; give the key the data was under',
      );
    }
  }
}

export async function runRestoreCommand(args: string[]): Promise<number> {
  const values = settingsOf(args);
  if (values.help) {
    process.stdout.write(RESTORE_HELP);
    return 0;
  }
  if (values.from === undefined) throw new BackupUsageError('--from FILE is required');
  const fail = (message: string) => {
    process.stderr.write(`keyhold restore: ${message}\n`);
    return 2;
  };
  const hex = process.env.KEYHOLD_MASTER_KEY;
  if (!hex) return fail('KEYHOLD_MASTER_KEY (the key the backed-up data is under) is required');
  let masterKey: Uint8Array;
  try {
    masterKey = masterKeyFromHex(hex);
  } catch {
    return fail('KEYHOLD_MASTER_KEY must be 64 hex characters (32 bytes)');
  }
  const pgdata = join(values.data, 'pgdata');
  const files = keyFiles(values.data);
  if (existsSync(pgdata)) {
    return fail(`--data ${values.data} already holds a database; restore into a new directory`);
  }
  if (existsSync(files.current)) {
    const stored = (await readFile(files.current, 'utf8')).trim().toLowerCase();
    if (stored !== keyHex(masterKey)) {
      return fail(
        `${files.current} holds another key than KEYHOLD_MASTER_KEY; restore into a new directory`,
      );
    }
  }
  let dump: Uint8Array;
  try {
    dump = await readFile(values.from);
  } catch (error) {
    return fail(`--from ${values.from}: ${(error as Error).message}`);
  }
  process.umask(0o077);
  await mkdir(values.data, { recursive: true, mode: 0o700 });
  const { PGlite } = await import('@electric-sql/pglite');
  try {
    const db = await PGlite.create(pgdata, { loadDataDir: new Blob([new Uint8Array(dump)]) });
    await db.close();
  } catch (error) {
    return fail(`--from ${values.from} is not a Keyhold backup: ${(error as Error).message}`);
  }
  const { createPgliteStore } = await import('@keyhold/store-postgres');
  const store = await createPgliteStore({ dataDir: pgdata }); // migrates an older backup
  try {
    await assertKeyOpens(store, masterKey);
  } catch (error) {
    await store.close();
    const { rm } = await import('node:fs/promises');
    await rm(pgdata, { recursive: true, force: true });
    if (error instanceof MasterKeyMismatchError) return fail(error.message);
    throw error;
  }
  await store.close();
  await writeFile(files.current, `${keyHex(masterKey)}\n`, { mode: 0o600 });
  await makePrivate(values.data);
  process.stdout.write(`${JSON.stringify({ restored: values.from, data: values.data })}\n`);
  return 0;
}

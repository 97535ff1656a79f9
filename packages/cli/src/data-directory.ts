/**
 * Keyhold's data directory: `pgdata/` (the embedded PGlite database) and `master.key` (the
 * software vault's master key, generated on first start in development). The key file sits
 * beside the database, never inside it, so a copy of the database alone decrypts nothing.
 * @module
 */
import { chmod, lstat, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generateMasterKey } from '@keyhold/vault-software';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';

export interface DataDirectory {
  root: string;
  /** The PGlite data directory. */
  pgdata: string;
  masterKey: Uint8Array;
}

export class DataDirectoryError extends Error {
  override name = 'DataDirectoryError';
}

const HEX_KEY = /^[0-9a-fA-F]{64}$/;

/**
 * Refuses a data directory that anyone but this user could read, write or replace: the
 * embedded database creates its files 0666 (PGlite ignores the mode it is asked for), so the
 * directory's own mode is what keeps API keys, policies and sealed secrets private.
 */
async function assertPrivateDirectory(root: string): Promise<void> {
  const info = await lstat(root);
  if (info.isSymbolicLink() || !info.isDirectory()) {
    throw new DataDirectoryError(
      `--data ${root} is not a directory (a symbolic link or a file); give a directory of its own`,
    );
  }
  const uid = process.getuid?.();
  if (uid !== undefined && info.uid !== uid) {
    throw new DataDirectoryError(
      `--data ${root} belongs to user ${info.uid}, not to the user running Keyhold (${uid}); run Keyhold as its owner or choose another --data directory`,
    );
  }
  const mode = info.mode & 0o777;
  if ((mode & 0o077) !== 0) {
    throw new DataDirectoryError(
      `--data ${root} is open to other users (mode ${mode.toString(8).padStart(4, '0')}); its API keys and policies must be private: run \`chmod 700 ${root}\` or choose another --data directory`,
    );
  }
}

/**
 * Opens (creating if needed, mode 0700) a data directory that only this user can use (see
 * `assertPrivateDirectory`) and settles its master key: the environment's `KEYHOLD_MASTER_KEY`
 * if set (it must match a key file already there), else the key file, else — in development
 * only — a new key written with mode 0600.
 * @throws DataDirectoryError naming the problem and the fix
 */
export async function openDataDirectory(
  root: string,
  options: { env: 'development' | 'production'; masterKeyHex?: string },
): Promise<DataDirectory> {
  await mkdir(root, { recursive: true, mode: 0o700 });
  await assertPrivateDirectory(root);
  const keyFile = join(root, 'master.key');
  let stored: string | undefined;
  try {
    stored = (await readFile(keyFile, 'utf8')).trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (stored !== undefined && !HEX_KEY.test(stored)) {
    throw new DataDirectoryError(`${keyFile} is not a 64-hex-character master key`);
  }
  const given = options.masterKeyHex?.toLowerCase();
  if (given !== undefined && stored !== undefined && given !== stored.toLowerCase()) {
    throw new DataDirectoryError(
      `KEYHOLD_MASTER_KEY does not match ${keyFile}; refusing to start with a key that cannot open this data`,
    );
  }
  let hex = given ?? stored;
  if (hex === undefined) {
    if (options.env === 'production') {
      throw new DataDirectoryError('production needs KEYHOLD_MASTER_KEY; refusing to generate one');
    }
    hex = bytesToHex(generateMasterKey());
    await writeFile(keyFile, `${hex}\n`, { mode: 0o600, flag: 'wx' });
    await chmod(keyFile, 0o600);
  }
  return { root, pgdata: join(root, 'pgdata'), masterKey: hexToBytes(hex) };
}

/**
 * Takes group and world access off everything under `dir` (files 0600, directories 0700).
 * PGlite creates its files 0666 and chmods them so, whatever the umask; the data directory's
 * own 0700 already keeps other users out while the server runs, and this walk, run when the
 * database is opened and again when it is closed, leaves nothing open at rest either (a copy
 * of the directory, a later `chmod 755` of it).
 */
export async function makePrivate(dir: string): Promise<void> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isSymbolicLink()) continue;
    if (entry.isDirectory()) {
      await chmod(path, 0o700);
      await makePrivate(path);
    } else {
      await chmod(path, 0o600);
    }
  }
}

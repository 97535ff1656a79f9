/**
 * Keyhold's data directory: `pgdata/` (the embedded PGlite database) and `master.key` (the
 * software vault's master key, generated on first start in development). The key file sits
 * beside the database, never inside it, so a copy of the database alone decrypts nothing.
 * @module
 */
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
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
 * Opens (creating if needed) a data directory and settles its master key: the environment's
 * `KEYHOLD_MASTER_KEY` if set (it must match a key file already there), else the key file,
 * else — in development only — a new key written with mode 0600.
 */
export async function openDataDirectory(
  root: string,
  options: { env: 'development' | 'production'; masterKeyHex?: string },
): Promise<DataDirectory> {
  await mkdir(root, { recursive: true, mode: 0o700 });
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

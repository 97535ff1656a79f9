/**
 * Rotating the software vault's master key, and what a start-up does about it.
 *
 * `rotateMasterKey` re-seals every secret of the software vault (wallet seeds, wallet-account
 * keys, private keys) under the new key in ONE database transaction, and in the same
 * transaction stores the derivation root sealed under the new key (`vault_state`). Either all
 * of it commits or none of it does: interrupted before the commit, the data is still entirely
 * under the old key.
 *
 * The derivation root is what the published keys are derived from (the signer, notarizer,
 * TLS-fetcher and webhook keys, and through the TLS-fetcher encryption key the key OAuth 2
 * client secrets are sealed under). Until the first rotation it is the master key itself; a
 * rotation keeps it (the first one stores the old master key as the root), so those keys —
 * which clients pin — do not change, and OAuth 2 client secrets need no re-sealing. The cost:
 * whoever holds the FIRST master key can still derive those published keys' private halves and
 * open OAuth 2 client secrets. Changing the root too (after a leak of that first key) is not
 * built yet: it would change every published key and re-seal the OAuth 2 client secrets.
 *
 * With a data directory the new key is written to `master.key.next` before the transaction and
 * renamed over `master.key` after it. `settleDataDirectoryKey` (every start) finishes or
 * discards a rotation cut short between the two: the sealed root tells which key the data is
 * under.
 * @module
 */
import { existsSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { SqlClient, SqlStore } from '@keyhold/store-postgres';
import {
  isSoftwareSealed,
  openDerivationRoot,
  resealSecret,
  sealDerivationRoot,
} from '@keyhold/vault-software';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';

const ROOT = 'derivation-root';

/** The data is not under the key given: nothing was changed. */
export class MasterKeyMismatchError extends Error {
  override readonly name = 'MasterKeyMismatchError';
}

/** What a rotation changed. */
export interface RotationReport {
  /** Wallet seeds re-sealed. */
  seeds: number;
  /** Wallet-account and private keys re-sealed. */
  keys: number;
  /** Values left as they are: held by another vault (a PKCS#11 handle). */
  skipped: number;
}

/**
 * The derivation root stored in the database, opened with `masterKey`; `undefined` before any
 * rotation (the root is then the master key itself).
 * @throws MasterKeyMismatchError when `masterKey` does not open it
 * @example
 * const root = (await storedDerivationRoot(store, masterKey)) ?? masterKey;
 */
export async function storedDerivationRoot(
  store: SqlStore,
  masterKey: Uint8Array,
): Promise<Uint8Array | undefined> {
  const rows = await store.sqlTransaction((sql) =>
    sql.query<{ sealed: string }>('SELECT sealed FROM vault_state WHERE name = $1', [ROOT]),
  );
  const sealed = rows[0]?.sealed;
  if (sealed === undefined) return undefined;
  try {
    return openDerivationRoot(masterKey, sealed);
  } catch {
    throw new MasterKeyMismatchError(
      'the master key does not open this data (it was rotated to another key); give the current key',
    );
  }
}

async function resealColumn(
  sql: SqlClient,
  table: 'wallets' | 'wallet_accounts' | 'private_keys',
  id: string,
  column: 'seed' | 'key',
  reseal: (sealed: string) => string,
  report: { moved: number; skipped: number },
): Promise<void> {
  const rows = await sql.query<{ organization_id: string; id: string; sealed: string }>(
    `SELECT organization_id, ${id} AS id, ${column} AS sealed FROM ${table} FOR UPDATE`,
  );
  for (const row of rows) {
    if (!isSoftwareSealed(row.sealed)) {
      report.skipped++;
      continue;
    }
    await sql.query(
      `UPDATE ${table} SET ${column} = $3 WHERE organization_id = $1 AND ${id} = $2`,
      [row.organization_id, row.id, reseal(row.sealed)],
    );
    report.moved++;
  }
}

/**
 * Re-seals every software-vault secret under `to` in one transaction (see the module doc).
 * `beforeCommit` runs inside the transaction once everything is re-sealed (tests interrupt
 * the process there).
 * @throws MasterKeyMismatchError when `from` does not open the data; nothing is changed
 * @example
 * const report = await rotateMasterKey(store, oldKey, generateMasterKey());
 */
export async function rotateMasterKey(
  store: SqlStore,
  from: Uint8Array,
  to: Uint8Array,
  options: { beforeCommit?: () => Promise<void> } = {},
): Promise<RotationReport> {
  return store.sqlTransaction(async (sql) => {
    const stored = await sql.query<{ sealed: string }>(
      'SELECT sealed FROM vault_state WHERE name = $1 FOR UPDATE',
      [ROOT],
    );
    let root: Uint8Array;
    try {
      root = stored[0] ? openDerivationRoot(from, stored[0].sealed) : from.slice();
    } catch {
      throw new MasterKeyMismatchError(
        'the current master key does not open this data; nothing was changed',
      );
    }
    const reseal = (sealed: string) => {
      try {
        return resealSecret(from, to, sealed);
      } catch {
        throw new MasterKeyMismatchError(
          'a sealed secret does not open under the current master key; nothing was changed',
        );
      }
    };
    const seeds = { moved: 0, skipped: 0 };
    const keys = { moved: 0, skipped: 0 };
    await resealColumn(sql, 'wallets', 'wallet_id', 'seed', reseal, seeds);
    await resealColumn(sql, 'wallet_accounts', 'wallet_account_id', 'key', reseal, keys);
    await resealColumn(sql, 'private_keys', 'private_key_id', 'key', reseal, keys);

    await sql.query(
      `INSERT INTO vault_state (name, sealed, updated_at) VALUES ($1, $2, $3)
       ON CONFLICT (name) DO UPDATE SET sealed = EXCLUDED.sealed, updated_at = EXCLUDED.updated_at`,
      [ROOT, sealDerivationRoot(to, root), Date.now()],
    );
    root.fill(0);
    await options.beforeCommit?.();
    return {
      seeds: seeds.moved,
      keys: keys.moved,
      skipped: seeds.skipped + keys.skipped,
    };
  });
}

/** Where a data directory's master key, and a rotation's pending one, live. */
export const keyFiles = (dir: string) => ({
  current: join(dir, 'master.key'),
  next: join(dir, 'master.key.next'),
});

/**
 * Finishes or discards a rotation of a data directory that stopped between its commit and the
 * rename of `master.key.next` (see the module doc), and returns the master key the data is
 * under with its derivation root.
 * @throws MasterKeyMismatchError when neither key opens the data
 * @example
 * const { masterKey, derivationRoot } = await settleDataDirectoryKey(dir, store, masterKey);
 */
export async function settleDataDirectoryKey(
  dir: string,
  store: SqlStore,
  masterKey: Uint8Array,
): Promise<{ masterKey: Uint8Array; derivationRoot: Uint8Array }> {
  const { current, next } = keyFiles(dir);
  if (existsSync(next)) {
    const { readFile } = await import('node:fs/promises');
    const hex = (await readFile(next, 'utf8')).trim();
    let nextKey: Uint8Array | undefined;
    try {
      nextKey = hexToBytes(hex);
      const root = await storedDerivationRoot(store, nextKey);
      if (root === undefined) nextKey = undefined;
      else {
        // The rotation committed: the data is under the new key; finish it.
        await rename(next, current);
        return { masterKey: nextKey, derivationRoot: root };
      }
    } catch {
      nextKey = undefined;
    }
    // The rotation did not commit: the data is still under the old key.
    await rm(next, { force: true });
  }
  const root = await storedDerivationRoot(store, masterKey);
  return { masterKey, derivationRoot: root ?? masterKey };
}

/** Hex of a key, for the key files. */
export const keyHex = (key: Uint8Array) => bytesToHex(key);

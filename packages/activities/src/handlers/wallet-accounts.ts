/**
 * Deriving wallet accounts, shared by CREATE_WALLET and CREATE_WALLET_ACCOUNTS: BIP32 paths
 * only, one account per path in a wallet, and an address format the curve supports.
 * @module
 */
import { parseDerivationPath, type VaultKey } from '@keyhold/keys';
import { type AccountParams, KeyholdError } from '@keyhold/protocol';
import { bytesToHex } from '@noble/hashes/utils.js';
import type { WalletAccountRecord, WalletRecord } from '../records.js';
import type { ActivityContext } from './activity-handler.js';
import { assertAddressFormatFits } from './address-format-check.js';

/** Refuses bad paths, repeated paths and formats the curve cannot produce. */
export function precheckAccounts(accounts: readonly AccountParams[]): void {
  const paths = new Set<string>();
  for (const account of accounts) {
    parseDerivationPath(account.path, account.curve);
    if (paths.has(account.path)) {
      throw new KeyholdError('INVALID_PATH', {
        path: account.path,
        reason: 'path repeated in request',
      });
    }
    paths.add(account.path);
    assertAddressFormatFits(account.addressFormat, account.curve);
  }
}

/**
 * Accounts per derivation or address job: a Taproot account costs about a millisecond in each
 * (a child derivation, then the BIP341 tweak), so a job of 25 keeps one worker busy for tens of
 * milliseconds at most and lets the jobs of other requests in between.
 */
const ACCOUNTS_PER_JOB = 25;

/**
 * Derives and stores the accounts; returns their addresses in request order. Derivation (in the
 * vault: `deriveKeys`, which shares the paths' common nodes, when it has it) and addresses
 * (`ctx.work`) run in the server's CryptoWorkPool, one job at a time per request, so a wallet of
 * a hundred accounts neither blocks the event loop nor takes every worker.
 */
export async function addAccounts(
  ctx: ActivityContext,
  wallet: WalletRecord,
  accounts: readonly AccountParams[],
): Promise<string[]> {
  for (const account of accounts) {
    if (
      await ctx.tx.walletAccounts.findByPath(wallet.organizationId, wallet.walletId, account.path)
    ) {
      throw new KeyholdError('INVALID_PATH', {
        path: account.path,
        reason: 'path already used in this wallet',
      });
    }
  }
  const derived: VaultKey[] = [];
  for (let start = 0; start < accounts.length; start += ACCOUNTS_PER_JOB) {
    const chunk = accounts.slice(start, start + ACCOUNTS_PER_JOB);
    if (ctx.vault.deriveKeys) {
      derived.push(...(await ctx.vault.deriveKeys(wallet.seed, chunk)));
    } else {
      for (const { curve, path } of chunk) {
        derived.push(await ctx.vault.deriveKey(wallet.seed, curve, path));
      }
    }
  }
  const addresses: string[] = [];
  for (let start = 0; start < accounts.length; start += ACCOUNTS_PER_JOB) {
    const items = accounts.slice(start, start + ACCOUNTS_PER_JOB).map((account, i) => ({
      curve: account.curve,
      publicKey: (derived[start + i] as VaultKey).publicKey,
      formats: [account.addressFormat],
    }));
    for (const [address] of await ctx.work.run('addresses', { items })) {
      addresses.push(address as string);
    }
  }
  for (const [i, account] of accounts.entries()) {
    const key = derived[i] as VaultKey;
    const record: WalletAccountRecord = {
      organizationId: wallet.organizationId,
      walletId: wallet.walletId,
      walletAccountId: ctx.ids.uuid(),
      curve: account.curve,
      pathFormat: account.pathFormat,
      path: account.path,
      addressFormat: account.addressFormat,
      address: addresses[i] as string,
      publicKey: bytesToHex(key.publicKey),
      key: key.key,
      exported: false,
      createdAt: ctx.now,
      updatedAt: ctx.now,
    };
    await ctx.tx.walletAccounts.insert(record);
  }
  return addresses;
}

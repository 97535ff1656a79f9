/**
 * Deriving wallet accounts, shared by CREATE_WALLET and CREATE_WALLET_ACCOUNTS: BIP32 paths
 * only, one account per path in a wallet, and an address format the curve supports.
 * @module
 */
import { deriveAddress, parseDerivationPath } from '@keyhold/keys';
import { type AddressFormat, type Curve, KeyholdError, type PathFormat } from '@keyhold/protocol';
import { bytesToHex } from '@noble/hashes/utils.js';
import type { WalletAccountRecord, WalletRecord } from '../records.js';
import type { ActivityContext } from './activity-handler.js';
import { assertAddressFormatFits } from './address-format-check.js';

export interface AccountParams {
  curve: Curve;
  pathFormat: PathFormat;
  path: string;
  addressFormat: AddressFormat;
}

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

/** Derives and stores the accounts; returns their addresses in request order. */
export async function addAccounts(
  ctx: ActivityContext,
  wallet: WalletRecord,
  accounts: readonly AccountParams[],
): Promise<string[]> {
  const addresses: string[] = [];
  for (const account of accounts) {
    if (
      await ctx.tx.walletAccounts.findByPath(wallet.organizationId, wallet.walletId, account.path)
    ) {
      throw new KeyholdError('INVALID_PATH', {
        path: account.path,
        reason: 'path already used in this wallet',
      });
    }
    const derived = await ctx.vault.deriveKey(wallet.seed, account.curve, account.path);
    const address = deriveAddress(account.addressFormat, account.curve, derived.publicKey);
    const record: WalletAccountRecord = {
      organizationId: wallet.organizationId,
      walletId: wallet.walletId,
      walletAccountId: ctx.ids.uuid(),
      curve: account.curve,
      pathFormat: account.pathFormat,
      path: account.path,
      addressFormat: account.addressFormat,
      address,
      publicKey: bytesToHex(derived.publicKey),
      key: derived.key,
      exported: false,
      createdAt: ctx.now,
      updatedAt: ctx.now,
    };
    await ctx.tx.walletAccounts.insert(record);
    addresses.push(address);
  }
  return addresses;
}

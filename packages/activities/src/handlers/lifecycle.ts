/**
 * DISABLE_PRIVATE_KEY, DELETE_PRIVATE_KEYS, DELETE_WALLETS and DELETE_WALLET_ACCOUNTS.
 * Unless `deleteWithoutExport` is true, only exported records may be deleted: a wallet
 * account counts as exported when it was exported itself (EXPORT_WALLET_ACCOUNT) or its
 * whole wallet was (EXPORT_WALLET). Every id is checked before anything is removed, so a
 * batch with one bad id changes nothing.
 * @module
 */
import { KeyholdError } from '@keyhold/protocol';
import type { PrivateKeyRecord, WalletAccountRecord, WalletRecord } from '../records.js';
import type { ActivityContext, HandlerOf } from './activity-handler.js';

const unique = (ids: readonly string[]) => [...new Set(ids.map((id) => id.toLowerCase()))];

async function requirePrivateKey(ctx: ActivityContext, id: string): Promise<PrivateKeyRecord> {
  const key = await ctx.tx.privateKeys.get(ctx.organization.organizationId, id.toLowerCase());
  if (!key) throw new KeyholdError('PRIVATE_KEY_NOT_FOUND', { privateKeyId: id });
  return key;
}

async function requireWallet(ctx: ActivityContext, id: string): Promise<WalletRecord> {
  const wallet = await ctx.tx.wallets.get(ctx.organization.organizationId, id.toLowerCase());
  if (!wallet) throw new KeyholdError('WALLET_NOT_FOUND', { walletId: id });
  return wallet;
}

/** The account with this id in the organization (accounts are not looked up by id alone). */
async function findAccount(
  ctx: ActivityContext,
  walletAccountId: string,
): Promise<WalletAccountRecord | undefined> {
  const accounts = await ctx.tx.walletAccounts.list(ctx.organization.organizationId);
  return accounts.find((a) => a.walletAccountId === walletAccountId);
}

export const disablePrivateKeyHandler: HandlerOf<'DISABLE_PRIVATE_KEY'> = {
  async execute(ctx, p) {
    const key = await requirePrivateKey(ctx, p.privateKeyId);
    if (!key.disabled) {
      await ctx.tx.privateKeys.update({ ...key, disabled: true, updatedAt: ctx.now });
    }
    return { privateKeyId: key.privateKeyId };
  },
};

export const deletePrivateKeysHandler: HandlerOf<'DELETE_PRIVATE_KEYS'> = {
  async execute(ctx, p) {
    const keys: PrivateKeyRecord[] = [];
    for (const id of unique(p.privateKeyIds)) {
      const key = await requirePrivateKey(ctx, id);
      if (!p.deleteWithoutExport && !key.exported) {
        throw new KeyholdError('PRIVATE_KEY_NOT_EXPORTED', { privateKeyId: key.privateKeyId });
      }
      keys.push(key);
    }
    for (const key of keys) await ctx.tx.privateKeys.delete(key.organizationId, key.privateKeyId);
    const { vault } = ctx;
    if (vault.destroyKey) {
      for (const key of keys) {
        // After the commit: a rolled-back deletion must not leave a record whose key is gone.
        ctx.afterCommit(`destroy the vault key of private key ${key.privateKeyId}`, () =>
          vault.destroyKey!(key.key),
        );
      }
    }
    return { privateKeyIds: keys.map((k) => k.privateKeyId) };
  },
};

export const deleteWalletsHandler: HandlerOf<'DELETE_WALLETS'> = {
  async execute(ctx, p) {
    const wallets: WalletRecord[] = [];
    for (const id of unique(p.walletIds)) {
      const wallet = await requireWallet(ctx, id);
      if (!p.deleteWithoutExport && !wallet.exported) {
        throw new KeyholdError('WALLET_NOT_EXPORTED', { walletId: wallet.walletId });
      }
      wallets.push(wallet);
    }
    for (const w of wallets) {
      await ctx.tx.walletAccounts.deleteByWallet(w.organizationId, w.walletId);
      await ctx.tx.wallets.delete(w.organizationId, w.walletId);
    }
    return { walletIds: wallets.map((w) => w.walletId) };
  },
};

export const deleteWalletAccountsHandler: HandlerOf<'DELETE_WALLET_ACCOUNTS'> = {
  async execute(ctx, p) {
    const accounts: WalletAccountRecord[] = [];
    const exportedWallet = new Map<string, boolean>();
    for (const id of unique(p.walletAccountIds)) {
      const account = await findAccount(ctx, id);
      if (!account) {
        throw new KeyholdError('WALLET_ACCOUNT_NOT_IN_ORGANIZATION', { walletAccountId: id });
      }
      if (!p.deleteWithoutExport && !account.exported) {
        // Not exported by itself: it still counts as exported when its whole wallet was.
        let walletExported = exportedWallet.get(account.walletId);
        if (walletExported === undefined) {
          const wallet = await ctx.tx.wallets.get(account.organizationId, account.walletId);
          walletExported = wallet?.exported ?? false;
          exportedWallet.set(account.walletId, walletExported);
        }
        if (!walletExported) {
          throw new KeyholdError('WALLET_ACCOUNT_NOT_EXPORTED', { walletAccountId: id });
        }
      }
      accounts.push(account);
    }
    for (const a of accounts)
      await ctx.tx.walletAccounts.delete(a.organizationId, a.walletAccountId);
    return { walletAccountIds: accounts.map((a) => a.walletAccountId) };
  },
};

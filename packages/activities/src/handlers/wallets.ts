/**
 * CREATE_WALLET, CREATE_WALLET_ACCOUNTS and UPDATE_WALLET.
 * @module
 */
import { KeyholdError } from '@keyhold/protocol';
import type { WalletRecord } from '../records.js';
import type { HandlerOf } from './activity-handler.js';
import { addAccounts, precheckAccounts } from './wallet-accounts.js';

const DEFAULT_MNEMONIC_LENGTH = 12;

export const createWalletHandler: HandlerOf<'CREATE_WALLET'> = {
  precheck: (p) => precheckAccounts(p.accounts),
  async execute(ctx, p) {
    const mnemonicLength = p.mnemonicLength ?? DEFAULT_MNEMONIC_LENGTH;
    const wallet: WalletRecord = {
      organizationId: ctx.organization.organizationId,
      walletId: ctx.ids.uuid(),
      walletName: p.walletName,
      seed: await ctx.vault.createSeed(mnemonicLength),
      mnemonicLength,
      exported: false,
      imported: false,
      createdAt: ctx.now,
      updatedAt: ctx.now,
    };
    await ctx.tx.wallets.insert(wallet);
    const addresses = await addAccounts(ctx, wallet, p.accounts);
    return { walletId: wallet.walletId, addresses };
  },
};

export const createWalletAccountsHandler: HandlerOf<'CREATE_WALLET_ACCOUNTS'> = {
  precheck: (p) => precheckAccounts(p.accounts),
  async execute(ctx, p) {
    const wallet = await ctx.tx.wallets.get(ctx.organization.organizationId, p.walletId);
    if (!wallet) throw new KeyholdError('WALLET_NOT_FOUND', { walletId: p.walletId });
    return { addresses: await addAccounts(ctx, wallet, p.accounts) };
  },
};

export const updateWalletHandler: HandlerOf<'UPDATE_WALLET'> = {
  async execute(ctx, p) {
    const wallet = await ctx.tx.wallets.get(ctx.organization.organizationId, p.walletId);
    if (!wallet) throw new KeyholdError('WALLET_NOT_FOUND', { walletId: p.walletId });
    if (p.walletName !== undefined) wallet.walletName = p.walletName;
    wallet.updatedAt = ctx.now;
    await ctx.tx.wallets.update(wallet);
    return { walletId: wallet.walletId };
  },
};

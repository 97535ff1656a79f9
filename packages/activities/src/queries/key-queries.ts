/**
 * Wallets, wallet accounts and private keys.
 * @module
 */
import { KeyholdError } from '@keyhold/protocol';
import { addressKey } from '../ports/store.js';
import type { WalletAccountRecord } from '../records.js';
import { privateKeyView, walletAccountView, walletView } from '../views.js';
import type { QueryHandlerOf } from './query-handler.js';

export const DEFAULT_ACCOUNT_PAGE_LIMIT = 100;

export const listWallets: QueryHandlerOf<'list_wallets'> = async (ctx) => ({
  wallets: (await ctx.tx.wallets.list(ctx.organization.organizationId)).map(walletView),
});

export const getWallet: QueryHandlerOf<'get_wallet'> = async (ctx, body) => {
  const wallet = await ctx.tx.wallets.get(
    ctx.organization.organizationId,
    body.walletId.toLowerCase(),
  );
  if (!wallet) throw new KeyholdError('WALLET_NOT_FOUND', { walletId: body.walletId });
  return { wallet: walletView(wallet) };
};

export const listWalletAccounts: QueryHandlerOf<'list_wallet_accounts'> = async (ctx, body) => {
  const orgId = ctx.organization.organizationId;
  const walletId = body.walletId?.toLowerCase();
  if (walletId && !(await ctx.tx.wallets.get(orgId, walletId))) {
    throw new KeyholdError('WALLET_NOT_FOUND', { walletId: body.walletId });
  }
  const page = body.paginationOptions ?? {};
  const accounts = await ctx.tx.walletAccounts.list(orgId, walletId, {
    limit: page.limit ? Number(page.limit) : DEFAULT_ACCOUNT_PAGE_LIMIT,
    ...(page.after ? { after: page.after.toLowerCase() } : {}),
    ...(page.before ? { before: page.before.toLowerCase() } : {}),
  });
  const wallets = body.includeWalletDetails
    ? new Map((await ctx.tx.wallets.list(orgId)).map((w) => [w.walletId, w]))
    : undefined;
  return { accounts: accounts.map((a) => walletAccountView(a, wallets?.get(a.walletId))) };
};

export const getWalletAccount: QueryHandlerOf<'get_wallet_account'> = async (ctx, body) => {
  const orgId = ctx.organization.organizationId;
  const walletId = body.walletId.toLowerCase();
  let account: WalletAccountRecord | undefined;
  if (body.address !== undefined) {
    account = await ctx.tx.walletAccounts.findByAddress(orgId, body.address);
    if (account && account.walletId !== walletId) account = undefined;
  } else if (body.path !== undefined) {
    account = await ctx.tx.walletAccounts.findByPath(orgId, walletId, body.path);
  } else {
    throw new KeyholdError('REQUEST_INVALID', { reason: 'address or path is required' });
  }
  if (!account) {
    throw new KeyholdError('WALLET_ACCOUNT_NOT_FOUND', {
      walletId: body.walletId,
      ...(body.address !== undefined ? { address: addressKey(body.address) } : { path: body.path }),
    });
  }
  return { account: walletAccountView(account) };
};

export const listPrivateKeys: QueryHandlerOf<'list_private_keys'> = async (ctx) => ({
  privateKeys: (await ctx.tx.privateKeys.list(ctx.organization.organizationId)).map(privateKeyView),
});

export const getPrivateKey: QueryHandlerOf<'get_private_key'> = async (ctx, body) => {
  const key = await ctx.tx.privateKeys.get(
    ctx.organization.organizationId,
    body.privateKeyId.toLowerCase(),
  );
  if (!key) throw new KeyholdError('PRIVATE_KEY_NOT_FOUND', { privateKeyId: body.privateKeyId });
  return { privateKey: privateKeyView(key) };
};

/**
 * Export and import of wallets and keys, in the HPKE bundle formats the published
 * `@turnkey/crypto` helpers read and write (wire-compat §3). Export bundles are signed by the
 * server's signer key; import targets are derived per user from that key, so no state is
 * kept between INIT_IMPORT_* and IMPORT_* and every instance opens the same bundles.
 * Every export marks what it exported (the wallet, the private key, or the one wallet
 * account), which lets DELETE_* remove it without `deleteWithoutExport`.
 * @module
 */
import {
  createExportBundle,
  createImportTarget,
  deriveAddress,
  deriveImportTargetKey,
  openImportBundle,
  parseImportedMnemonic,
  parseImportedPrivateKey,
} from '@keyhold/keys';
import { KeyholdError } from '@keyhold/protocol';
import { bytesToHex } from '@noble/hashes/utils.js';
import type { PrivateKeyRecord, WalletRecord } from '../records.js';
import type { ActivityContext, HandlerOf } from './activity-handler.js';
import { assertAddressFormatFits } from './address-format-check.js';
import { addAccounts, precheckAccounts } from './wallet-accounts.js';

const utf8 = (text: string) => new TextEncoder().encode(text);

function exportTo(
  ctx: ActivityContext,
  plaintext: Uint8Array,
  targetPublicKey: string,
): Promise<string> {
  return createExportBundle({
    plaintext,
    targetPublicKey,
    organizationId: ctx.organization.organizationId,
    signer: ctx.signer,
  });
}

async function requireUser(ctx: ActivityContext, userId: string): Promise<string> {
  const id = userId.toLowerCase();
  if (!(await ctx.tx.users.get(ctx.organization.organizationId, id))) {
    throw new KeyholdError('USER_NOT_FOUND', { userId });
  }
  return id;
}

function importTarget(ctx: ActivityContext, userId: string) {
  const organizationId = ctx.organization.organizationId;
  return deriveImportTargetKey(ctx.signer.privateKey, organizationId, userId);
}

export const exportWalletHandler: HandlerOf<'EXPORT_WALLET'> = {
  precheck(p) {
    if (p.language !== undefined && p.language !== 'MNEMONIC_LANGUAGE_ENGLISH') {
      throw new KeyholdError('REQUEST_INVALID', {
        field: '/parameters/language',
        reason: 'only English mnemonics are supported',
      });
    }
  },
  async execute(ctx, p) {
    const wallet = await ctx.tx.wallets.get(
      ctx.organization.organizationId,
      p.walletId.toLowerCase(),
    );
    if (!wallet) throw new KeyholdError('WALLET_NOT_FOUND', { walletId: p.walletId });
    const exportBundle = await exportTo(
      ctx,
      utf8(await ctx.vault.revealMnemonic(wallet.seed)),
      p.targetPublicKey,
    );
    await ctx.tx.wallets.update({ ...wallet, exported: true, updatedAt: ctx.now });
    return { walletId: wallet.walletId, exportBundle };
  },
};

export const exportPrivateKeyHandler: HandlerOf<'EXPORT_PRIVATE_KEY'> = {
  async execute(ctx, p) {
    const key = await ctx.tx.privateKeys.get(
      ctx.organization.organizationId,
      p.privateKeyId.toLowerCase(),
    );
    if (!key) throw new KeyholdError('PRIVATE_KEY_NOT_FOUND', { privateKeyId: p.privateKeyId });
    const secret = await ctx.vault.revealKey(key.key);
    try {
      const exportBundle = await exportTo(ctx, secret, p.targetPublicKey);
      await ctx.tx.privateKeys.update({ ...key, exported: true, updatedAt: ctx.now });
      return { privateKeyId: key.privateKeyId, exportBundle };
    } finally {
      secret.fill(0);
    }
  },
};

export const exportWalletAccountHandler: HandlerOf<'EXPORT_WALLET_ACCOUNT'> = {
  async execute(ctx, p) {
    const account = await ctx.tx.walletAccounts.findByAddress(
      ctx.organization.organizationId,
      p.address,
    );
    if (!account) throw new KeyholdError('WALLET_ACCOUNT_NOT_FOUND', { address: p.address });
    const secret = await ctx.vault.revealKey(account.key);
    try {
      const exportBundle = await exportTo(ctx, secret, p.targetPublicKey);
      // This account only: its wallet's other accounts (and the seed) stay unexported.
      await ctx.tx.walletAccounts.markExported(
        account.organizationId,
        account.walletAccountId,
        ctx.now,
      );
      return { address: account.address, exportBundle };
    } finally {
      secret.fill(0);
    }
  },
};

/** INIT_IMPORT_WALLET and INIT_IMPORT_PRIVATE_KEY take and answer the same. */
const initImport: HandlerOf<'INIT_IMPORT_WALLET'> & HandlerOf<'INIT_IMPORT_PRIVATE_KEY'> = {
  async execute(ctx, p) {
    const userId = await requireUser(ctx, p.userId);
    const { importBundle } = createImportTarget({
      organizationId: ctx.organization.organizationId,
      userId,
      signer: ctx.signer,
      targetPrivateKey: importTarget(ctx, userId),
    });
    return { importBundle };
  },
};
export const initImportWalletHandler = initImport;
export const initImportPrivateKeyHandler = initImport;

export const importWalletHandler: HandlerOf<'IMPORT_WALLET'> = {
  precheck: (p) => precheckAccounts(p.accounts),
  async execute(ctx, p) {
    const userId = await requireUser(ctx, p.userId);
    const plaintext = await openImportBundle({
      encryptedBundle: p.encryptedBundle,
      targetPrivateKey: importTarget(ctx, userId),
    });
    const mnemonic = parseImportedMnemonic(plaintext);
    plaintext.fill(0);
    const wallet: WalletRecord = {
      organizationId: ctx.organization.organizationId,
      walletId: ctx.ids.uuid(),
      walletName: p.walletName,
      seed: await ctx.vault.importSeed(mnemonic),
      mnemonicLength: mnemonic.split(' ').length,
      exported: false,
      imported: true,
      createdAt: ctx.now,
      updatedAt: ctx.now,
    };
    await ctx.tx.wallets.insert(wallet);
    return { walletId: wallet.walletId, addresses: await addAccounts(ctx, wallet, p.accounts) };
  },
};

export const importPrivateKeyHandler: HandlerOf<'IMPORT_PRIVATE_KEY'> = {
  precheck(p) {
    for (const format of p.addressFormats ?? []) assertAddressFormatFits(format, p.curve);
  },
  async execute(ctx, p) {
    const userId = await requireUser(ctx, p.userId);
    const plaintext = await openImportBundle({
      encryptedBundle: p.encryptedBundle,
      targetPrivateKey: importTarget(ctx, userId),
    });
    const secret = parseImportedPrivateKey(p.curve, plaintext);
    plaintext.fill(0);
    try {
      const vaultKey = await ctx.vault.importKey(p.curve, secret);
      const addresses = [...new Set(p.addressFormats ?? [])].map((format) => ({
        format,
        address: deriveAddress(format, p.curve, vaultKey.publicKey),
      }));
      const record: PrivateKeyRecord = {
        organizationId: ctx.organization.organizationId,
        privateKeyId: ctx.ids.uuid(),
        privateKeyName: p.privateKeyName,
        curve: p.curve,
        publicKey: bytesToHex(vaultKey.publicKey),
        addresses,
        privateKeyTags: [],
        key: vaultKey.key,
        exported: false,
        imported: true,
        disabled: false,
        createdAt: ctx.now,
        updatedAt: ctx.now,
      };
      await ctx.tx.privateKeys.insert(record);
      return { privateKeyId: record.privateKeyId, addresses };
    } finally {
      secret.fill(0);
    }
  },
};

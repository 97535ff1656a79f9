/**
 * The wallets table.
 * @module
 */
import type { WalletRecord } from '@keyhold/activities';
import { fieldColumns, type TableSpec } from '../table-spec.js';

/**
 * HD wallets of an organization (their accounts are WALLET_ACCOUNTS).
 * @example
 * WALLETS.table; // 'wallets'
 */
export const WALLETS: TableSpec<WalletRecord> = {
  table: 'wallets',
  fields: fieldColumns<WalletRecord>({
    organizationId: 'text',
    walletId: 'text',
    walletName: 'text',
    seed: 'text',
    mnemonicLength: 'integer',
    exported: 'boolean',
    imported: 'boolean',
    createdAt: 'integer',
    updatedAt: 'integer',
  }),
  scope: 'organizationId',
  primaryKey: {
    name: 'wallet_pkey',
    sqlName: 'wallets_pkey',
    fields: ['organizationId', 'walletId'],
  },
  createdAt: 'createdAt',
};

/**
 * The wallets table.
 * @module
 */
import type { WalletRecord } from '@keyhold/activities';
import type { TableSpec } from '../table-spec.js';

/**
 * HD wallets of an organization (their accounts are WALLET_ACCOUNTS).
 * @example
 * WALLETS.table; // 'wallets'
 */
export const WALLETS: TableSpec<WalletRecord> = {
  table: 'wallets',
  fields: [
    { field: 'organizationId', column: 'organization_id', type: 'text' },
    { field: 'walletId', column: 'wallet_id', type: 'text' },
    { field: 'walletName', column: 'wallet_name', type: 'text' },
    { field: 'seed', column: 'seed', type: 'text' },
    { field: 'mnemonicLength', column: 'mnemonic_length', type: 'integer' },
    { field: 'exported', column: 'exported', type: 'boolean' },
    { field: 'imported', column: 'imported', type: 'boolean' },
    { field: 'createdAt', column: 'created_at', type: 'integer' },
    { field: 'updatedAt', column: 'updated_at', type: 'integer' },
  ],
  scope: 'organizationId',
  primaryKey: {
    name: 'wallet_pkey',
    sqlName: 'wallets_pkey',
    fields: ['organizationId', 'walletId'],
  },
  createdAt: 'createdAt',
};

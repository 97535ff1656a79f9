/**
 * The wallet accounts table.
 * @module
 */
import { addressKey, type WalletAccountRecord } from '@keyhold/activities';
import { fieldColumns, type TableSpec } from '../table-spec.js';

/**
 * Accounts of the wallets of an organization; a path is unique in its wallet. Listed in
 * creation order and found by address or public key by the stores' own queries; `address_key`
 * is what the address lookups compare.
 * @example
 * WALLET_ACCOUNTS.unique?.[0]?.name; // 'wallet_account_path'
 */
export const WALLET_ACCOUNTS: TableSpec<WalletAccountRecord> = {
  table: 'wallet_accounts',
  fields: fieldColumns<WalletAccountRecord>({
    organizationId: 'text',
    walletId: 'text',
    walletAccountId: 'text',
    curve: 'text',
    pathFormat: 'text',
    path: 'text',
    addressFormat: 'text',
    address: 'text',
    publicKey: 'text',
    key: 'text',
    exported: 'boolean',
    createdAt: 'integer',
    updatedAt: 'integer',
  }),
  derived: [{ column: 'address_key', type: 'text', value: (r) => addressKey(r.address) }],
  scope: 'organizationId',
  primaryKey: {
    name: 'wallet_account_pkey',
    sqlName: 'wallet_accounts_pkey',
    fields: ['organizationId', 'walletAccountId'],
  },
  unique: [
    {
      name: 'wallet_account_path',
      sqlName: 'wallet_accounts_path_key',
      fields: ['organizationId', 'walletId', 'path'],
    },
  ],
};

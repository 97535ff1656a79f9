/**
 * The wallet accounts table.
 * @module
 */
import { addressKey, type WalletAccountRecord } from '@keyhold/activities';
import type { TableSpec } from '../table-spec.js';

/**
 * Accounts of the wallets of an organization; a path is unique in its wallet. Listed in
 * creation order and found by address or public key by the stores' own queries; `address_key`
 * is what the address lookups compare.
 * @example
 * WALLET_ACCOUNTS.unique?.[0]?.name; // 'wallet_account_path'
 */
export const WALLET_ACCOUNTS: TableSpec<WalletAccountRecord> = {
  table: 'wallet_accounts',
  fields: [
    { field: 'organizationId', column: 'organization_id', type: 'text' },
    { field: 'walletId', column: 'wallet_id', type: 'text' },
    { field: 'walletAccountId', column: 'wallet_account_id', type: 'text' },
    { field: 'curve', column: 'curve', type: 'text' },
    { field: 'pathFormat', column: 'path_format', type: 'text' },
    { field: 'path', column: 'path', type: 'text' },
    { field: 'addressFormat', column: 'address_format', type: 'text' },
    { field: 'address', column: 'address', type: 'text' },
    { field: 'publicKey', column: 'public_key', type: 'text' },
    { field: 'key', column: 'key', type: 'text' },
    { field: 'exported', column: 'exported', type: 'boolean' },
    { field: 'createdAt', column: 'created_at', type: 'integer' },
    { field: 'updatedAt', column: 'updated_at', type: 'integer' },
  ],
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

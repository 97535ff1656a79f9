/**
 * The private keys table.
 * @module
 */
import { addressKey, type PrivateKeyRecord } from '@keyhold/activities';
import { fieldColumns, type TableSpec } from '../table-spec.js';

/**
 * Standalone private keys of an organization; `address_keys` is what the address lookup
 * compares (each address once).
 * @example
 * PRIVATE_KEYS.derived?.[0]?.column; // 'address_keys'
 */
export const PRIVATE_KEYS: TableSpec<PrivateKeyRecord> = {
  table: 'private_keys',
  fields: fieldColumns<PrivateKeyRecord>({
    organizationId: 'text',
    privateKeyId: 'text',
    privateKeyName: 'text',
    curve: 'text',
    publicKey: 'text',
    addresses: 'json',
    privateKeyTags: 'text[]',
    key: 'text',
    exported: 'boolean',
    imported: 'boolean',
    disabled: 'boolean',
    createdAt: 'integer',
    updatedAt: 'integer',
  }),
  derived: [
    {
      column: 'address_keys',
      type: 'text[]',
      value: (r) => [...new Set(r.addresses.map((a) => addressKey(a.address)))],
    },
  ],
  scope: 'organizationId',
  primaryKey: {
    name: 'private_key_pkey',
    sqlName: 'private_keys_pkey',
    fields: ['organizationId', 'privateKeyId'],
  },
  createdAt: 'createdAt',
};

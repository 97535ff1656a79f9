/**
 * The private keys table.
 * @module
 */
import { addressKey, type PrivateKeyRecord } from '@keyhold/activities';
import type { TableSpec } from '../table-spec.js';

/**
 * Standalone private keys of an organization; `address_keys` is what the address lookup
 * compares (each address once).
 * @example
 * PRIVATE_KEYS.derived?.[0]?.column; // 'address_keys'
 */
export const PRIVATE_KEYS: TableSpec<PrivateKeyRecord> = {
  table: 'private_keys',
  fields: [
    { field: 'organizationId', column: 'organization_id', type: 'text' },
    { field: 'privateKeyId', column: 'private_key_id', type: 'text' },
    { field: 'privateKeyName', column: 'private_key_name', type: 'text' },
    { field: 'curve', column: 'curve', type: 'text' },
    { field: 'publicKey', column: 'public_key', type: 'text' },
    { field: 'addresses', column: 'addresses', type: 'json' },
    { field: 'privateKeyTags', column: 'private_key_tags', type: 'text[]' },
    { field: 'key', column: 'key', type: 'text' },
    { field: 'exported', column: 'exported', type: 'boolean' },
    { field: 'imported', column: 'imported', type: 'boolean' },
    { field: 'disabled', column: 'disabled', type: 'boolean' },
    { field: 'createdAt', column: 'created_at', type: 'integer' },
    { field: 'updatedAt', column: 'updated_at', type: 'integer' },
  ],
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

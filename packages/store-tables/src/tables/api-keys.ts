/**
 * The API keys table.
 * @module
 */
import type { ApiKeyRecord } from '@keyhold/activities';
import type { TableSpec } from '../table-spec.js';

/**
 * API keys of an organization's users; a public key is unique in its organization.
 * @example
 * API_KEYS.unique?.[0]?.name; // 'api_key_public_key'
 */
export const API_KEYS: TableSpec<ApiKeyRecord> = {
  table: 'api_keys',
  fields: [
    { field: 'organizationId', column: 'organization_id', type: 'text' },
    { field: 'userId', column: 'user_id', type: 'text' },
    { field: 'apiKeyId', column: 'api_key_id', type: 'text' },
    { field: 'apiKeyName', column: 'api_key_name', type: 'text' },
    { field: 'publicKey', column: 'public_key', type: 'text' },
    { field: 'curve', column: 'curve', type: 'text' },
    { field: 'expirationSeconds', column: 'expiration_seconds', type: 'text', optional: true },
    { field: 'expiresAt', column: 'expires_at', type: 'integer', optional: true },
    { field: 'createdAt', column: 'created_at', type: 'integer' },
    { field: 'updatedAt', column: 'updated_at', type: 'integer' },
  ],
  scope: 'organizationId',
  primaryKey: {
    name: 'api_key_pkey',
    sqlName: 'api_keys_pkey',
    fields: ['organizationId', 'apiKeyId'],
  },
  unique: [
    {
      name: 'api_key_public_key',
      sqlName: 'api_keys_public_key_key',
      fields: ['organizationId', 'publicKey'],
    },
  ],
  createdAt: 'createdAt',
};

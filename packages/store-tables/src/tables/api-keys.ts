/**
 * The API keys table.
 * @module
 */
import type { ApiKeyRecord } from '@keyhold/activities';
import { fieldColumns, type TableSpec } from '../table-spec.js';

/**
 * API keys of an organization's users; a public key is unique in its organization.
 * @example
 * API_KEYS.unique?.[0]?.name; // 'api_key_public_key'
 */
export const API_KEYS: TableSpec<ApiKeyRecord> = {
  table: 'api_keys',
  fields: fieldColumns<ApiKeyRecord>({
    organizationId: 'text',
    userId: 'text',
    apiKeyId: 'text',
    apiKeyName: 'text',
    publicKey: 'text',
    curve: 'text',
    credentialType: 'text?',
    expirationSeconds: 'text?',
    expiresAt: 'integer?',
    createdAt: 'integer',
    updatedAt: 'integer',
  }),
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

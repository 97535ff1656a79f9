/**
 * The OAuth 2.0 credentials table.
 * @module
 */
import type { Oauth2CredentialRecord } from '@keyhold/activities';
import { fieldColumns, type TableSpec } from '../table-spec.js';

/**
 * An organization's OAuth 2.0 credentials (CREATE_OAUTH2_CREDENTIAL): the client id and the
 * client secret sealed under a key derived from the master key, never the secret.
 * @example
 * OAUTH2_CREDENTIALS.primaryKey.name; // 'oauth2_credential_pkey'
 */
export const OAUTH2_CREDENTIALS: TableSpec<Oauth2CredentialRecord> = {
  table: 'oauth2_credentials',
  fields: fieldColumns<Oauth2CredentialRecord>({
    organizationId: 'text',
    oauth2CredentialId: 'text',
    provider: 'text',
    clientId: 'text',
    sealedClientSecret: 'text',
    createdAt: 'integer',
    updatedAt: 'integer',
  }),
  scope: 'organizationId',
  primaryKey: {
    name: 'oauth2_credential_pkey',
    sqlName: 'oauth2_credentials_pkey',
    fields: ['organizationId', 'oauth2CredentialId'],
  },
  createdAt: 'createdAt',
};

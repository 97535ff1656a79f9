/**
 * The authenticators table: users' passkeys.
 * @module
 */
import type { AuthenticatorRecord } from '@keyhold/activities';
import { fieldColumns, type TableSpec } from '../table-spec.js';

/**
 * Passkeys of an organization's users; a credential id is unique in its organization.
 * @example
 * AUTHENTICATORS.unique?.[0]?.name; // 'authenticator_credential_id'
 */
export const AUTHENTICATORS: TableSpec<AuthenticatorRecord> = {
  table: 'authenticators',
  fields: fieldColumns<AuthenticatorRecord>({
    organizationId: 'text',
    userId: 'text',
    authenticatorId: 'text',
    authenticatorName: 'text',
    credentialId: 'text',
    publicKey: 'text',
    algorithm: 'integer',
    aaguid: 'text',
    attestationType: 'text',
    transports: 'text[]',
    signCount: 'integer',
    createdAt: 'integer',
    updatedAt: 'integer',
  }),
  scope: 'organizationId',
  primaryKey: {
    name: 'authenticator_pkey',
    sqlName: 'authenticators_pkey',
    fields: ['organizationId', 'authenticatorId'],
  },
  unique: [
    {
      name: 'authenticator_credential_id',
      sqlName: 'authenticators_credential_id_key',
      fields: ['organizationId', 'credentialId'],
    },
  ],
  createdAt: 'createdAt',
};

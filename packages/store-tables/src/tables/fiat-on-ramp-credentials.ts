/**
 * The fiat on-ramp credentials table.
 * @module
 */
import type { FiatOnRampCredentialRecord } from '@keyhold/activities';
import { fieldColumns, type TableSpec } from '../table-spec.js';

/**
 * An organization's apps at on-ramp providers (CREATE_FIAT_ON_RAMP_CREDENTIAL), one per
 * provider and mode: the publishable key and project id, and the secret and private API keys
 * sealed under a key derived from the master key, never the secrets.
 * @example
 * FIAT_ON_RAMP_CREDENTIALS.unique?.[0]?.name; // 'fiat_on_ramp_credential_provider'
 */
export const FIAT_ON_RAMP_CREDENTIALS: TableSpec<FiatOnRampCredentialRecord> = {
  table: 'fiat_on_ramp_credentials',
  fields: fieldColumns<FiatOnRampCredentialRecord>({
    organizationId: 'text',
    fiatOnrampCredentialId: 'text',
    onrampProvider: 'text',
    publishableApiKey: 'text',
    projectId: 'text?',
    sealedSecretApiKey: 'text',
    sealedPrivateApiKey: 'text?',
    sandboxMode: 'boolean',
    createdAt: 'integer',
    updatedAt: 'integer',
  }),
  scope: 'organizationId',
  primaryKey: {
    name: 'fiat_on_ramp_credential_pkey',
    sqlName: 'fiat_on_ramp_credentials_pkey',
    fields: ['organizationId', 'fiatOnrampCredentialId'],
  },
  unique: [
    {
      name: 'fiat_on_ramp_credential_provider',
      sqlName: 'fiat_on_ramp_credentials_provider_key',
      fields: ['organizationId', 'onrampProvider', 'sandboxMode'],
    },
  ],
  createdAt: 'createdAt',
};

/**
 * The OAuth providers table: users' OIDC identities.
 * @module
 */
import type { OauthProviderRecord } from '@keyhold/activities';
import { fieldColumns, type TableSpec } from '../table-spec.js';

/**
 * OIDC identities (issuer, audience, subject) of an organization's users; an identity is
 * unique in its organization. The id_token a provider was registered with is never stored.
 * @example
 * OAUTH_PROVIDERS.unique?.[0]?.name; // 'oauth_provider_identity'
 */
export const OAUTH_PROVIDERS: TableSpec<OauthProviderRecord> = {
  table: 'oauth_providers',
  fields: fieldColumns<OauthProviderRecord>({
    organizationId: 'text',
    providerId: 'text',
    userId: 'text',
    providerName: 'text',
    issuer: 'text',
    audience: 'text',
    subject: 'text',
    createdAt: 'integer',
    updatedAt: 'integer',
  }),
  scope: 'organizationId',
  primaryKey: {
    name: 'oauth_provider_pkey',
    sqlName: 'oauth_providers_pkey',
    fields: ['organizationId', 'providerId'],
  },
  unique: [
    {
      name: 'oauth_provider_identity',
      sqlName: 'oauth_providers_identity_key',
      fields: ['organizationId', 'issuer', 'audience', 'subject'],
    },
  ],
  createdAt: 'createdAt',
};

/**
 * get_oauth2_credential: `{oauth2Credential}`; list_oauth2_credentials: `{oauth2Credentials}` of
 * the organization, oldest first. Neither shows the client secret.
 * @module
 */
import { KeyholdError } from '@keyhold/protocol';
import { oauth2CredentialView } from '../views.js';
import type { QueryHandlerOf } from './query-handler.js';

export const getOauth2Credential: QueryHandlerOf<'get_oauth2_credential'> = async (ctx, body) => {
  const record = await ctx.tx.oauth2Credentials.get(
    ctx.organization.organizationId,
    body.oauth2CredentialId.toLowerCase(),
  );
  if (!record) {
    throw new KeyholdError('OAUTH2_CREDENTIAL_NOT_FOUND', {
      oauth2CredentialId: body.oauth2CredentialId,
    });
  }
  return { oauth2Credential: oauth2CredentialView(record) };
};

export const listOauth2Credentials: QueryHandlerOf<'list_oauth2_credentials'> = async (ctx) => ({
  oauth2Credentials: (await ctx.tx.oauth2Credentials.list(ctx.organization.organizationId)).map(
    oauth2CredentialView,
  ),
});

/**
 * CREATE_OAUTH_PROVIDERS (V1: by id_token; V2: by id_token or by claims) and
 * DELETE_OAUTH_PROVIDERS: the OIDC identities a user logs in with (OAUTH_LOGIN, OAUTH).
 *
 * A provider registered by token keeps the verified token's `iss`, first `aud` and `sub`; the
 * token itself is never stored, and its nonce is not checked (identity-and-payments §B5). A
 * provider given by claims (V2 `oidcClaims`) is stored as the request says: the stamp of a user
 * the policies allow vouches for it. An identity belongs to one user of an organization; a
 * user holds at most `MAX_OAUTH_PROVIDERS`.
 * @module
 */
import { isKeyholdError, KeyholdError, type OauthProviderParams } from '@keyhold/protocol';
import { StoreConflictError } from '../ports/store.js';
import type { OauthProviderRecord, UserRecord } from '../records.js';
import type { ActivityContext, HandlerOf, PrepareContext } from './activity-handler.js';
import { ExecutionRefusal, refusingHandler } from './execution-refusal.js';
import { prepareOidcTokens, readOidcTokenShape, verifyOidcToken } from './oidc-token.js';

/** OAuth providers one user may hold (as authenticators: 10). */
export const MAX_OAUTH_PROVIDERS = 10;

/**
 * Refuses a token that is not a JWT naming iss, sub and aud, before anything is fetched.
 * @throws KeyholdError INVALID_OIDC_TOKEN
 */
export function precheckOauthProviders(providers: readonly OauthProviderParams[]): void {
  for (const provider of providers) {
    const token = provider.oidcToken;
    const claims = 'oidcClaims' in provider ? provider.oidcClaims : undefined;
    if (token !== undefined) readOidcTokenShape(token);
    else if (claims === undefined) {
      throw new KeyholdError('INVALID_OIDC_TOKEN', {
        reason: 'an OAuth provider needs an oidcToken or oidcClaims',
      });
    }
  }
}

/**
 * Verifies the providers' tokens before the transaction (`ActivityHandler.prepare`).
 * @throws KeyholdError INVALID_OIDC_TOKEN, UNAVAILABLE
 */
export function prepareOauthProviders(
  ctx: PrepareContext,
  providers: readonly OauthProviderParams[],
): Promise<void> {
  return prepareOidcTokens(
    ctx,
    providers.map((p) => p.oidcToken),
  );
}

/**
 * Adds `providers` to `user` (of the context's organization), verifying each token, and
 * returns their ids in request order. Shared with the users CREATE_USERS and
 * CREATE_SUB_ORGANIZATION create.
 * @throws KeyholdError INVALID_OIDC_TOKEN, UNAVAILABLE, MAX_OAUTH_PROVIDERS,
 *   OAUTH_PROVIDER_ALREADY_EXISTS
 */
export async function addOauthProviders(
  ctx: ActivityContext,
  user: UserRecord,
  providers: readonly OauthProviderParams[],
): Promise<string[]> {
  const orgId = ctx.organization.organizationId;
  const held = (await ctx.tx.oauthProviders.list(orgId)).filter((p) => p.userId === user.userId);
  if (held.length + providers.length > MAX_OAUTH_PROVIDERS) {
    throw new KeyholdError('MAX_OAUTH_PROVIDERS', { max: MAX_OAUTH_PROVIDERS });
  }
  const ids: string[] = [];
  for (const provider of providers) {
    const identity = await identityOf(ctx, provider);
    const record: OauthProviderRecord = {
      organizationId: orgId,
      providerId: ctx.ids.uuid(),
      userId: user.userId,
      providerName: provider.providerName,
      ...identity,
      createdAt: ctx.now,
      updatedAt: ctx.now,
    };
    try {
      await ctx.tx.oauthProviders.insert(record);
    } catch (error) {
      if (StoreConflictError.is(error)) {
        throw new KeyholdError('OAUTH_PROVIDER_ALREADY_EXISTS', {
          issuer: identity.issuer,
          subject: identity.subject,
        });
      }
      throw error;
    }
    ids.push(record.providerId);
  }
  return ids;
}

/** The issuer, audience and subject a provider is registered under. */
async function identityOf(
  ctx: ActivityContext,
  provider: OauthProviderParams,
): Promise<Pick<OauthProviderRecord, 'issuer' | 'audience' | 'subject'>> {
  if (provider.oidcToken !== undefined) {
    let claims: Awaited<ReturnType<typeof verifyOidcToken>>;
    try {
      claims = await verifyOidcToken(ctx, provider.oidcToken);
    } catch (error) {
      // A bad token or an issuer out of reach refuses the request (CREATE_USERS and
      // CREATE_SUB_ORGANIZATION too): nothing of it is stored.
      if (isKeyholdError(error)) throw new ExecutionRefusal(error);
      throw error;
    }
    return { issuer: claims.iss, audience: claims.aud[0]!, subject: claims.sub };
  }
  const claims = (provider as { oidcClaims: { iss: string; aud: string; sub: string } }).oidcClaims;
  return { issuer: claims.iss, audience: claims.aud, subject: claims.sub };
}

async function userOf(ctx: ActivityContext, userId: string): Promise<UserRecord> {
  const user = await ctx.tx.users.get(ctx.organization.organizationId, userId.toLowerCase());
  if (!user) throw new KeyholdError('USER_NOT_FOUND', { userId });
  return user;
}

/** A token that does not verify, or an issuer out of reach, refuses the request: nothing is stored. */
export const createOauthProvidersHandler: HandlerOf<'CREATE_OAUTH_PROVIDERS'> = refusingHandler({
  precheck(p) {
    precheckOauthProviders(p.oauthProviders);
  },
  prepare: (ctx, p) => prepareOauthProviders(ctx, p.oauthProviders),
  async execute(ctx, p) {
    const user = await userOf(ctx, p.userId);
    return { providerIds: await addOauthProviders(ctx, user, p.oauthProviders) };
  },
});

export const deleteOauthProvidersHandler: HandlerOf<'DELETE_OAUTH_PROVIDERS'> = {
  async execute(ctx, p) {
    const orgId = ctx.organization.organizationId;
    const user = await userOf(ctx, p.userId);
    const ids = [...new Set(p.providerIds.map((id) => id.toLowerCase()))];
    for (const providerId of ids) {
      const provider = await ctx.tx.oauthProviders.getForUpdate(orgId, providerId);
      if (!provider || provider.userId !== user.userId) {
        throw new KeyholdError('OAUTH_PROVIDER_NOT_FOUND', { providerId });
      }
    }
    for (const providerId of ids) await ctx.tx.oauthProviders.delete(orgId, providerId);
    return { providerIds: ids };
  },
};

/**
 * whoami, get_organization, users, API keys and passkeys (authenticators).
 * @module
 */
import { KeyholdError } from '@keyhold/protocol';
import {
  apiKeyView,
  authenticatorView,
  invitationView,
  oauthProviderView,
  policyView,
  privateKeyView,
  tagView,
  userView,
  walletView,
} from '../views.js';
import type { QueryContext, QueryHandlerOf } from './query-handler.js';

async function usersOf(ctx: QueryContext) {
  const orgId = ctx.organization.organizationId;
  const [users, keys, authenticators, providers] = await Promise.all([
    ctx.tx.users.list(orgId),
    ctx.tx.apiKeys.listByOrganization(orgId),
    ctx.tx.authenticators.listByOrganization(orgId),
    ctx.tx.oauthProviders.list(orgId),
  ]);
  return users.map((u) =>
    userView(
      u,
      keys.filter((k) => k.userId === u.userId),
      authenticators.filter((a) => a.userId === u.userId),
      providers.filter((p) => p.userId === u.userId),
    ),
  );
}

export const whoami: QueryHandlerOf<'whoami'> = async (ctx) => {
  const { principal } = ctx;
  const home =
    principal.organizationId === ctx.organization.organizationId
      ? ctx.organization
      : await ctx.tx.organizations.get(principal.organizationId);
  return {
    organizationId: principal.organizationId,
    organizationName: home?.name ?? '',
    userId: principal.user.userId,
    username: principal.user.userName,
  };
};

export const getOrganization: QueryHandlerOf<'get_organization'> = async (ctx) => {
  const org = ctx.organization;
  const [users, wallets, privateKeys, policies, userTags, privateKeyTags, invitations] =
    await Promise.all([
      usersOf(ctx),
      ctx.tx.wallets.list(org.organizationId),
      ctx.tx.privateKeys.list(org.organizationId),
      ctx.tx.policies.list(org.organizationId),
      ctx.tx.userTags.list(org.organizationId),
      ctx.tx.privateKeyTags.list(org.organizationId),
      ctx.tx.invitations.list(org.organizationId),
    ]);
  return {
    organizationData: {
      organizationId: org.organizationId,
      name: org.name,
      users,
      policies: policies.map(policyView),
      privateKeys: privateKeys.map(privateKeyView),
      invitations: invitations.map(invitationView),
      tags: [
        ...userTags.map((t) => tagView(t, 'TAG_TYPE_USER')),
        ...privateKeyTags.map((t) => tagView(t, 'TAG_TYPE_PRIVATE_KEY')),
      ],
      rootQuorum: { threshold: org.rootQuorum.threshold, userIds: [...org.rootQuorum.userIds] },
      features: [],
      wallets: wallets.map(walletView),
    },
  };
};

export const listUsers: QueryHandlerOf<'list_users'> = async (ctx) => ({
  users: await usersOf(ctx),
});

export const getUser: QueryHandlerOf<'get_user'> = async (ctx, body) => {
  const orgId = ctx.organization.organizationId;
  const user = await ctx.tx.users.get(orgId, body.userId.toLowerCase());
  if (!user) throw new KeyholdError('USER_NOT_FOUND', { userId: body.userId });
  const [keys, authenticators, providers] = await Promise.all([
    ctx.tx.apiKeys.listByUser(orgId, user.userId),
    ctx.tx.authenticators.listByUser(orgId, user.userId),
    ctx.tx.oauthProviders.list(orgId),
  ]);
  return {
    user: userView(
      user,
      keys,
      authenticators,
      providers.filter((p) => p.userId === user.userId),
    ),
  };
};

/** The organization's OAuth providers, or one user's (an unknown user has none). */
export const getOauthProviders: QueryHandlerOf<'get_oauth_providers'> = async (ctx, body) => {
  const userId = body.userId?.toLowerCase();
  const providers = await ctx.tx.oauthProviders.list(ctx.organization.organizationId);
  return {
    oauthProviders: providers
      .filter((p) => userId === undefined || p.userId === userId)
      .map(oauthProviderView),
  };
};

/** A user's passkeys; an unknown user has none (as `get_api_keys`). */
export const getAuthenticators: QueryHandlerOf<'get_authenticators'> = async (ctx, body) => {
  const authenticators = await ctx.tx.authenticators.listByUser(
    ctx.organization.organizationId,
    body.userId.toLowerCase(),
  );
  return { authenticators: authenticators.map(authenticatorView) };
};

/** One passkey of the organization, by id. */
export const getAuthenticator: QueryHandlerOf<'get_authenticator'> = async (ctx, body) => {
  const authenticator = await ctx.tx.authenticators.get(
    ctx.organization.organizationId,
    body.authenticatorId.toLowerCase(),
  );
  if (!authenticator) {
    throw new KeyholdError('AUTHENTICATOR_NOT_FOUND', { authenticatorId: body.authenticatorId });
  }
  return { authenticator: authenticatorView(authenticator) };
};

export const getApiKeys: QueryHandlerOf<'get_api_keys'> = async (ctx, body) => {
  const orgId = ctx.organization.organizationId;
  const keys = body.userId
    ? await ctx.tx.apiKeys.listByUser(orgId, body.userId.toLowerCase())
    : await ctx.tx.apiKeys.listByOrganization(orgId);
  return { apiKeys: keys.map(apiKeyView) };
};

export const getApiKey: QueryHandlerOf<'get_api_key'> = async (ctx, body) => {
  const key = await ctx.tx.apiKeys.get(
    ctx.organization.organizationId,
    body.apiKeyId.toLowerCase(),
  );
  if (!key) throw new KeyholdError('API_KEY_NOT_FOUND', { apiKeyId: body.apiKeyId });
  return { apiKey: apiKeyView(key) };
};

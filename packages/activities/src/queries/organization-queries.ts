/**
 * whoami, get_organization, users and API keys.
 * @module
 */
import { KeyholdError } from '@keyhold/protocol';
import { apiKeyView, policyView, privateKeyView, tagView, userView, walletView } from '../views.js';
import type { QueryContext, QueryHandler } from './query-handler.js';

async function usersOf(ctx: QueryContext) {
  const orgId = ctx.organization.organizationId;
  const [users, keys] = await Promise.all([
    ctx.tx.users.list(orgId),
    ctx.tx.apiKeys.listByOrganization(orgId),
  ]);
  return users.map((u) =>
    userView(
      u,
      keys.filter((k) => k.userId === u.userId),
    ),
  );
}

export const whoami: QueryHandler = async (ctx) => {
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

export const getOrganization: QueryHandler = async (ctx) => {
  const org = ctx.organization;
  const [users, wallets, privateKeys, policies, userTags, privateKeyTags] = await Promise.all([
    usersOf(ctx),
    ctx.tx.wallets.list(org.organizationId),
    ctx.tx.privateKeys.list(org.organizationId),
    ctx.tx.policies.list(org.organizationId),
    ctx.tx.userTags.list(org.organizationId),
    ctx.tx.privateKeyTags.list(org.organizationId),
  ]);
  return {
    organizationData: {
      organizationId: org.organizationId,
      name: org.name,
      users,
      policies: policies.map(policyView),
      privateKeys: privateKeys.map(privateKeyView),
      invitations: [],
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

export const listUsers: QueryHandler = async (ctx) => ({ users: await usersOf(ctx) });

export const getUser: QueryHandler = async (ctx, body: { userId: string }) => {
  const orgId = ctx.organization.organizationId;
  const user = await ctx.tx.users.get(orgId, body.userId.toLowerCase());
  if (!user) throw new KeyholdError('USER_NOT_FOUND', { userId: body.userId });
  return { user: userView(user, await ctx.tx.apiKeys.listByUser(orgId, user.userId)) };
};

export const getApiKeys: QueryHandler = async (ctx, body: { userId?: string }) => {
  const orgId = ctx.organization.organizationId;
  const keys = body.userId
    ? await ctx.tx.apiKeys.listByUser(orgId, body.userId.toLowerCase())
    : await ctx.tx.apiKeys.listByOrganization(orgId);
  return { apiKeys: keys.map(apiKeyView) };
};

export const getApiKey: QueryHandler = async (ctx, body: { apiKeyId: string }) => {
  const key = await ctx.tx.apiKeys.get(
    ctx.organization.organizationId,
    body.apiKeyId.toLowerCase(),
  );
  if (!key) throw new KeyholdError('API_KEY_NOT_FOUND', { apiKeyId: body.apiKeyId });
  return { apiKey: apiKeyView(key) };
};

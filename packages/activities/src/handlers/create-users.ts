/**
 * CREATE_USERS (V1–V4) and CREATE_API_ONLY_USERS: users with their API keys and passkeys.
 * @module
 */
import type { ApiKeyParams, AuthenticatorParams, OauthProviderParams } from '@keyhold/protocol';
import type { UserRecord } from '../records.js';
import type { ActivityContext, HandlerOf } from './activity-handler.js';
import { addApiKeys, precheckApiKeys } from './api-key-creation.js';
import { addAuthenticators, verifyAuthenticators } from './authenticator-creation.js';
import {
  addOauthProviders,
  precheckOauthProviders,
  prepareOauthProviders,
} from './oauth-providers.js';
import { requireUserTags } from './tags.js';

/**
 * What creating a user reads of one: the members every CREATE_USERS version and
 * CREATE_API_ONLY_USERS have in common (each version's user type is checked against it).
 */
interface NewUser {
  userName: string;
  userEmail?: string;
  userPhoneNumber?: string;
  apiKeys?: readonly ApiKeyParams[];
  authenticators?: readonly AuthenticatorParams[];
  oauthProviders?: readonly OauthProviderParams[];
  userTags?: readonly string[];
}

async function createUsers(ctx: ActivityContext, users: readonly NewUser[]) {
  const userIds: string[] = [];
  for (const params of users) {
    const user: UserRecord = {
      organizationId: ctx.organization.organizationId,
      userId: ctx.ids.uuid(),
      userName: params.userName,
      userTags: await requireUserTags(ctx, params.userTags),
      createdAt: ctx.now,
      updatedAt: ctx.now,
      ...(params.userEmail ? { userEmail: params.userEmail } : {}),
      ...(params.userPhoneNumber ? { userPhoneNumber: params.userPhoneNumber } : {}),
    };
    await ctx.tx.users.insert(user);
    await addApiKeys(ctx, user.userId, params.apiKeys ?? []);
    await addAuthenticators(ctx, user.userId, params.authenticators ?? []);
    await addOauthProviders(ctx, user, params.oauthProviders ?? []);
    userIds.push(user.userId);
  }
  return { userIds };
}

const apiKeysOf = (users: readonly NewUser[]) => users.flatMap((u) => u.apiKeys ?? []);
const providersOf = (users: readonly NewUser[]) => users.flatMap((u) => u.oauthProviders ?? []);

export const createUsersHandler: HandlerOf<'CREATE_USERS'> = {
  precheck(p) {
    precheckApiKeys(apiKeysOf(p.users));
    precheckOauthProviders(providersOf(p.users));
  },
  prepare: (ctx, p) => prepareOauthProviders(ctx, providersOf(p.users)),
  verify: (ctx, p) =>
    verifyAuthenticators(
      ctx,
      (p.users as readonly NewUser[]).flatMap((u) => u.authenticators ?? []),
    ),
  execute: (ctx, p) => createUsers(ctx, p.users),
};

export const createApiOnlyUsersHandler: HandlerOf<'CREATE_API_ONLY_USERS'> = {
  precheck: (p) => precheckApiKeys(p.apiOnlyUsers.flatMap((u) => u.apiKeys ?? [])),
  execute: (ctx, p) => createUsers(ctx, p.apiOnlyUsers),
};

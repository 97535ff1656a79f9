/**
 * CREATE_USERS (V1–V4) and CREATE_API_ONLY_USERS: users with their API keys.
 * @module
 */
import type { UserRecord } from '../records.js';
import type { ActivityHandler } from './activity-handler.js';
import { type ApiKeyParams, addApiKeys, precheckApiKeys } from './api-key-creation.js';
import { requireUserTags } from './tags.js';

interface UserParams {
  userName: string;
  userEmail?: string;
  userPhoneNumber?: string;
  apiKeys?: ApiKeyParams[];
  userTags?: string[];
}

async function createUsers(ctx: Parameters<ActivityHandler['execute']>[0], users: UserParams[]) {
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
    userIds.push(user.userId);
  }
  return { userIds };
}

export const createUsersHandler: ActivityHandler<{ users: UserParams[] }> = {
  precheck: (p) => precheckApiKeys(p.users.flatMap((u) => u.apiKeys ?? [])),
  execute: (ctx, p) => createUsers(ctx, p.users),
};

export const createApiOnlyUsersHandler: ActivityHandler<{ apiOnlyUsers: UserParams[] }> = {
  precheck: (p) => precheckApiKeys(p.apiOnlyUsers.flatMap((u) => u.apiKeys ?? [])),
  execute: (ctx, p) => createUsers(ctx, p.apiOnlyUsers),
};

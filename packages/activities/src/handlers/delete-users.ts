/**
 * DELETE_USERS: removes users and their credentials (API keys and passkeys); a root-quorum member cannot be removed
 * (the quorum would lose a member it counts on).
 * @module
 */
import { KeyholdError } from '@keyhold/protocol';
import type { HandlerOf } from './activity-handler.js';

export const deleteUsersHandler: HandlerOf<'DELETE_USERS'> = {
  async execute(ctx, { userIds }) {
    const orgId = ctx.organization.organizationId;
    const unique = [...new Set(userIds)];
    for (const userId of unique) {
      if (ctx.organization.rootQuorum.userIds.includes(userId)) {
        throw new KeyholdError('QUORUM_USERS_MISSING', {
          userId,
          reason: 'user is in the root quorum',
        });
      }
      if (!(await ctx.tx.users.get(orgId, userId)))
        throw new KeyholdError('USER_NOT_FOUND', { userId });
    }
    for (const userId of unique) {
      for (const key of await ctx.tx.apiKeys.listByUser(orgId, userId)) {
        await ctx.tx.apiKeys.delete(orgId, key.apiKeyId);
      }
      for (const p of await ctx.tx.oauthProviders.list(orgId)) {
        if (p.userId === userId) await ctx.tx.oauthProviders.delete(orgId, p.providerId);
      }
      for (const a of await ctx.tx.authenticators.listByUser(orgId, userId)) {
        await ctx.tx.authenticators.delete(orgId, a.authenticatorId);
      }
      await ctx.tx.users.delete(orgId, userId);
    }
    return { userIds: unique };
  },
};

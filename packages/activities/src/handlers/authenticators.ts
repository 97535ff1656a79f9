/**
 * CREATE_AUTHENTICATORS (V1, V2) and DELETE_AUTHENTICATORS.
 * @module
 */
import { KeyholdError } from '@keyhold/protocol';
import type { HandlerOf } from './activity-handler.js';
import { addAuthenticators, verifyAuthenticators } from './authenticator-creation.js';

/**
 * Registers passkeys of a user of the organization: the attestations are verified before the
 * decision (`verify`), the per-user limit and credential-id uniqueness when it runs.
 */
export const createAuthenticatorsHandler: HandlerOf<'CREATE_AUTHENTICATORS'> = {
  verify: (ctx, p) => verifyAuthenticators(ctx, p.authenticators),
  async execute(ctx, p) {
    if (!(await ctx.tx.users.get(ctx.organization.organizationId, p.userId))) {
      throw new KeyholdError('USER_NOT_FOUND', { userId: p.userId });
    }
    // V1 authenticators name their user too: it must be the intent's.
    for (const a of p.authenticators) {
      if ('userId' in a && a.userId.toLowerCase() !== p.userId.toLowerCase()) {
        throw new KeyholdError('USER_NOT_FOUND', { userId: a.userId });
      }
    }
    return { authenticatorIds: await addAuthenticators(ctx, p.userId, p.authenticators) };
  },
};

/**
 * Removes passkeys of one user. A root-quorum user keeps at least one credential (a passkey or
 * an API key): the quorum must still be able to approve.
 */
export const deleteAuthenticatorsHandler: HandlerOf<'DELETE_AUTHENTICATORS'> = {
  async execute(ctx, p) {
    const orgId = ctx.organization.organizationId;
    const ids = [...new Set(p.authenticatorIds.map((id) => id.toLowerCase()))];
    const userId = p.userId.toLowerCase();
    await ctx.tx.users.getForUpdate(orgId, userId);
    for (const authenticatorId of ids) {
      const authenticator = await ctx.tx.authenticators.get(orgId, authenticatorId);
      if (!authenticator || authenticator.userId !== userId) {
        throw new KeyholdError('AUTHENTICATOR_NOT_FOUND', { authenticatorId });
      }
    }
    if (ctx.organization.rootQuorum.userIds.includes(userId)) {
      const [authenticators, apiKeys] = await Promise.all([
        ctx.tx.authenticators.listByUser(orgId, userId),
        ctx.tx.apiKeys.listByUser(orgId, userId),
      ]);
      const liveKeys = apiKeys.filter((k) => k.expiresAt === undefined || k.expiresAt > ctx.now);
      if (authenticators.length - ids.length + liveKeys.length === 0) {
        throw new KeyholdError('LAST_CREDENTIAL', { userId });
      }
    }
    for (const authenticatorId of ids) await ctx.tx.authenticators.delete(orgId, authenticatorId);
    return { authenticatorIds: ids };
  },
};

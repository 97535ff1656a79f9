/**
 * CREATE_API_KEYS (V1, V2) and DELETE_API_KEYS.
 * @module
 */
import { KeyholdError } from '@keyhold/protocol';
import type { HandlerOf } from './activity-handler.js';
import { addApiKeys, precheckApiKeys } from './api-key-creation.js';

export const createApiKeysHandler: HandlerOf<'CREATE_API_KEYS'> = {
  precheck: (p) => precheckApiKeys(p.apiKeys),
  async execute(ctx, p) {
    if (!(await ctx.tx.users.get(ctx.organization.organizationId, p.userId))) {
      throw new KeyholdError('USER_NOT_FOUND', { userId: p.userId });
    }
    return { apiKeyIds: await addApiKeys(ctx, p.userId, p.apiKeys) };
  },
};

export const deleteApiKeysHandler: HandlerOf<'DELETE_API_KEYS'> = {
  async execute(ctx, p) {
    const orgId = ctx.organization.organizationId;
    const ids = [...new Set(p.apiKeyIds)];
    for (const apiKeyId of ids) {
      const key = await ctx.tx.apiKeys.get(orgId, apiKeyId);
      if (!key || key.userId !== p.userId)
        throw new KeyholdError('API_KEY_NOT_FOUND', { apiKeyId });
    }
    for (const apiKeyId of ids) await ctx.tx.apiKeys.delete(orgId, apiKeyId);
    return { apiKeyIds: ids };
  },
};

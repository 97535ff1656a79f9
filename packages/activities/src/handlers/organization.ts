/**
 * UPDATE_ROOT_QUORUM and UPDATE_ORGANIZATION_NAME.
 * @module
 */
import { KeyholdError } from '@keyhold/protocol';
import type { HandlerOf } from './activity-handler.js';

export const updateRootQuorumHandler: HandlerOf<'UPDATE_ROOT_QUORUM'> = {
  precheck({ threshold, userIds }) {
    const members = new Set(userIds).size;
    if (threshold > members) {
      throw new KeyholdError('INVALID_QUORUM_THRESHOLD', {
        reason: `threshold ${threshold} exceeds the ${members} quorum users`,
      });
    }
  },
  async execute(ctx, { threshold, userIds }) {
    const org = ctx.organization;
    const members = [...new Set(userIds)];
    for (const userId of members) {
      if (!(await ctx.tx.users.get(org.organizationId, userId))) {
        throw new KeyholdError('QUORUM_USERS_MISSING', { userId });
      }
    }
    await ctx.tx.organizations.update({
      ...org,
      rootQuorum: { threshold, userIds: members },
      updatedAt: ctx.now,
    });
    return {};
  },
};

export const updateOrganizationNameHandler: HandlerOf<'UPDATE_ORGANIZATION_NAME'> = {
  async execute(ctx, { organizationName }) {
    const org = ctx.organization;
    await ctx.tx.organizations.update({ ...org, name: organizationName, updatedAt: ctx.now });
    return { organizationId: org.organizationId, organizationName };
  },
};

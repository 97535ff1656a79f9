/**
 * UPDATE_ROOT_QUORUM, UPDATE_ORGANIZATION_NAME and UPDATE_ALLOWED_ORIGINS.
 * @module
 */
import { KeyholdError } from '@keyhold/protocol';
import { checkAllowedOrigin } from '../webauthn-origins.js';
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

/**
 * The origins the organization's passkeys (and its sub-organizations' without a list of their
 * own) may stamp and register from; an empty list allows any secure origin.
 */
export const updateAllowedOriginsHandler: HandlerOf<'UPDATE_ALLOWED_ORIGINS'> = {
  precheck({ allowedOrigins }) {
    for (const origin of allowedOrigins) checkAllowedOrigin(origin);
  },
  async execute(ctx, { allowedOrigins }) {
    const { allowedOrigins: _previous, ...org } = ctx.organization;
    const origins = [...new Set(allowedOrigins)];
    await ctx.tx.organizations.update({
      ...org,
      ...(origins.length > 0 ? { allowedOrigins: origins } : {}),
      updatedAt: ctx.now,
    });
    return {};
  },
};

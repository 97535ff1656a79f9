/**
 * get_organization_configs: `{configs: {features, quorum}}` — the features
 * SET_ORGANIZATION_FEATURE stored and the root quorum.
 * @module
 */
import { featuresOf } from '../handlers/organization-settings.js';
import type { QueryHandlerOf } from './query-handler.js';

export const getOrganizationConfigs: QueryHandlerOf<'get_organization_configs'> = async (ctx) => ({
  configs: {
    features: await featuresOf(ctx.tx, ctx.organization.organizationId),
    quorum: {
      threshold: ctx.organization.rootQuorum.threshold,
      userIds: [...ctx.organization.rootQuorum.userIds],
    },
  },
});

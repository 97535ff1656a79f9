/**
 * get_activity and list_activities (newest first, paged by activity id).
 * @module
 */

import { KeyholdError } from '@keyhold/protocol';
import { ActivityScope } from '../activity-scope.js';
import { votingRights } from '../decision/voting-rights.js';
import type { ActivityRecord } from '../records.js';
import { activityView } from '../views.js';
import type { QueryContext, QueryHandlerOf } from './query-handler.js';

export const DEFAULT_PAGE_LIMIT = 10;

export const getActivity: QueryHandlerOf<'get_activity'> = async (ctx, body) => {
  const record = await ctx.tx.activities.get(
    ctx.organization.organizationId,
    body.activityId.toLowerCase(),
  );
  if (!record) throw new KeyholdError('ACTIVITY_NOT_FOUND', { activityId: body.activityId });
  return { activity: await viewFor(ctx, record) };
};

/** The activity as the reader sees it: canApprove / canReject say what they may do. */
async function viewFor(
  ctx: QueryContext,
  record: ActivityRecord,
  scope = new ActivityScope(ctx.tx, ctx.organization.organizationId),
) {
  const { principal, organization } = ctx;
  // A reader from the parent organization may read, never vote.
  if (principal.organizationId !== organization.organizationId) return activityView(record);
  const rights = await votingRights(
    scope,
    organization,
    record,
    principal.user.userId,
    ctx.now,
    ctx.consensusExpiryMs,
  );
  return activityView(record, rights);
}

export const listActivities: QueryHandlerOf<'list_activities'> = async (ctx, body) => {
  const page = body.paginationOptions ?? {};
  const records = await ctx.tx.activities.list(
    ctx.organization.organizationId,
    { statuses: body.filterByStatus, types: body.filterByType },
    {
      limit: page.limit ? Number(page.limit) : DEFAULT_PAGE_LIMIT,
      ...(page.after ? { after: page.after.toLowerCase() } : {}),
      ...(page.before ? { before: page.before.toLowerCase() } : {}),
    },
  );
  const activities = [];
  // One scope for the page: the policies are read and compiled once, not once per activity.
  const scope = new ActivityScope(ctx.tx, ctx.organization.organizationId);
  for (const record of records) activities.push(await viewFor(ctx, record, scope));
  return { activities };
};

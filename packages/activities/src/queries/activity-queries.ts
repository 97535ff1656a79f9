/**
 * get_activity and list_activities (newest first, paged by activity id).
 * @module
 */
import { type ActivityStatus, type ActivityType, KeyholdError } from '@keyhold/protocol';
import { activityView } from '../views.js';
import type { QueryHandler } from './query-handler.js';

export const DEFAULT_PAGE_LIMIT = 10;

export const getActivity: QueryHandler = async (ctx, body: { activityId: string }) => {
  const record = await ctx.tx.activities.get(
    ctx.organization.organizationId,
    body.activityId.toLowerCase(),
  );
  if (!record) throw new KeyholdError('ACTIVITY_NOT_FOUND', { activityId: body.activityId });
  return { activity: activityView(record) };
};

export const listActivities: QueryHandler = async (
  ctx,
  body: {
    filterByStatus?: ActivityStatus[];
    filterByType?: ActivityType[];
    paginationOptions?: { limit?: string; before?: string; after?: string };
  },
) => {
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
  return { activities: records.map(activityView) };
};

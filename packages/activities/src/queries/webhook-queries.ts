/**
 * list_webhook_endpoints: `{webhookEndpoints}` of the organization, oldest first.
 * @module
 */
import { webhookEndpointView } from '../views.js';
import type { QueryHandlerOf } from './query-handler.js';

export const listWebhookEndpoints: QueryHandlerOf<'list_webhook_endpoints'> = async (ctx) => ({
  webhookEndpoints: (await ctx.tx.webhookEndpoints.list(ctx.organization.organizationId)).map(
    webhookEndpointView,
  ),
});

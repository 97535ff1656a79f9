/**
 * Webhook endpoints: CREATE_WEBHOOK_ENDPOINT, UPDATE_WEBHOOK_ENDPOINT, DELETE_WEBHOOK_ENDPOINT.
 * An endpoint belongs to one organization and receives that organization's ACTIVITY_UPDATES
 * events (see `webhook-events.ts`). What the parameters alone decide is a refusal (nothing is
 * stored): the URL must be one that can be delivered to (`checkWebhookUrl` of
 * `@keyhold/webhooks`: https, no credentials, not a private IP literal or local name — private
 * and loopback destinations, and http to loopback, only when the service allows private
 * destinations), a subscription's event type must be ACTIVITY_UPDATES (the schema) and its
 * `filtersJson` valid JSON. What a host name resolves to is the delivery transport's check, at
 * delivery time. An unknown endpoint id makes the activity FAILED ("webhook endpoint not
 * found"). Subscriptions are fixed at creation: update changes url, name and isActive only;
 * making an endpoint active clears the reason the dispatcher disabled it for.
 * @module
 */
import { type IntentOfKind, KeyholdError } from '@keyhold/protocol';
import { checkWebhookUrl } from '@keyhold/webhooks';
import type { WebhookEndpointRecord, WebhookSubscriptionRecord } from '../records.js';
import { webhookEndpointView } from '../views.js';
import type { ActivityContext, HandlerOf, PrecheckSettings } from './activity-handler.js';

type SubscriptionParams = NonNullable<
  IntentOfKind<'CREATE_WEBHOOK_ENDPOINT'>['subscriptions']
>[number];

/** Refuses (INVALID_WEBHOOK_URL, the reason in its details) a URL that can never deliver. */
export function refuseUndeliverableWebhookUrl(url: string, settings: PrecheckSettings): void {
  const reason = checkWebhookUrl(url, {
    allowPrivateAddresses: settings.allowPrivateWebhookDestinations,
  });
  if (reason !== undefined) {
    throw new KeyholdError('INVALID_WEBHOOK_URL', { field: '/parameters/url', reason });
  }
}

function checkFilters(subscriptions: readonly SubscriptionParams[] = []): void {
  subscriptions.forEach((s, i) => {
    if (s.filtersJson === undefined) return;
    try {
      JSON.parse(s.filtersJson);
    } catch {
      throw new KeyholdError('INVALID_WEBHOOK_FILTERS', {
        field: `/parameters/subscriptions/${i}/filtersJson`,
        reason: 'not valid JSON',
      });
    }
  });
}

/**
 * The endpoint, locked for the rest of the transaction: the dispatcher may disable it at any
 * time, and an update must not write back the state it read before that.
 */
async function requireEndpoint(
  ctx: ActivityContext,
  endpointId: string,
): Promise<WebhookEndpointRecord> {
  const endpoint = await ctx.tx.webhookEndpoints.getForUpdate(
    ctx.organization.organizationId,
    endpointId.toLowerCase(),
  );
  if (!endpoint) throw new KeyholdError('WEBHOOK_ENDPOINT_NOT_FOUND', { endpointId });
  return endpoint;
}

export const createWebhookEndpointHandler: HandlerOf<'CREATE_WEBHOOK_ENDPOINT'> = {
  precheck(p, _definition, settings) {
    refuseUndeliverableWebhookUrl(p.url, settings);
    checkFilters(p.subscriptions);
  },
  async execute(ctx, p) {
    const subscriptions: WebhookSubscriptionRecord[] = (p.subscriptions ?? []).map((s) => ({
      eventType: s.eventType,
      ...(s.filtersJson !== undefined ? { filtersJson: s.filtersJson } : {}),
      // Absent means active: `subscriptions: [{eventType: 'ACTIVITY_UPDATES'}]` subscribes.
      isActive: s.isActive ?? true,
    }));
    const endpoint: WebhookEndpointRecord = {
      organizationId: ctx.organization.organizationId,
      endpointId: ctx.ids.uuid(),
      url: p.url,
      name: p.name,
      isActive: true,
      subscriptions,
      createdAt: ctx.now,
      updatedAt: ctx.now,
    };
    await ctx.tx.webhookEndpoints.insert(endpoint);
    return { endpointId: endpoint.endpointId, webhookEndpoint: webhookEndpointView(endpoint) };
  },
};

export const updateWebhookEndpointHandler: HandlerOf<'UPDATE_WEBHOOK_ENDPOINT'> = {
  precheck(p, _definition, settings) {
    if (p.url !== undefined) refuseUndeliverableWebhookUrl(p.url, settings);
  },
  async execute(ctx, p) {
    const { disabledReason, ...endpoint } = await requireEndpoint(ctx, p.endpointId);
    const updated: WebhookEndpointRecord = {
      ...endpoint,
      ...(p.url !== undefined ? { url: p.url } : {}),
      ...(p.name !== undefined ? { name: p.name } : {}),
      ...(p.isActive !== undefined ? { isActive: p.isActive } : {}),
      // Why the dispatcher turned it off stands until the endpoint is made active again.
      ...(disabledReason !== undefined && p.isActive !== true ? { disabledReason } : {}),
      updatedAt: ctx.now,
    };
    await ctx.tx.webhookEndpoints.update(updated);
    return { endpointId: updated.endpointId, webhookEndpoint: webhookEndpointView(updated) };
  },
};

/** Removes the endpoint and its pending deliveries (delivered and failed ones stay as a log). */
export const deleteWebhookEndpointHandler: HandlerOf<'DELETE_WEBHOOK_ENDPOINT'> = {
  async execute(ctx, p) {
    const endpoint = await requireEndpoint(ctx, p.endpointId);
    const org = ctx.organization.organizationId;
    await ctx.tx.webhookDeliveries.deletePending(org, endpoint.endpointId);
    await ctx.tx.webhookEndpoints.delete(org, endpoint.endpointId);
    return { endpointId: endpoint.endpointId };
  },
};

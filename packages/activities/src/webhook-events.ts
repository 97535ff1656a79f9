/**
 * ACTIVITY_UPDATES events into the outbox. Each time an activity is stored with a new status
 * (created COMPLETED, FAILED or CONSENSUS_NEEDED; a vote making it COMPLETED, FAILED or
 * REJECTED), one event is enqueued in the same Store transaction: one delivery per active
 * endpoint of the activity's organization (or of its parent) that has an active ACTIVITY_UPDATES
 * subscription, all sharing one event id. Endpoints are read after the activity's own effects, so an
 * endpoint created or updated by the activity hears about it, and a deleted one does not.
 *
 * The body is the activity object itself, exactly as the API returns it (`canApprove` and
 * `canReject` false: the receiver is not a voter): wire-compat §8 says the ACTIVITY_UPDATES
 * "payload = the full activity object", while the `{type, organizationId, msg}` envelope it
 * describes belongs to the balance and transaction event types. The event type and the
 * organization travel in the `X-…-Event-Type` and `X-…-Organization-Id` headers (and the
 * activity carries `organizationId`).
 * @module
 */
import type { Activity } from '@keyhold/protocol';
import type { Ids } from './ports/ids.js';
import type { StoreTransaction } from './ports/store.js';
import type { ActivityRecord, OrganizationRecord, WebhookEndpointRecord } from './records.js';
import { activityView } from './views.js';

export const ACTIVITY_UPDATES = 'ACTIVITY_UPDATES';

/** The exact JSON body of an ACTIVITY_UPDATES delivery. */
export function activityEventBody(activity: Activity): string {
  return JSON.stringify(activity);
}

/** True when the endpoint receives ACTIVITY_UPDATES. */
export function receivesActivityUpdates(endpoint: WebhookEndpointRecord): boolean {
  return (
    endpoint.isActive &&
    endpoint.subscriptions.some((s) => s.isActive && s.eventType === ACTIVITY_UPDATES)
  );
}

/**
 * Enqueues the ACTIVITY_UPDATES event of `record` as it is now; nothing without receivers.
 * The receivers are the endpoints of the activity's organization and, for a sub-organization,
 * of its parent (a parent hears about all its sub-organizations, as Turnkey's endpoints do).
 * Each delivery belongs to its endpoint's organization — the `X-…-Organization-Id` it is sent
 * with, and what deleting that endpoint or organization clears — while the body names the
 * activity's own organization.
 */
export async function enqueueActivityUpdate(
  tx: StoreTransaction,
  ids: Ids,
  record: ActivityRecord,
  now: number,
  /** The activity's organization as the transaction already read it; read here otherwise. */
  organization?: OrganizationRecord,
): Promise<void> {
  const owner = organization ?? (await tx.organizations.get(record.organizationId));
  const owners = [record.organizationId];
  if (owner?.parentOrganizationId) owners.push(owner.parentOrganizationId);
  const endpoints: WebhookEndpointRecord[] = [];
  for (const owner of owners) {
    endpoints.push(...(await tx.webhookEndpoints.list(owner)).filter(receivesActivityUpdates));
  }
  if (endpoints.length === 0) return;
  const body = activityEventBody(activityView(record));
  const eventId = ids.uuid();
  for (const endpoint of endpoints) {
    await tx.webhookDeliveries.insert({
      deliveryId: ids.uuid(),
      eventId,
      organizationId: endpoint.organizationId,
      endpointId: endpoint.endpointId,
      url: endpoint.url,
      eventType: ACTIVITY_UPDATES,
      body,
      attempts: 0,
      nextAttemptAt: now,
      createdAt: now,
    });
  }
}

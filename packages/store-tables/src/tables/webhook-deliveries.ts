/**
 * The webhook deliveries table: the outbox.
 * @module
 */
import type { WebhookDelivery } from '@keyhold/webhooks';
import type { TableSpec } from '../table-spec.js';

/**
 * Webhook deliveries, by id; each is inserted PENDING. Its outbox state (status, lease,
 * last error, finish time) is the Outbox's alone, kept by the stores' own statements.
 * @example
 * WEBHOOK_DELIVERIES.primaryKey.name; // 'webhook_delivery_pkey'
 */
export const WEBHOOK_DELIVERIES: TableSpec<WebhookDelivery> = {
  table: 'webhook_deliveries',
  fields: [
    { field: 'deliveryId', column: 'delivery_id', type: 'text' },
    { field: 'eventId', column: 'event_id', type: 'text' },
    { field: 'organizationId', column: 'organization_id', type: 'text' },
    { field: 'endpointId', column: 'endpoint_id', type: 'text' },
    { field: 'url', column: 'url', type: 'text' },
    { field: 'eventType', column: 'event_type', type: 'text' },
    { field: 'body', column: 'body', type: 'text' },
    { field: 'attempts', column: 'attempts', type: 'integer' },
    { field: 'nextAttemptAt', column: 'next_attempt_at', type: 'integer' },
    { field: 'createdAt', column: 'created_at', type: 'integer' },
  ],
  derived: [{ column: 'status', type: 'text', value: () => 'PENDING' }],
  primaryKey: {
    name: 'webhook_delivery_pkey',
    sqlName: 'webhook_deliveries_pkey',
    fields: ['deliveryId'],
  },
  createdAt: 'createdAt',
};

/**
 * The webhook deliveries table: the outbox.
 * @module
 */
import type { WebhookDelivery } from '@keyhold/webhooks';
import { fieldColumns, type TableSpec } from '../table-spec.js';

/**
 * Webhook deliveries, by id; each is inserted PENDING. Its outbox state (status, lease,
 * last error, finish time) is the Outbox's alone, kept by the stores' own statements.
 * @example
 * WEBHOOK_DELIVERIES.primaryKey.name; // 'webhook_delivery_pkey'
 */
export const WEBHOOK_DELIVERIES: TableSpec<WebhookDelivery> = {
  table: 'webhook_deliveries',
  fields: fieldColumns<WebhookDelivery>({
    deliveryId: 'text',
    eventId: 'text',
    organizationId: 'text',
    endpointId: 'text',
    url: 'text',
    eventType: 'text',
    body: 'text',
    attempts: 'integer',
    nextAttemptAt: 'integer',
    createdAt: 'integer',
  }),
  derived: [{ column: 'status', type: 'text', value: () => 'PENDING' }],
  primaryKey: {
    name: 'webhook_delivery_pkey',
    sqlName: 'webhook_deliveries_pkey',
    fields: ['deliveryId'],
  },
  createdAt: 'createdAt',
};

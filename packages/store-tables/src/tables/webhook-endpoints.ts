/**
 * The webhook endpoints table.
 * @module
 */
import type { WebhookEndpointRecord } from '@keyhold/activities';
import { fieldColumns, type TableSpec } from '../table-spec.js';

/**
 * Webhook endpoints of an organization. The SQL table also counts consecutive failed
 * deliveries (`consecutive_failures`): that column is the Outbox's alone, in no record, so a
 * repository write leaves it as it is.
 * @example
 * WEBHOOK_ENDPOINTS.primaryKey.name; // 'webhook_endpoint_pkey'
 */
export const WEBHOOK_ENDPOINTS: TableSpec<WebhookEndpointRecord> = {
  table: 'webhook_endpoints',
  fields: fieldColumns<WebhookEndpointRecord>({
    organizationId: 'text',
    endpointId: 'text',
    url: 'text',
    name: 'text',
    isActive: 'boolean',
    disabledReason: 'text?',
    subscriptions: 'json',
    createdAt: 'integer',
    updatedAt: 'integer',
  }),
  scope: 'organizationId',
  primaryKey: {
    name: 'webhook_endpoint_pkey',
    sqlName: 'webhook_endpoints_pkey',
    fields: ['organizationId', 'endpointId'],
  },
  createdAt: 'createdAt',
};

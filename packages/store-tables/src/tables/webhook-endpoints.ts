/**
 * The webhook endpoints table.
 * @module
 */
import type { WebhookEndpointRecord } from '@keyhold/activities';
import type { TableSpec } from '../table-spec.js';

/**
 * Webhook endpoints of an organization. The SQL table also counts consecutive failed
 * deliveries (`consecutive_failures`): that column is the Outbox's alone, in no record, so a
 * repository write leaves it as it is.
 * @example
 * WEBHOOK_ENDPOINTS.primaryKey.name; // 'webhook_endpoint_pkey'
 */
export const WEBHOOK_ENDPOINTS: TableSpec<WebhookEndpointRecord> = {
  table: 'webhook_endpoints',
  fields: [
    { field: 'organizationId', column: 'organization_id', type: 'text' },
    { field: 'endpointId', column: 'endpoint_id', type: 'text' },
    { field: 'url', column: 'url', type: 'text' },
    { field: 'name', column: 'name', type: 'text' },
    { field: 'isActive', column: 'is_active', type: 'boolean' },
    { field: 'disabledReason', column: 'disabled_reason', type: 'text', optional: true },
    { field: 'subscriptions', column: 'subscriptions', type: 'json' },
    { field: 'createdAt', column: 'created_at', type: 'integer' },
    { field: 'updatedAt', column: 'updated_at', type: 'integer' },
  ],
  scope: 'organizationId',
  primaryKey: {
    name: 'webhook_endpoint_pkey',
    sqlName: 'webhook_endpoints_pkey',
    fields: ['organizationId', 'endpointId'],
  },
  createdAt: 'createdAt',
};

/**
 * The activities table.
 * @module
 */
import type { ActivityRecord } from '@keyhold/activities';
import type { TableSpec } from '../table-spec.js';

/**
 * Activities, by id across all organizations; one per fingerprint (request body). Listed
 * newest first by id, by the stores' own paging queries. An update does not check the
 * fingerprint: the database refuses it, which aborts the SQL transaction.
 * @example
 * ACTIVITIES.unique?.[0]?.name; // 'activity_fingerprint'
 */
export const ACTIVITIES: TableSpec<ActivityRecord> = {
  table: 'activities',
  fields: [
    { field: 'id', column: 'id', type: 'text' },
    { field: 'organizationId', column: 'organization_id', type: 'text' },
    { field: 'type', column: 'type', type: 'text' },
    { field: 'status', column: 'status', type: 'text' },
    { field: 'parameters', column: 'parameters', type: 'json' },
    { field: 'result', column: 'result', type: 'json', optional: true },
    { field: 'failure', column: 'failure', type: 'json', optional: true },
    { field: 'votes', column: 'votes', type: 'json' },
    { field: 'fingerprint', column: 'fingerprint', type: 'text' },
    { field: 'timestampMs', column: 'timestamp_ms', type: 'text' },
    { field: 'createdAt', column: 'created_at', type: 'integer' },
    { field: 'updatedAt', column: 'updated_at', type: 'integer' },
  ],
  scope: 'organizationId',
  primaryKey: { name: 'activity_pkey', sqlName: 'activities_pkey', fields: ['id'] },
  unique: [
    {
      name: 'activity_fingerprint',
      sqlName: 'activities_fingerprint_key',
      fields: ['fingerprint'],
    },
  ],
};

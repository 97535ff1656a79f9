/**
 * The activities table.
 * @module
 */
import type { ActivityRecord } from '@keyhold/activities';
import { fieldColumns, type TableSpec } from '../table-spec.js';

/**
 * Activities, by id across all organizations; one per fingerprint (request body). Listed
 * newest first by id, by the stores' own paging queries. An update does not check the
 * fingerprint: the database refuses it, which aborts the SQL transaction.
 * @example
 * ACTIVITIES.unique?.[0]?.name; // 'activity_fingerprint'
 */
export const ACTIVITIES: TableSpec<ActivityRecord> = {
  table: 'activities',
  fields: fieldColumns<ActivityRecord>({
    id: 'text',
    organizationId: 'text',
    type: 'text',
    status: 'text',
    parameters: 'json',
    result: 'json?',
    failure: 'json?',
    votes: 'json',
    fingerprint: 'text',
    timestampMs: 'text',
    createdAt: 'integer',
    updatedAt: 'integer',
  }),
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

/**
 * The policy evaluations table.
 * @module
 */
import type { PolicyEvaluationRecord } from '@keyhold/activities';
import type { TableSpec } from '../table-spec.js';

/**
 * Decisions on activities (one per vote), by id; listed per activity by `createdAt`, ties in
 * insertion order.
 * @example
 * POLICY_EVALUATIONS.primaryKey.fields; // ['id']
 */
export const POLICY_EVALUATIONS: TableSpec<PolicyEvaluationRecord> = {
  table: 'policy_evaluations',
  fields: [
    { field: 'id', column: 'id', type: 'text' },
    { field: 'activityId', column: 'activity_id', type: 'text' },
    { field: 'organizationId', column: 'organization_id', type: 'text' },
    { field: 'voteId', column: 'vote_id', type: 'text', optional: true },
    { field: 'policyEvaluations', column: 'policy_evaluations', type: 'json' },
    { field: 'createdAt', column: 'created_at', type: 'integer' },
  ],
  scope: 'organizationId',
  primaryKey: {
    name: 'policy_evaluation_pkey',
    sqlName: 'policy_evaluations_pkey',
    fields: ['id'],
  },
  createdAt: 'createdAt',
};

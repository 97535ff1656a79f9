/**
 * The policy evaluations table.
 * @module
 */
import type { PolicyEvaluationRecord } from '@keyhold/activities';
import { fieldColumns, type TableSpec } from '../table-spec.js';

/**
 * Decisions on activities (one per vote), by id; listed per activity by `createdAt`, ties in
 * insertion order.
 * @example
 * POLICY_EVALUATIONS.primaryKey.fields; // ['id']
 */
export const POLICY_EVALUATIONS: TableSpec<PolicyEvaluationRecord> = {
  table: 'policy_evaluations',
  fields: fieldColumns<PolicyEvaluationRecord>({
    id: 'text',
    activityId: 'text',
    organizationId: 'text',
    voteId: 'text?',
    policyEvaluations: 'json',
    createdAt: 'integer',
  }),
  scope: 'organizationId',
  primaryKey: {
    name: 'policy_evaluation_pkey',
    sqlName: 'policy_evaluations_pkey',
    fields: ['id'],
  },
  createdAt: 'createdAt',
};

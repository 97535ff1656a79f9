/**
 * The policies table.
 * @module
 */
import type { PolicyRecord } from '@keyhold/activities';
import type { TableSpec } from '../table-spec.js';

/**
 * Policies of an organization; names unique in it ("policy label must be unique"), checked on
 * rename too. The policy-language texts are NULL when absent ("always").
 * @example
 * POLICIES.unique?.[0]?.name; // 'policy_name'
 */
export const POLICIES: TableSpec<PolicyRecord> = {
  table: 'policies',
  fields: [
    { field: 'organizationId', column: 'organization_id', type: 'text' },
    { field: 'policyId', column: 'policy_id', type: 'text' },
    { field: 'policyName', column: 'policy_name', type: 'text' },
    { field: 'effect', column: 'effect', type: 'text' },
    { field: 'condition', column: 'condition_expr', type: 'text', optional: true },
    { field: 'consensus', column: 'consensus_expr', type: 'text', optional: true },
    { field: 'time', column: 'time_expr', type: 'text', optional: true },
    { field: 'notes', column: 'notes', type: 'text' },
    { field: 'createdAt', column: 'created_at', type: 'integer' },
    { field: 'updatedAt', column: 'updated_at', type: 'integer' },
  ],
  scope: 'organizationId',
  primaryKey: {
    name: 'policy_pkey',
    sqlName: 'policies_pkey',
    fields: ['organizationId', 'policyId'],
  },
  unique: [
    {
      name: 'policy_name',
      sqlName: 'policies_name_key',
      fields: ['organizationId', 'policyName'],
      checkedOnUpdate: true,
    },
  ],
  createdAt: 'createdAt',
};

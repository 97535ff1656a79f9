/**
 * The policies table.
 * @module
 */
import type { PolicyRecord } from '@keyhold/activities';
import { fieldColumns, type TableSpec } from '../table-spec.js';

/**
 * Policies of an organization; names unique in it ("policy label must be unique"), checked on
 * rename too. The policy-language texts are NULL when absent ("always").
 * @example
 * POLICIES.unique?.[0]?.name; // 'policy_name'
 */
export const POLICIES: TableSpec<PolicyRecord> = {
  table: 'policies',
  fields: fieldColumns<PolicyRecord>({
    organizationId: 'text',
    policyId: 'text',
    policyName: 'text',
    effect: 'text',
    condition: { type: 'text?', column: 'condition_expr' },
    consensus: { type: 'text?', column: 'consensus_expr' },
    time: { type: 'text?', column: 'time_expr' },
    notes: 'text',
    createdAt: 'integer',
    updatedAt: 'integer',
  }),
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

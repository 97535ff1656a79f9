/**
 * The organizations table: one row per organization, sub-organizations naming their parent.
 * @module
 */
import type { OrganizationRecord } from '@keyhold/activities';
import type { TableSpec } from '../table-spec.js';

/**
 * Organizations, by id (listed by their own bespoke queries: roots by name, children).
 * @example
 * ORGANIZATIONS.primaryKey.name; // 'organization_pkey'
 */
export const ORGANIZATIONS: TableSpec<OrganizationRecord> = {
  table: 'organizations',
  fields: [
    { field: 'organizationId', column: 'organization_id', type: 'text' },
    { field: 'name', column: 'name', type: 'text' },
    {
      field: 'parentOrganizationId',
      column: 'parent_organization_id',
      type: 'text',
      optional: true,
    },
    { field: 'rootQuorum', column: 'root_quorum', type: 'json' },
    { field: 'createdAt', column: 'created_at', type: 'integer' },
    { field: 'updatedAt', column: 'updated_at', type: 'integer' },
  ],
  primaryKey: {
    name: 'organization_pkey',
    sqlName: 'organizations_pkey',
    fields: ['organizationId'],
  },
};

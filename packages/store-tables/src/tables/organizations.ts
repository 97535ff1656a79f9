/**
 * The organizations table: one row per organization, sub-organizations naming their parent.
 * @module
 */
import type { OrganizationRecord } from '@keyhold/activities';
import { fieldColumns, type TableSpec } from '../table-spec.js';

/**
 * Organizations, by id (listed by their own bespoke queries: roots by name, children).
 * @example
 * ORGANIZATIONS.primaryKey.name; // 'organization_pkey'
 */
export const ORGANIZATIONS: TableSpec<OrganizationRecord> = {
  table: 'organizations',
  fields: fieldColumns<OrganizationRecord>({
    organizationId: 'text',
    name: 'text',
    parentOrganizationId: 'text?',
    rootQuorum: 'json',
    allowedOrigins: 'text[]?',
    emailAuthDisabled: 'boolean?',
    emailRecoveryDisabled: 'boolean?',
    createdAt: 'integer',
    updatedAt: 'integer',
  }),
  primaryKey: {
    name: 'organization_pkey',
    sqlName: 'organizations_pkey',
    fields: ['organizationId'],
  },
};

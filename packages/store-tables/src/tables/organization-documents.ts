/**
 * The organization documents table.
 * @module
 */
import type { OrganizationDocumentRecord } from '@keyhold/activities';
import { fieldColumns, type TableSpec } from '../table-spec.js';

/**
 * Small records of an organization that have no table of their own (features, the auth
 * proxy's configuration, TVC records, payment methods, the billing tier, app proofs), by
 * kind; the body is JSON. No secret is kept here: a payment method keeps its last four digits.
 * @example
 * ORGANIZATION_DOCUMENTS.primaryKey.name; // 'organization_document_pkey'
 */
export const ORGANIZATION_DOCUMENTS: TableSpec<OrganizationDocumentRecord> = {
  table: 'organization_documents',
  fields: fieldColumns<OrganizationDocumentRecord>({
    organizationId: 'text',
    kind: 'text',
    documentId: 'text',
    body: 'json',
    createdAt: 'integer',
    updatedAt: 'integer',
  }),
  scope: 'organizationId',
  primaryKey: {
    name: 'organization_document_pkey',
    sqlName: 'organization_documents_pkey',
    fields: ['organizationId', 'kind', 'documentId'],
  },
  createdAt: 'createdAt',
};

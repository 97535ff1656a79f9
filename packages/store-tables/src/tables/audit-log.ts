/**
 * The audit chain tables: the entries of every organization's chain, and each chain's head.
 * @module
 */
import type { AuditEntryRecord, AuditHeadRecord } from '@keyhold/activities';
import { fieldColumns, type TableSpec } from '../table-spec.js';

/**
 * The links of the audit chains, by organization and seq. Never updated or deleted by Keyhold
 * (deleting an organization keeps its chain, as it keeps its activities).
 * @example
 * AUDIT_ENTRIES.primaryKey.fields; // ['organizationId', 'seq']
 */
export const AUDIT_ENTRIES: TableSpec<AuditEntryRecord> = {
  table: 'audit_entries',
  fields: fieldColumns<AuditEntryRecord>({
    organizationId: 'text',
    seq: 'integer',
    body: 'text',
    hash: 'text',
    createdAt: 'integer',
  }),
  scope: 'organizationId',
  primaryKey: {
    name: 'audit_entry_pkey',
    sqlName: 'audit_entries_pkey',
    fields: ['organizationId', 'seq'],
  },
  createdAt: 'createdAt',
};

/**
 * The head (newest seq and hash) of each organization's audit chain.
 * @example
 * AUDIT_HEADS.primaryKey.fields; // ['organizationId']
 */
export const AUDIT_HEADS: TableSpec<AuditHeadRecord> = {
  table: 'audit_heads',
  fields: fieldColumns<AuditHeadRecord>({
    organizationId: 'text',
    seq: 'integer',
    hash: 'text',
    createdAt: 'integer',
    updatedAt: 'integer',
  }),
  primaryKey: { name: 'audit_head_pkey', sqlName: 'audit_heads_pkey', fields: ['organizationId'] },
  createdAt: 'createdAt',
};

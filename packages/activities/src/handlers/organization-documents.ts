/**
 * Reading and writing organization documents (see `OrganizationDocumentRecord`) by kind.
 * @module
 */
import type { StoreTransaction } from '../ports/store.js';
import type { OrganizationDocumentKind, OrganizationDocumentRecord } from '../records.js';

/**
 * The organization's documents of one kind, oldest first.
 * @example
 * const features = await documentsOf(tx, organizationId, 'feature');
 */
export async function documentsOf(
  tx: StoreTransaction,
  organizationId: string,
  kind: OrganizationDocumentKind,
): Promise<OrganizationDocumentRecord[]> {
  return (await tx.organizationDocuments.list(organizationId)).filter((d) => d.kind === kind);
}

/**
 * Writes a document: inserted when new, its body replaced (creation time kept) otherwise.
 * @example
 * await putDocument(tx, { organizationId, kind: 'feature', documentId: 'FEATURE_NAME_WEBHOOK', body: { value: '' } }, now);
 */
export async function putDocument(
  tx: StoreTransaction,
  document: Pick<OrganizationDocumentRecord, 'organizationId' | 'kind' | 'documentId' | 'body'>,
  now: number,
): Promise<OrganizationDocumentRecord> {
  const existing = await tx.organizationDocuments.get(
    document.organizationId,
    document.kind,
    document.documentId,
  );
  const record: OrganizationDocumentRecord = {
    ...document,
    createdAt: existing?.createdAt ?? now,
    updatedAt: now,
  };
  await (existing
    ? tx.organizationDocuments.update(record)
    : tx.organizationDocuments.insert(record));
  return record;
}

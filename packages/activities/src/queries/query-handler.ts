/**
 * What one query does, given the validated body and the authenticated principal.
 * @module
 */
import type { StoreTransaction } from '../ports/store.js';
import type { Principal } from '../principal.js';
import type { OrganizationRecord } from '../records.js';

export interface QueryContext {
  readonly tx: StoreTransaction;
  readonly organization: OrganizationRecord;
  readonly principal: Principal;
}

// biome-ignore lint/suspicious/noExplicitAny: bodies are validated by the query schema first.
export type QueryHandler = (ctx: QueryContext, body: any) => Promise<Record<string, unknown>>;

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
  /** The server's time (epoch ms). */
  readonly now: number;
  /** How long after its first vote an activity may still be approved (for canApprove). */
  readonly consensusExpiryMs: number;
}

// biome-ignore lint/suspicious/noExplicitAny: bodies are validated by the query schema first.
export type QueryHandler = (ctx: QueryContext, body: any) => Promise<Record<string, unknown>>;

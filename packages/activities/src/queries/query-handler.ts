/**
 * What one query does, given the validated body and the authenticated principal.
 * @module
 */
import type { BootProof, QueryName, QueryOf } from '@keyhold/protocol';
import type { SendTransactionChains } from '../ports/evm-send-chain.js';
import type { OnRampProvider } from '../ports/on-ramp-provider.js';
import type { StoreTransaction } from '../ports/store.js';
import type { SessionReader } from '../read-only-session.js';
import type { OrganizationRecord } from '../records.js';

export interface QueryContext {
  readonly tx: StoreTransaction;
  readonly organization: OrganizationRecord;
  /** Who reads: a stamp's user, or a read-only session's (no API key, no stamp). */
  readonly principal: SessionReader;
  /** The server's time (epoch ms). */
  readonly now: number;
  /** How long after its first vote an activity may still be approved (for canApprove). */
  readonly consensusExpiryMs: number;
  /** This server's software boot proof (get_boot_proof), when the server made one. */
  readonly bootProof?: BootProof;
  /** The chains of the send-transaction queries (`--evm-rpc`, `--solana-rpc`). */
  readonly chains: SendTransactionChains;
  /** The fiat on-ramp provider adapters by provider name (get_onramp_transaction_status). */
  readonly onRampProviders: ReadonlyMap<string, OnRampProvider>;
}

/**
 * A query body that passed `validateQuery` for its name, when the name is known only at run
 * time.
 * @example
 * const body: ValidatedQuery = { organizationId: '…', walletId: '…' };
 */
export type ValidatedQuery = Record<string, unknown>;

/**
 * What one query does, with its body as the query's schema types it (`B`). Without a type
 * argument it is the handler as the service calls it by run-time name, body already validated.
 * @example
 * const listWallets: QueryHandler<QueryOf<'list_wallets'>> = async (ctx) => ({ wallets: [] });
 */
export type QueryHandler<B = ValidatedQuery> = (
  ctx: QueryContext,
  body: B,
) => Promise<Record<string, unknown>>;

/**
 * The handler of one query, its body typed by the query's schema.
 * @example
 * export const getWallet: QueryHandlerOf<'get_wallet'> = async (ctx, body) => { … };
 */
export type QueryHandlerOf<N extends QueryName> = QueryHandler<QueryOf<N>>;

/**
 * A handler for every query that has a schema, each typed by its query: a query without a
 * handler, or a handler reading a member its body does not have, does not compile.
 * @example
 * const handlers: QueryHandlerMap = { whoami, get_wallet: getWallet, … };
 */
export type QueryHandlerMap = { readonly [N in QueryName]: QueryHandlerOf<N> };

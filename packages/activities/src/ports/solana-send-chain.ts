/**
 * The chain port of SOL_SEND_TRANSACTION and of get_send_transaction_status for its
 * transactions: one Solana cluster's JSON-RPC endpoint, reads and one write (signed bytes). No
 * key crosses it: signing goes through the KeyVault. `@keyhold/chain-solana` implements it over
 * `@solana/kit` (`keyhold serve --solana-rpc URL`).
 *
 * Failures by code (an adapter on another copy of this package is recognized): the endpoint
 * did not answer → `SOLANA_CHAIN_UNAVAILABLE`; the node refused a transaction →
 * SolanaTransactionRefusedError with its words.
 * @module
 */

/**
 * What a simulation of a signed transaction says: `err` (the runtime's error, as JSON text)
 * when it would fail, and the programs' logs.
 * @example
 * const outcome: SolanaSimulation = { logs: ['Program 11111111111111111111111111111111 success'] };
 */
export interface SolanaSimulation {
  readonly err?: string;
  readonly logs: readonly string[];
}

/**
 * A transaction's status as `getSignatureStatuses` reports it: how far the cluster has
 * confirmed it, and its runtime error (JSON text) when it failed.
 * @example
 * const status: SolanaSignatureStatus = { confirmationStatus: 'finalized' };
 */
export interface SolanaSignatureStatus {
  readonly confirmationStatus: 'processed' | 'confirmed' | 'finalized' | null;
  readonly err?: string;
}

/**
 * One Solana cluster. Every method rejects with a `SOLANA_CHAIN_UNAVAILABLE` error when the
 * endpoint cannot be reached. Transactions cross it as their wire bytes in base64.
 * @example
 * const { blockhash } = await chain.getLatestBlockhash();
 */
export interface SolanaSendChain {
  /** The cluster's genesis hash, base58: its CAIP-2 reference is the first 32 characters. */
  getGenesisHash(): Promise<string>;
  getLatestBlockhash(): Promise<{ blockhash: string; lastValidBlockHeight: bigint }>;
  /** Runs the signed transaction against the current state, signatures verified; sends nothing. */
  simulateTransaction(wireBase64: string): Promise<SolanaSimulation>;
  /**
   * Sends signed bytes; resolves with the first signature (base58). Rejects with
   * SolanaTransactionRefusedError when the node refuses them. Sending a transaction the
   * cluster has already processed is harmless (the same signature, one execution).
   */
  sendTransaction(wireBase64: string): Promise<string>;
  /** The status of a transaction, looked up in the cluster's history too; undefined: unknown. */
  getSignatureStatus(signature: string): Promise<SolanaSignatureStatus | undefined>;
}

/**
 * The node refused a transaction (`sendTransaction`): its words, and whether it said the
 * transaction was processed already (which is not a failure: the signature is the same).
 * @example
 * throw new SolanaTransactionRefusedError('Blockhash not found', false);
 */
export class SolanaTransactionRefusedError extends Error {
  readonly code = 'SOLANA_TRANSACTION_REFUSED';
  constructor(
    readonly detail: string,
    readonly alreadyProcessed = false,
  ) {
    super(`transaction refused: ${detail}`);
    this.name = 'SolanaTransactionRefusedError';
  }

  static is(value: unknown): value is SolanaTransactionRefusedError {
    return (value as { code?: unknown } | null)?.code === 'SOLANA_TRANSACTION_REFUSED';
  }
}

/**
 * The Solana endpoint did not answer (refused the connection, timed out, answered with an HTTP
 * error or something that is not JSON-RPC).
 * @example
 * throw new SolanaChainUnavailableError('connect ECONNREFUSED 127.0.0.1:8899');
 */
export class SolanaChainUnavailableError extends Error {
  readonly code = 'SOLANA_CHAIN_UNAVAILABLE';
  constructor(readonly detail: string) {
    super(`the Solana RPC endpoint did not answer: ${detail}`);
    this.name = 'SolanaChainUnavailableError';
  }
}

/**
 * True when `error` says the Solana endpoint did not answer (by code, see the module).
 * @example
 * if (isSolanaChainUnavailable(error)) throw new KeyholdError('SOLANA_CHAIN_UNAVAILABLE');
 */
export function isSolanaChainUnavailable(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 'SOLANA_CHAIN_UNAVAILABLE';
}

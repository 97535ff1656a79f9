/**
 * The SolanaSendChain port of `@keyhold/activities` (SOL_SEND_TRANSACTION and its status) over
 * `@solana/kit`'s JSON-RPC client: `getGenesisHash`, `getLatestBlockhash`,
 * `simulateTransaction`, `sendTransaction` and `getSignatureStatuses`, nothing else.
 *
 * An endpoint that does not answer — refused connection, timeout, an HTTP error, anything
 * that is not a JSON-RPC answer, or a JSON-RPC error to a read — becomes a
 * SolanaChainUnavailableError (`SOLANA_CHAIN_UNAVAILABLE`); a JSON-RPC error to
 * `sendTransaction` (its preflight refused the transaction) a SolanaTransactionRefusedError with
 * the node's words, marked when the transaction was processed already.
 * @module
 */
import {
  SolanaChainUnavailableError,
  type SolanaSendChain,
  type SolanaSignatureStatus,
  SolanaTransactionRefusedError,
} from '@keyhold/activities';
import {
  type Base64EncodedWireTransaction,
  createSolanaRpc,
  isSolanaError,
  type Signature,
  SOLANA_ERROR__TRANSACTION_ERROR__ALREADY_PROCESSED,
} from '@solana/kit';

/**
 * Settings of the adapter.
 * @example
 * const options: KitSolanaSendChainOptions = { timeoutMs: 5_000, commitment: 'finalized' };
 */
export interface KitSolanaSendChainOptions {
  /** How long one request may take before the endpoint counts as not answering. Default 10 s. */
  readonly timeoutMs?: number;
  /** The commitment reads and simulations use. Default `confirmed`. */
  readonly commitment?: 'processed' | 'confirmed' | 'finalized';
}

/** JSON text of a runtime error (kit decodes its integers as bigints). */
function jsonOf(value: unknown): string {
  return JSON.stringify(value, (_key, v) => (typeof v === 'bigint' ? Number(v) : v));
}

/** True when the node answered with a JSON-RPC error (kit gives those their negative code). */
function isJsonRpcError(error: unknown): boolean {
  return isSolanaError(error) && (error.context as { __code: number }).__code < 0;
}

/** The words of a failure, first line, bounded. */
function detailOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : '';
  return `${text.split('\n')[0]}${cause ? ` (${cause.split('\n')[0]})` : ''}`.slice(0, 300);
}

/**
 * A SolanaSendChain over the JSON-RPC endpoint at `url`.
 * @example
 * const chain = createKitSolanaSendChain('http://127.0.0.1:8899');
 * const { blockhash } = await chain.getLatestBlockhash();
 */
export function createKitSolanaSendChain(
  url: string,
  options: KitSolanaSendChainOptions = {},
): SolanaSendChain {
  const rpc = createSolanaRpc(url);
  const timeoutMs = options.timeoutMs ?? 10_000;
  const commitment = options.commitment ?? 'confirmed';
  /** Runs one request; whatever fails is the endpoint not answering. */
  const read = async <T>(request: (abortSignal: AbortSignal) => Promise<T>): Promise<T> => {
    try {
      return await request(AbortSignal.timeout(timeoutMs));
    } catch (error) {
      throw new SolanaChainUnavailableError(detailOf(error));
    }
  };
  let genesisHash: string | undefined;
  return {
    async getGenesisHash() {
      // A cluster's genesis hash never changes: asked once.
      genesisHash ??= await read((abortSignal) => rpc.getGenesisHash().send({ abortSignal }));
      return genesisHash;
    },
    async getLatestBlockhash() {
      const { value } = await read((abortSignal) =>
        rpc.getLatestBlockhash({ commitment }).send({ abortSignal }),
      );
      return { blockhash: value.blockhash, lastValidBlockHeight: value.lastValidBlockHeight };
    },
    async simulateTransaction(wireBase64) {
      const { value } = await read((abortSignal) =>
        rpc
          .simulateTransaction(wireBase64 as Base64EncodedWireTransaction, {
            encoding: 'base64',
            sigVerify: true,
            replaceRecentBlockhash: false,
            commitment,
          })
          .send({ abortSignal }),
      );
      return {
        ...(value.err !== null ? { err: jsonOf(value.err) } : {}),
        logs: value.logs ?? [],
      };
    },
    async sendTransaction(wireBase64) {
      try {
        return await rpc
          .sendTransaction(wireBase64 as Base64EncodedWireTransaction, {
            encoding: 'base64',
            preflightCommitment: commitment,
          })
          .send({ abortSignal: AbortSignal.timeout(timeoutMs) });
      } catch (error) {
        if (!isJsonRpcError(error)) throw new SolanaChainUnavailableError(detailOf(error));
        const cause = (error as Error).cause;
        throw new SolanaTransactionRefusedError(
          detailOf(error),
          isSolanaError(cause, SOLANA_ERROR__TRANSACTION_ERROR__ALREADY_PROCESSED),
        );
      }
    },
    async getSignatureStatus(signature): Promise<SolanaSignatureStatus | undefined> {
      const { value } = await read((abortSignal) =>
        rpc
          .getSignatureStatuses([signature as Signature], { searchTransactionHistory: true })
          .send({ abortSignal }),
      );
      const status = value[0];
      if (!status) return undefined;
      return {
        confirmationStatus: status.confirmationStatus,
        ...(status.err !== null ? { err: jsonOf(status.err) } : {}),
      };
    },
  };
}

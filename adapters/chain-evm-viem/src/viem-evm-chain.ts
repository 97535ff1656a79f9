/**
 * The EvmChain port over viem's public client (JSON-RPC over HTTP). A transport failure (the
 * node refused, timed out, answered 5xx) becomes EvmChainUnavailableError; a reverted
 * `eth_call` becomes EvmCallRevertedError with its revert data.
 * @module
 */
import {
  EvmCallRevertedError,
  type EvmChain,
  EvmChainUnavailableError,
  type EvmFees,
  type EvmReceipt,
} from '@keyhold/payments';
import {
  type Address,
  BaseError,
  CallExecutionError,
  createPublicClient,
  type Hex,
  HttpRequestError,
  http,
  type PublicClient,
  RpcRequestError,
  TimeoutError,
  TransactionNotFoundError,
  TransactionReceiptNotFoundError,
} from 'viem';

/**
 * Options of the viem chain.
 * @example
 * createViemEvmChain(url, { timeoutMs: 2_000 } satisfies ViemEvmChainOptions);
 */
export interface ViemEvmChainOptions {
  /** Per-request timeout, ms. Default 5000. */
  timeoutMs?: number;
  /** Retries of a failed request. Default 0: the gateway answers retryable errors itself. */
  retryCount?: number;
}

/** True when `error` says the node could not be reached (as opposed to a node's refusal). */
function unreachable(error: unknown): boolean {
  if (error instanceof HttpRequestError || error instanceof TimeoutError) return true;
  if (error instanceof BaseError) {
    return error.walk((e) => e instanceof HttpRequestError || e instanceof TimeoutError) !== null;
  }
  return false;
}

/**
 * The node's answer, or EvmChainUnavailableError when there was none (the payment gateway's
 * chain and the send-transaction chain call nodes through it alike).
 */
export async function rpc<T>(what: string, request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (error) {
    if (unreachable(error)) {
      throw new EvmChainUnavailableError(`${what}: the chain's RPC endpoint did not answer`, {
        cause: error,
      });
    }
    throw error;
  }
}

/** The revert data of a failed call, when the node returned some. */
function revertDataOf(error: BaseError): Hex | undefined {
  const withData = error.walk((e) => typeof (e as { data?: unknown }).data === 'string') as {
    data?: Hex;
  } | null;
  return withData?.data;
}

/**
 * An EvmChain on a JSON-RPC endpoint.
 * @example
 * const chain = createViemEvmChain('http://127.0.0.1:8545');
 * await chain.getChainId(); // 84532
 */
export function createViemEvmChain(url: string, options: ViemEvmChainOptions = {}): EvmChain {
  const client: PublicClient = createPublicClient({
    transport: http(url, {
      timeout: options.timeoutMs ?? 5_000,
      retryCount: options.retryCount ?? 0,
    }),
  });
  return {
    getChainId: () => rpc('eth_chainId', () => client.getChainId()),
    getCode: (address: Address) => rpc('eth_getCode', () => client.getCode({ address })),
    async call({ to, data, from }) {
      try {
        const result = await rpc('eth_call', () =>
          client.call({ to, data, ...(from ? { account: from } : {}) }),
        );
        return result.data ?? '0x';
      } catch (error) {
        if (EvmChainUnavailableError.is(error)) throw error;
        if (
          error instanceof CallExecutionError ||
          (error instanceof BaseError && error.walk((e) => e instanceof RpcRequestError) !== null)
        ) {
          throw new EvmCallRevertedError(error.shortMessage, revertDataOf(error));
        }
        throw error;
      }
    },
    verifyHash: ({ address, hash, signature }) =>
      rpc('verifyHash', () => client.verifyHash({ address, hash, signature })),
    estimateGas: ({ to, data, from }) =>
      rpc('eth_estimateGas', () => client.estimateGas({ to, data, account: from })),
    async getFees(): Promise<EvmFees> {
      const fees = await rpc('eth_feeHistory', () => client.estimateFeesPerGas());
      return {
        maxFeePerGas: fees.maxFeePerGas ?? 1_000_000_000n,
        maxPriorityFeePerGas: fees.maxPriorityFeePerGas ?? 1_000_000n,
      };
    },
    getTransactionCount: (address: Address) =>
      rpc('eth_getTransactionCount', () =>
        client.getTransactionCount({ address, blockTag: 'pending' }),
      ),
    sendRawTransaction: (serialized: Hex) =>
      rpc('eth_sendRawTransaction', () =>
        client.sendRawTransaction({ serializedTransaction: serialized }),
      ),
    async getTransactionReceipt(hash: Hex): Promise<EvmReceipt | undefined> {
      try {
        const receipt = await rpc('eth_getTransactionReceipt', () =>
          client.getTransactionReceipt({ hash }),
        );
        return { status: receipt.status, blockNumber: receipt.blockNumber };
      } catch (error) {
        if (error instanceof TransactionReceiptNotFoundError) return undefined;
        throw error;
      }
    },
    async hasTransaction(hash: Hex): Promise<boolean> {
      try {
        await rpc('eth_getTransactionByHash', () => client.getTransaction({ hash }));
        return true;
      } catch (error) {
        if (error instanceof TransactionNotFoundError) return false;
        throw error;
      }
    },
  };
}

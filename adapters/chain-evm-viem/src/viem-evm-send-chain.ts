/**
 * The EvmSendChain port of `@keyhold/activities` (the send-transaction activities) over viem's
 * public client, on the same `--evm-rpc` endpoints as the payment gateway's EvmChain. An
 * endpoint that does not answer becomes an `EVM_CHAIN_UNAVAILABLE` error; a node's refusal of
 * signed bytes EvmTransactionRefusedError (nonce too low, insufficient funds, already known);
 * a reverting call or estimate EvmExecutionRevertedError with its revert data.
 * @module
 */
import {
  type EvmCallRequest,
  EvmExecutionRevertedError,
  type EvmRefusalReason,
  type EvmSendChain,
  type EvmSendReceipt,
  EvmTransactionRefusedError,
} from '@keyhold/activities';
import { EvmChainUnavailableError } from '@keyhold/payments';
import {
  type Address,
  BaseError,
  createPublicClient,
  type Hex,
  http,
  InsufficientFundsError,
  NonceTooLowError,
  type PublicClient,
  TransactionNotFoundError,
  TransactionReceiptNotFoundError,
} from 'viem';
import { rpc, type ViemEvmChainOptions } from './viem-evm-chain.js';

/** The words of the innermost error (the node's own message). */
function detailOf(error: unknown): string {
  if (error instanceof BaseError) {
    const details = (error as BaseError & { details?: string }).details;
    return details || error.shortMessage;
  }
  return error instanceof Error ? error.message : String(error);
}

/** Why the node refused a raw transaction. */
function refusalOf(error: unknown): EvmRefusalReason {
  if (error instanceof BaseError) {
    if (error.walk((e) => e instanceof NonceTooLowError)) return 'nonce_too_low';
    if (error.walk((e) => e instanceof InsufficientFundsError)) return 'insufficient_funds';
  }
  const text = detailOf(error).toLowerCase();
  if (text.includes('nonce too low')) return 'nonce_too_low';
  if (text.includes('insufficient funds')) return 'insufficient_funds';
  if (text.includes('already known') || text.includes('already imported')) return 'already_known';
  return 'other';
}

/** The revert data of a failed call or estimate, when the node returned some. */
function revertDataOf(error: BaseError): string | undefined {
  const withData = error.walk(
    (e) =>
      typeof (e as { data?: unknown }).data === 'string' &&
      String((e as { data: string }).data).startsWith('0x'),
  ) as { data?: string } | null;
  return withData?.data;
}

/** True when the failure is the call's revert (not the node's fault). */
function reverted(error: unknown): error is BaseError {
  if (!(error instanceof BaseError)) return false;
  const text = `${error.shortMessage} ${detailOf(error)}`.toLowerCase();
  return text.includes('revert') || revertDataOf(error) !== undefined;
}

/** A call's fields as viem's request members. */
function callOf(request: EvmCallRequest) {
  return {
    ...(request.from ? { account: request.from as Address } : {}),
    to: request.to as Address,
    ...(request.value !== undefined ? { value: request.value } : {}),
    ...(request.data ? { data: request.data as Hex } : {}),
    ...(request.gas !== undefined ? { gas: request.gas } : {}),
  };
}

/**
 * An EvmSendChain on a JSON-RPC endpoint.
 * @example
 * const chain = createViemEvmSendChain('http://127.0.0.1:8545');
 * await chain.getTransactionCount('0x…', 'pending'); // 0
 */
export function createViemEvmSendChain(
  url: string,
  options: ViemEvmChainOptions = {},
): EvmSendChain {
  const client: PublicClient = createPublicClient({
    transport: http(url, {
      timeout: options.timeoutMs ?? 5_000,
      retryCount: options.retryCount ?? 0,
    }),
  });
  const revertingCall = async <T>(what: string, run: () => Promise<T>): Promise<T> => {
    try {
      return await rpc(what, run);
    } catch (error) {
      if (EvmChainUnavailableError.is(error)) throw error;
      // The sender cannot pay what the call moves: the node's refusal, not the contract's.
      if (refusalOf(error) === 'insufficient_funds') {
        throw new EvmTransactionRefusedError('insufficient_funds', detailOf(error));
      }
      if (reverted(error)) {
        throw new EvmExecutionRevertedError(detailOf(error), revertDataOf(error));
      }
      throw error;
    }
  };
  return {
    getChainId: () => rpc('eth_chainId', () => client.getChainId()),
    getTransactionCount: (address, blockTag) =>
      rpc('eth_getTransactionCount', () =>
        client.getTransactionCount({ address: address as Address, blockTag }),
      ),
    getBalance: (address) =>
      rpc('eth_getBalance', () => client.getBalance({ address: address as Address })),
    async getFees() {
      const fees = await rpc('eth_feeHistory', () => client.estimateFeesPerGas());
      return {
        maxFeePerGas: fees.maxFeePerGas ?? 1_000_000_000n,
        maxPriorityFeePerGas: fees.maxPriorityFeePerGas ?? 1_000_000n,
      };
    },
    estimateGas: (request) =>
      revertingCall('eth_estimateGas', () =>
        client.estimateGas({ ...callOf(request), account: (request.from ?? undefined) as Address }),
      ),
    async call(request) {
      const result = await revertingCall('eth_call', () =>
        client.call({
          ...callOf(request),
          ...(request.blockNumber !== undefined ? { blockNumber: request.blockNumber } : {}),
        }),
      );
      return result.data ?? '0x';
    },
    async sendRawTransaction(serialized) {
      try {
        return await rpc('eth_sendRawTransaction', () =>
          client.sendRawTransaction({ serializedTransaction: serialized as Hex }),
        );
      } catch (error) {
        if (EvmChainUnavailableError.is(error)) throw error;
        throw new EvmTransactionRefusedError(refusalOf(error), detailOf(error));
      }
    },
    async getTransaction(hash) {
      try {
        const found = await rpc('eth_getTransactionByHash', () =>
          client.getTransaction({ hash: hash as Hex }),
        );
        return found.blockNumber === null ? {} : { blockNumber: found.blockNumber };
      } catch (error) {
        if (error instanceof TransactionNotFoundError) return undefined;
        throw error;
      }
    },
    async getTransactionReceipt(hash): Promise<EvmSendReceipt | undefined> {
      try {
        const receipt = await rpc('eth_getTransactionReceipt', () =>
          client.getTransactionReceipt({ hash: hash as Hex }),
        );
        return {
          status: receipt.status,
          blockNumber: receipt.blockNumber,
          gasUsed: receipt.gasUsed,
          effectiveGasPrice: receipt.effectiveGasPrice,
        };
      } catch (error) {
        if (error instanceof TransactionReceiptNotFoundError) return undefined;
        throw error;
      }
    },
  };
}

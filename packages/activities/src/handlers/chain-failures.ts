/**
 * The chain's failures as the catalogue's refusals: an endpoint that does not answer is
 * EVM_CHAIN_UNAVAILABLE (503, Retry-After), a refused transaction NONCE_TOO_LOW,
 * INSUFFICIENT_FUNDS or TRANSACTION_REJECTED, a reverting call TRANSACTION_REVERTED with the
 * decoded revert in `details` (`reason`, and `revertChain` as JSON).
 * @module
 */
import { KeyholdError } from '@keyhold/protocol';
import {
  EvmExecutionRevertedError,
  EvmTransactionRefusedError,
  isEvmChainUnavailable,
} from '../ports/evm-send-chain.js';
import { decodeRevert } from './revert-chain.js';

/**
 * Runs a chain request; the chain's failures become the catalogue's refusals.
 * @example
 * const nonce = await onChain(() => chain.getTransactionCount(from, 'pending'));
 */
export async function onChain<T>(request: () => Promise<T>, to?: string): Promise<T> {
  try {
    return await request();
  } catch (error) {
    throw chainRefusal(error, to);
  }
}

/**
 * The KeyholdError of a chain failure; anything else unchanged.
 * @example
 * throw chainRefusal(error, to);
 */
export function chainRefusal(error: unknown, to?: string): unknown {
  if (isEvmChainUnavailable(error)) {
    return new KeyholdError('EVM_CHAIN_UNAVAILABLE', {
      reason: error instanceof Error ? error.message : String(error),
    });
  }
  if (EvmTransactionRefusedError.is(error)) {
    if (error.reason === 'nonce_too_low') {
      return new KeyholdError('NONCE_TOO_LOW', { reason: error.detail });
    }
    if (error.reason === 'insufficient_funds') {
      return new KeyholdError('INSUFFICIENT_FUNDS', { reason: error.detail });
    }
    return new KeyholdError('TRANSACTION_REJECTED', { reason: error.detail });
  }
  if (EvmExecutionRevertedError.is(error)) {
    const entry = decodeRevert(to ?? '', error.data);
    return new KeyholdError('TRANSACTION_REVERTED', {
      reason: entry.displayMessage,
      revertChain: [entry],
    });
  }
  return error;
}

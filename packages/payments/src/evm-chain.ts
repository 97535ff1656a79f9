/**
 * The EvmChain port: what the facilitator asks of one EVM chain's JSON-RPC endpoint. Pure
 * reads and one write (a signed transaction); the settlement key never crosses it (the
 * facilitator signs through the KeyVault).
 * @module
 */
import type { Address, Hex } from 'viem';

/**
 * A transaction's receipt, as far as settlement cares.
 * @example
 * const receipt: EvmReceipt = { status: 'success', blockNumber: 12n };
 */
export interface EvmReceipt {
  readonly status: 'success' | 'reverted';
  readonly blockNumber: bigint;
}

/**
 * The fees to offer for an EIP-1559 transaction.
 * @example
 * const fees: EvmFees = { maxFeePerGas: 2_000_000_000n, maxPriorityFeePerGas: 1_000_000n };
 */
export interface EvmFees {
  readonly maxFeePerGas: bigint;
  readonly maxPriorityFeePerGas: bigint;
}

/**
 * One EVM chain. Every method throws EvmChainUnavailableError when the endpoint cannot be
 * reached; `call` throws EvmCallRevertedError when the call reverts.
 * @example
 * const receipt = await chain.getTransactionReceipt(hash); // undefined: not mined yet
 */
export interface EvmChain {
  getChainId(): Promise<number>;
  getCode(address: Address): Promise<Hex | undefined>;
  /** `eth_call` at the latest block. */
  call(request: { to: Address; data: Hex; from?: Address }): Promise<Hex>;
  /**
   * Whether `signature` by `address` over `hash` holds: ecrecover for an account, ERC-1271 for a
   * deployed contract, ERC-6492 for a counterfactual one.
   */
  verifyHash(request: { address: Address; hash: Hex; signature: Hex }): Promise<boolean>;
  estimateGas(request: { to: Address; data: Hex; from: Address }): Promise<bigint>;
  getFees(): Promise<EvmFees>;
  /** The next nonce of `address`, pending transactions included. */
  getTransactionCount(address: Address): Promise<number>;
  /** Broadcasts signed bytes; the hash. Broadcasting the same bytes again is harmless. */
  sendRawTransaction(serialized: Hex): Promise<Hex>;
  getTransactionReceipt(hash: Hex): Promise<EvmReceipt | undefined>;
  /** True when the node knows the transaction (pending or mined). */
  hasTransaction(hash: Hex): Promise<boolean>;
}

/**
 * The chain's RPC endpoint did not answer (refused, timed out, a 5xx).
 * @example
 * if (EvmChainUnavailableError.is(error)) throw new PayError('PAYMENT_SERVICE_UNAVAILABLE');
 */
export class EvmChainUnavailableError extends Error {
  readonly code = 'EVM_CHAIN_UNAVAILABLE';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'EvmChainUnavailableError';
  }

  /** By code, so that an adapter's copy of this package is recognized. */
  static is(value: unknown): value is EvmChainUnavailableError {
    return (value as { code?: unknown } | null)?.code === 'EVM_CHAIN_UNAVAILABLE';
  }
}

/**
 * An `eth_call` reverted; `data` is the revert data when the node returned it.
 * @example
 * if (EvmCallRevertedError.is(error)) return { isValid: false, invalidReason: 'invalid_exact_evm_transaction_simulation_failed' };
 */
export class EvmCallRevertedError extends Error {
  readonly code = 'EVM_CALL_REVERTED';
  constructor(
    message: string,
    readonly data?: Hex,
  ) {
    super(message);
    this.name = 'EvmCallRevertedError';
  }

  static is(value: unknown): value is EvmCallRevertedError {
    return (value as { code?: unknown } | null)?.code === 'EVM_CALL_REVERTED';
  }
}

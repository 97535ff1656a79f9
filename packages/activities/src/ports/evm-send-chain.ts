/**
 * The chain port of the send-transaction activities (ETH_SEND_RAW_TRANSACTION,
 * ETH_SEND_TRANSACTION, get_send_transaction_status, get_nonces, get_wallet_address_balances):
 * one EVM chain's JSON-RPC endpoint, reads and one write (signed bytes). No key crosses it:
 * signing goes through the KeyVault. `@keyhold/chain-evm-viem` implements it beside the
 * payment gateway's EvmChain, over the same `--evm-rpc` endpoints.
 *
 * Failures by code (an adapter on another copy of this package is recognized): the endpoint
 * did not answer → `EVM_CHAIN_UNAVAILABLE` (the same code as `@keyhold/payments`'
 * EvmChainUnavailableError); the node refused signed bytes → EvmTransactionRefusedError; a call
 * or an estimate reverted → EvmExecutionRevertedError with the revert data.
 * @module
 */
import type { SolanaSendChain } from './solana-send-chain.js';

/**
 * A mined transaction's receipt, as far as the status query cares.
 * @example
 * const receipt: EvmSendReceipt = { status: 'success', blockNumber: 12n, gasUsed: 21_000n, effectiveGasPrice: 1n };
 */
export interface EvmSendReceipt {
  readonly status: 'success' | 'reverted';
  readonly blockNumber: bigint;
  readonly gasUsed: bigint;
  readonly effectiveGasPrice: bigint;
}

/**
 * A call: what `eth_call` and `eth_estimateGas` take. Hex strings `0x`-prefixed.
 * @example
 * const call: EvmCallRequest = { from: '0x…', to: '0x…', value: 0n, data: '0x' };
 */
export interface EvmCallRequest {
  readonly from?: string;
  readonly to: string;
  readonly value?: bigint;
  readonly data?: string;
  readonly gas?: bigint;
  /** Replays at this block (a mined transaction's revert); default the latest. */
  readonly blockNumber?: bigint;
}

/**
 * One EVM chain. Every method rejects with an `EVM_CHAIN_UNAVAILABLE` error when the endpoint
 * cannot be reached.
 * @example
 * const nonce = await chain.getTransactionCount('0x…', 'pending');
 */
export interface EvmSendChain {
  getChainId(): Promise<number>;
  /** The next nonce: mined transactions (`latest`) or mined and pending ones (`pending`). */
  getTransactionCount(address: string, blockTag: 'latest' | 'pending'): Promise<number>;
  /** The native balance, wei. */
  getBalance(address: string): Promise<bigint>;
  /** Fees to offer for an EIP-1559 transaction now. */
  getFees(): Promise<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }>;
  /** Rejects with EvmExecutionRevertedError when the call reverts. */
  estimateGas(request: EvmCallRequest): Promise<bigint>;
  /** `eth_call`; rejects with EvmExecutionRevertedError when the call reverts. */
  call(request: EvmCallRequest): Promise<string>;
  /**
   * Broadcasts signed bytes; resolves with the hash. Rejects with EvmTransactionRefusedError
   * when the node refuses them. Broadcasting bytes the node already has is harmless.
   */
  sendRawTransaction(serialized: string): Promise<string>;
  /** The transaction when the node knows it (pending or mined), with its block when mined. */
  getTransaction(hash: string): Promise<{ blockNumber?: bigint } | undefined>;
  getTransactionReceipt(hash: string): Promise<EvmSendReceipt | undefined>;
}

/**
 * The chains the send-transaction activities reach, by CAIP-2 id: EVM chains (`eip155:84532`)
 * and Solana clusters (`solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1`, the canonical id of devnet).
 * A Solana chain answered for an id is checked against it by its genesis hash before use, so
 * one endpoint may be offered for every Solana id.
 * @example
 * const chain = chains.evm('eip155:84532'); // undefined: no RPC endpoint for that network
 */
export interface SendTransactionChains {
  evm(caip2: string): EvmSendChain | undefined;
  solana(caip2: string): SolanaSendChain | undefined;
}

/**
 * The inversify service identifier of the SendTransactionChains port.
 * @example
 * container.bind(SendTransactionChains).toConstantValue(chains);
 */
export const SendTransactionChains: unique symbol = Symbol.for('keyhold.SendTransactionChains');

/**
 * No chain at all: what an embedded Keyhold has unless given some (every send answers
 * EVM_RPC_NOT_CONFIGURED or SOLANA_RPC_NOT_CONFIGURED).
 * @example
 * noSendTransactionChains.evm('eip155:84532'); // undefined
 */
export const noSendTransactionChains: SendTransactionChains = {
  evm: () => undefined,
  solana: () => undefined,
};

/**
 * Chains from a map of CAIP-2 id to EVM chain, and the one Solana endpoint (`--solana-rpc`),
 * offered for every Solana id: which cluster it is, its genesis hash tells.
 * @example
 * const chains = sendTransactionChainsOf(new Map([['eip155:84532', chain]]), solanaChain);
 */
export function sendTransactionChainsOf(
  chains: ReadonlyMap<string, EvmSendChain>,
  solana?: SolanaSendChain,
): SendTransactionChains {
  return { evm: (caip2) => chains.get(caip2), solana: () => solana };
}

/**
 * Why a node refused signed bytes: `nonce_too_low` (the nonce is used), `insufficient_funds`
 * (gas * price + value exceeds the balance), `already_known` (the node has these very bytes),
 * or `other`.
 * @example
 * const reason: EvmRefusalReason = 'nonce_too_low';
 */
export type EvmRefusalReason = 'nonce_too_low' | 'insufficient_funds' | 'already_known' | 'other';

/**
 * The node refused a transaction (`eth_sendRawTransaction`): the reason, and the node's words.
 * @example
 * throw new EvmTransactionRefusedError('nonce_too_low', 'nonce too low: next nonce 3, tx nonce 2');
 */
export class EvmTransactionRefusedError extends Error {
  readonly code = 'EVM_TRANSACTION_REFUSED';
  constructor(
    readonly reason: EvmRefusalReason,
    readonly detail: string,
  ) {
    super(`transaction refused (${reason}): ${detail}`);
    this.name = 'EvmTransactionRefusedError';
  }

  static is(value: unknown): value is EvmTransactionRefusedError {
    return (value as { code?: unknown } | null)?.code === 'EVM_TRANSACTION_REFUSED';
  }
}

/**
 * A call or gas estimate reverted; `data` is the revert data when the node returned it.
 * @example
 * throw new EvmExecutionRevertedError('execution reverted', '0x08c379a0…');
 */
export class EvmExecutionRevertedError extends Error {
  readonly code = 'EVM_EXECUTION_REVERTED';
  constructor(
    readonly detail: string,
    readonly data?: string,
  ) {
    super(detail);
    this.name = 'EvmExecutionRevertedError';
  }

  static is(value: unknown): value is EvmExecutionRevertedError {
    return (value as { code?: unknown } | null)?.code === 'EVM_EXECUTION_REVERTED';
  }
}

/**
 * True when `error` says the chain's endpoint did not answer (by code, see the module).
 * @example
 * if (isEvmChainUnavailable(error)) throw new KeyholdError('EVM_CHAIN_UNAVAILABLE');
 */
export function isEvmChainUnavailable(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 'EVM_CHAIN_UNAVAILABLE';
}

/**
 * `@keyhold/chain-evm-viem`: the EvmChain port of `@keyhold/payments` over viem.
 * @module
 */
export { createViemEvmChain, type ViemEvmChainOptions } from './viem-evm-chain.js';
export { createViemEvmSendChain } from './viem-evm-send-chain.js';

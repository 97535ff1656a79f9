/**
 * `@keyhold/chain-solana`: the SolanaSendChain port of `@keyhold/activities` over
 * `@solana/kit` (JSON-RPC).
 * @module
 */
export {
  createKitSolanaSendChain,
  type KitSolanaSendChainOptions,
} from './kit-solana-send-chain.js';

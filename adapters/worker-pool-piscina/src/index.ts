/**
 * @keyhold/worker-pool-piscina: the CryptoWorkPool port of `@keyhold/keys` on worker threads.
 * @module
 */
export {
  PiscinaCryptoWorkPool,
  type PiscinaCryptoWorkPoolOptions,
} from './piscina-crypto-work-pool.js';

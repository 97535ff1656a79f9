/**
 * The CryptoWorkPool port: where the CPU-heavy jobs of `crypto-jobs.ts` run. A request that
 * derives a hundred accounts spends hundreds of milliseconds in elliptic-curve arithmetic; run
 * on the event loop, that time stalls every other request of the process. A pool of worker
 * threads (`@keyhold/worker-pool-piscina`) runs it beside the event loop instead; the inline
 * pool here runs it in place, for embedders that want no threads and for tests.
 *
 * Vaults derive and sign through it, handlers compute addresses through it. What crosses a
 * thread boundary is only what a job lists: a BIP39 seed (64 bytes) for one derivation, an
 * opened private key for one signature, public keys for addresses — never the master key,
 * never a sealed secret.
 * @module
 */
import {
  type CryptoJobInput,
  type CryptoJobName,
  type CryptoJobOutput,
  runCryptoJob,
} from './crypto-jobs.js';

/**
 * Where CPU-heavy key jobs run. Inline (`inlineCryptoWorkPool`) or on worker threads
 * (`PiscinaCryptoWorkPool` of `@keyhold/worker-pool-piscina`).
 * @example
 * const [[address]] = await pool.run('addresses', {
 *   items: [{ curve: 'CURVE_SECP256K1', publicKey, formats: ['ADDRESS_FORMAT_BITCOIN_MAINNET_P2TR'] }],
 * });
 */
export interface CryptoWorkPool {
  /** A short name for logs: `inline`, `piscina`. */
  readonly kind: string;
  /**
   * Runs a job and resolves with its output, or rejects with the job's error (a KeyholdError
   * stays one). The job's secret inputs are consumed: zeroed, or moved to the worker.
   */
  run<N extends CryptoJobName>(name: N, input: CryptoJobInput<N>): Promise<CryptoJobOutput<N>>;
  /** Lets the jobs already queued finish, then releases the threads. Idempotent. */
  close(): Promise<void>;
}

/**
 * The inversify service identifier of the CryptoWorkPool port.
 * @example
 * container.rebind(CryptoWorkPool).toConstantValue(new PiscinaCryptoWorkPool());
 */
export const CryptoWorkPool: unique symbol = Symbol.for('keyhold.CryptoWorkPool');

/**
 * The pool that runs every job in place, on the caller's thread (synchronously, inside the
 * returned promise). The default wherever no pool is given: same results, no threads, and the
 * event loop is blocked while a job runs.
 * @example
 * const pool = inlineCryptoWorkPool();
 * const { publicKey } = await pool.run('deriveKey', { seed, curve: 'CURVE_SECP256K1', path });
 */
export function inlineCryptoWorkPool(): CryptoWorkPool {
  return {
    kind: 'inline',
    async run(name, input) {
      return runCryptoJob(name, input);
    },
    async close() {},
  };
}

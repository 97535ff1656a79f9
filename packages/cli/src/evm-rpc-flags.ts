/**
 * `--evm-rpc NETWORK=URL`, read without loading the payment gateway (and viem): `keyhold serve`
 * checks its flags before anything is opened, and loads the gateway only when one is given.
 * @module
 */
import type { PayNetwork } from '@keyhold/payments';

const NETWORKS: readonly PayNetwork[] = ['base-sepolia', 'base-mainnet'];

/**
 * The networks of repeated `--evm-rpc NETWORK=URL` flags.
 * @throws Error naming the flag when one is malformed or names a network twice
 * @example
 * parseEvmRpcFlags(['base-sepolia=http://127.0.0.1:8545']); // Map { 'base-sepolia' => 'http://…' }
 */
export function parseEvmRpcFlags(flags: readonly string[]): Map<PayNetwork, string> {
  const chains = new Map<PayNetwork, string>();
  for (const flag of flags) {
    const at = flag.indexOf('=');
    const network = flag.slice(0, Math.max(at, 0)) as PayNetwork;
    const url = flag.slice(at + 1);
    if (at < 0 || !NETWORKS.includes(network)) {
      throw new Error(
        `--evm-rpc must be NETWORK=URL with NETWORK base-sepolia or base-mainnet, got "${flag}"`,
      );
    }
    if (!/^https?:\/\//.test(url)) throw new Error(`--evm-rpc ${network}: the URL must be http(s)`);
    if (chains.has(network)) throw new Error(`--evm-rpc ${network} is given twice`);
    chains.set(network, url);
  }
  return chains;
}

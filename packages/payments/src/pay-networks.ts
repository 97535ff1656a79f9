/**
 * The networks of the payment gateway: the spec's path names, their CAIP-2 ids and chain ids,
 * the x402 v1 names that mean them, and the USDC each settles in (the EIP-712 domain the
 * "exact" scheme signs against).
 * @module
 */
import type { Address } from 'viem';

/**
 * A network of the payment gateway, as the path names it.
 * @example
 * const network: PayNetwork = 'base-sepolia';
 */
export type PayNetwork = 'base-mainnet' | 'base-sepolia';

/**
 * What the gateway knows of one network.
 * @example
 * const info: PayNetworkInfo = PAY_NETWORKS['base-mainnet']; // caip2 'eip155:8453', v1Name 'base'
 */
export interface PayNetworkInfo {
  readonly network: PayNetwork;
  /** The x402 v2 (CAIP-2) name. */
  readonly caip2: `eip155:${number}`;
  readonly chainId: number;
  /** The x402 v1 name (`base`: not `base-mainnet`, which is the spec's path alias). */
  readonly v1Name: string;
  /** The token payments settle in, and its EIP-712 domain. */
  readonly usdc: { readonly address: Address; readonly name: string; readonly version: string };
}

/**
 * Both networks of the spec. The USDC addresses and domains are those of `@x402/evm`'s
 * default assets, so the stock clients pay them without configuration.
 * @example
 * PAY_NETWORKS['base-sepolia'].caip2; // 'eip155:84532'
 */
export const PAY_NETWORKS: Readonly<Record<PayNetwork, PayNetworkInfo>> = {
  'base-mainnet': {
    network: 'base-mainnet',
    caip2: 'eip155:8453',
    chainId: 8453,
    v1Name: 'base',
    usdc: {
      address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
      name: 'USD Coin',
      version: '2',
    },
  },
  'base-sepolia': {
    network: 'base-sepolia',
    caip2: 'eip155:84532',
    chainId: 84532,
    v1Name: 'base-sepolia',
    usdc: {
      address: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
      name: 'USDC',
      version: '2',
    },
  },
};

/**
 * True when `value` names a gateway network.
 * @example
 * isPayNetwork('base-sepolia'); // true
 * isPayNetwork('base'); // false: a v1 name, not a path
 */
export function isPayNetwork(value: string): value is PayNetwork {
  return value === 'base-mainnet' || value === 'base-sepolia';
}

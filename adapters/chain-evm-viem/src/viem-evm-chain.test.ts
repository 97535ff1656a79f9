/**
 * The viem EvmChain against a real anvil (Base Sepolia's chain id, USDC at its address).
 */

import {
  EvmCallRevertedError,
  EvmChainUnavailableError,
  MULTICALL3_ADDRESS,
} from '@keyhold/payments';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnvilUsdc, startAnvilUsdc } from './testing/anvil-usdc.js';
import { createViemEvmChain } from './viem-evm-chain.js';

let anvil: AnvilUsdc;
beforeAll(async () => {
  anvil = await startAnvilUsdc();
}, 60_000);
afterAll(() => anvil?.stop());

describe('createViemEvmChain', () => {
  it('reads the chain, USDC and Multicall3', async () => {
    const chain = createViemEvmChain(anvil.rpcUrl);
    expect(await chain.getChainId()).toBe(84532);
    expect(await chain.getCode(MULTICALL3_ADDRESS)).toMatch(/^0x[0-9a-f]{100,}/);
    const payer = privateKeyToAccount(generatePrivateKey()).address;
    await anvil.mint(payer, 1_000_000n);
    expect(await anvil.balanceOf(payer)).toBe(1_000_000n);
    expect(await chain.getTransactionCount(payer)).toBe(0);
  });

  it('reports a revert as EvmCallRevertedError', async () => {
    const chain = createViemEvmChain(anvil.rpcUrl);
    // transfer(address,uint256) of more than an empty account holds.
    const data = `0xa9059cbb${'0'.repeat(24)}${'11'.repeat(20)}${'0'.repeat(62)}ff` as const;
    const error = await chain
      .call({ to: anvil.usdc, data, from: privateKeyToAccount(generatePrivateKey()).address })
      .catch((e: unknown) => e);
    expect(EvmCallRevertedError.is(error)).toBe(true);
  });

  it('reports an endpoint that does not answer as EvmChainUnavailableError', async () => {
    const chain = createViemEvmChain('http://127.0.0.1:9', { timeoutMs: 1_000 });
    const error = await chain.getChainId().catch((e: unknown) => e);
    expect(EvmChainUnavailableError.is(error)).toBe(true);
  });
});

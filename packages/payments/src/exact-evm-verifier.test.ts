/**
 * Reading x402 requests and verifying "exact" EVM payments without a chain: a fake EvmChain
 * (no code anywhere, every call reverting) and authorizations signed with viem, checked in the
 * reference facilitator's order.
 */
import { PayError } from '@keyhold/pay-errors';
import { type Address, type Hex, toHex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { canonicalDigest } from './canonical-json.js';
import { TRANSFER_WITH_AUTHORIZATION_TYPES } from './eip3009.js';
import { EvmCallRevertedError, type EvmChain } from './evm-chain.js';
import { verifyExactEvmPayment } from './exact-evm-verifier.js';
import { PAY_NETWORKS } from './pay-networks.js';
import { readExactEvmPayment } from './x402-payment.js';

const network = PAY_NETWORKS['base-sepolia'];
const payer = privateKeyToAccount(generatePrivateKey());
const payTo: Address = '0x2222222222222222222222222222222222222222';
const settler: Address = '0x3333333333333333333333333333333333333333';
const NOW_MS = 1_800_000_000_000;
const now = BigInt(NOW_MS / 1000);

/** A chain where every account is code-less and every call reverts. */
const revertingChain: EvmChain = {
  getChainId: async () => 84532,
  getCode: async () => undefined,
  call: async () => {
    throw new EvmCallRevertedError('execution reverted');
  },
  verifyHash: async () => false,
  estimateGas: async () => 100_000n,
  getFees: async () => ({ maxFeePerGas: 1n, maxPriorityFeePerGas: 1n }),
  getTransactionCount: async () => 0,
  sendRawTransaction: async () => '0x',
  getTransactionReceipt: async () => undefined,
  hasTransaction: async () => false,
};

async function body(
  overrides: { value?: bigint; to?: Address; validAfter?: bigint; validBefore?: bigint } = {},
  extra: Record<string, unknown> = { name: 'USDC', version: '2' },
) {
  const accepted = {
    scheme: 'exact',
    network: network.caip2,
    amount: '10000',
    asset: network.usdc.address,
    payTo,
    maxTimeoutSeconds: 60,
    extra,
  };
  const authorization = {
    from: payer.address,
    to: overrides.to ?? payTo,
    value: overrides.value ?? 10_000n,
    validAfter: overrides.validAfter ?? 0n,
    validBefore: overrides.validBefore ?? now + 60n,
    nonce: toHex(crypto.getRandomValues(new Uint8Array(32))),
  };
  const signature: Hex = await payer.signTypedData({
    domain: { name: 'USDC', version: '2', chainId: 84532, verifyingContract: network.usdc.address },
    primaryType: 'TransferWithAuthorization',
    types: TRANSFER_WITH_AUTHORIZATION_TYPES,
    message: authorization,
  });
  const wire = Object.fromEntries(
    Object.entries(authorization).map(([k, v]) => [k, typeof v === 'bigint' ? v.toString() : v]),
  );
  return {
    x402Version: 2,
    paymentPayload: { x402Version: 2, accepted, payload: { signature, authorization: wire } },
    paymentRequirements: accepted,
  };
}

const verify = async (request: unknown) =>
  verifyExactEvmPayment(revertingChain, readExactEvmPayment(request, network), settler, NOW_MS, {
    simulate: false,
  });

describe('readExactEvmPayment', () => {
  it('reads v2 and normalizes amounts, addresses and the payment-identifier', async () => {
    const request = await body();
    const id = 'pay_0123456789abcdef';
    const payment = readExactEvmPayment(
      {
        ...request,
        paymentPayload: {
          ...request.paymentPayload,
          extensions: { 'payment-identifier': { info: { id } } },
        },
      },
      network,
    );
    expect(payment).toMatchObject({
      x402Version: 2,
      paymentIdentifier: id,
      requirements: { amount: 10_000n, name: 'USDC', version: '2', payTo },
      authorization: { from: payer.address, value: 10_000n },
    });
    const badId = {
      ...request,
      paymentPayload: {
        ...request.paymentPayload,
        extensions: { 'payment-identifier': { info: { id: 'short' } } },
      },
    };
    expect(() => readExactEvmPayment(badId, network)).toThrow(PayError);
  });

  it('digests payloads whatever the order of their members', () => {
    expect(canonicalDigest({ a: 1, b: [{ c: 2, d: 3 }] })).toBe(
      canonicalDigest({ b: [{ d: 3, c: 2 }], a: 1 }),
    );
    expect(canonicalDigest({ a: 1 })).not.toBe(canonicalDigest({ a: 2 }));
  });
});

describe('verifyExactEvmPayment, in the reference order', () => {
  it('accepts a good authorization', async () => {
    expect(await verify(await body())).toEqual({ isValid: true, payer: payer.address });
  });

  it.each([
    ['a missing token domain', () => body({}, {}), 'invalid_exact_evm_missing_eip712_domain'],
    [
      'another token name (the signature does not recover)',
      () => body({}, { name: 'USD Coin', version: '2' }),
      'invalid_exact_evm_signature',
    ],
    ['another recipient', () => body({ to: settler }), 'invalid_exact_evm_recipient_mismatch'],
    [
      'validBefore within 6 s',
      () => body({ validBefore: now + 5n }),
      'invalid_exact_evm_payload_authorization_valid_before',
    ],
    [
      'validAfter in the future',
      () => body({ validAfter: now + 30n }),
      'invalid_exact_evm_payload_authorization_valid_after',
    ],
    ['another value', () => body({ value: 9_999n }), 'invalid_exact_evm_authorization_value'],
  ])('refuses %s', async (_, make, reason) => {
    expect(await verify(await make())).toMatchObject({ isValid: false, invalidReason: reason });
  });

  it('refuses what the token would refuse, explained as simulation_failed without Multicall3', async () => {
    const result = await verifyExactEvmPayment(
      revertingChain,
      readExactEvmPayment(await body(), network),
      settler,
      NOW_MS,
    );
    expect(result).toMatchObject({
      isValid: false,
      invalidReason: 'invalid_exact_evm_transaction_simulation_failed',
    });
  });
});

/**
 * Verification of an "exact" EVM payment, in the order of x402's reference facilitator
 * (`verifyEIP3009`): the scheme, the token's EIP-712 domain in `extra`, the network, the
 * signature recovering to `from` (ERC-1271/ERC-6492 through the chain for smart wallets),
 * `to == payTo`, the validity window (6 s of block-time buffer before `validBefore`),
 * `value == amount`, then a simulation of the transfer, whose refusal is explained through
 * Multicall3 as the reference does (nonce used, balance, token name or version, the window).
 * @module
 */
import {
  type Address,
  decodeFunctionResult,
  encodeFunctionData,
  type Hex,
  isAddressEqual,
  recoverAddress,
  size,
} from 'viem';
import {
  EIP3009_ABI,
  MULTICALL3_ABI,
  MULTICALL3_ADDRESS,
  transferWithAuthorizationData,
  transferWithAuthorizationDigest,
} from './eip3009.js';
import { EvmCallRevertedError, type EvmChain } from './evm-chain.js';
import type { ExactEvmPayment } from './x402-payment.js';

/**
 * The x402 verify answer.
 * @example
 * const result: VerifyResult = { isValid: false, invalidReason: 'invalid_exact_evm_signature', payer };
 */
export interface VerifyResult {
  readonly isValid: boolean;
  readonly invalidReason?: string;
  readonly invalidMessage?: string;
  readonly payer: Address;
}

/**
 * Seconds an authorization must still be valid for when it is verified (x402's buffer).
 * @example
 * authorization.validBefore >= nowSeconds + VALID_BEFORE_BUFFER_SECONDS;
 */
export const VALID_BEFORE_BUFFER_SECONDS = 6n;

const refused = (payer: Address, invalidReason: string, invalidMessage?: string): VerifyResult => ({
  isValid: false,
  invalidReason,
  ...(invalidMessage ? { invalidMessage } : {}),
  payer,
});

/**
 * Verifies `payment` against `chain`, the settlement account simulating the transfer; `nowMs`
 * is the gateway's clock.
 * @throws EvmChainUnavailableError when the chain does not answer
 * @example
 * const result = await verifyExactEvmPayment(chain, payment, settlementAddress, Date.now());
 * if (!result.isValid) console.log(result.invalidReason);
 */
export async function verifyExactEvmPayment(
  chain: EvmChain,
  payment: ExactEvmPayment,
  settlementAddress: Address,
  nowMs: number,
  options: { simulate?: boolean } = {},
): Promise<VerifyResult> {
  const { requirements, authorization, signature, network } = payment;
  const payer = authorization.from;
  // 1. The scheme (the reader refused anything but exact), 2. the token's domain.
  if (requirements.name === undefined || requirements.version === undefined) {
    return refused(payer, 'invalid_exact_evm_missing_eip712_domain');
  }
  // 3. The network was checked against the path when the payment was read.
  // 4. The signature.
  const digest = transferWithAuthorizationDigest(authorization, {
    name: requirements.name,
    version: requirements.version,
    chainId: network.chainId,
    verifyingContract: requirements.asset,
  });
  if (!(await signatureHolds(chain, payer, digest, signature))) {
    return refused(payer, 'invalid_exact_evm_signature');
  }
  // 5. The recipient.
  if (!isAddressEqual(authorization.to, requirements.payTo)) {
    return refused(payer, 'invalid_exact_evm_recipient_mismatch');
  }
  // 6–7. The window.
  const now = BigInt(Math.floor(nowMs / 1000));
  if (authorization.validBefore < now + VALID_BEFORE_BUFFER_SECONDS) {
    return refused(payer, 'invalid_exact_evm_payload_authorization_valid_before');
  }
  if (authorization.validAfter > now) {
    return refused(payer, 'invalid_exact_evm_payload_authorization_valid_after');
  }
  // 8. The amount, exactly.
  if (authorization.value !== requirements.amount) {
    return refused(payer, 'invalid_exact_evm_authorization_value');
  }
  // 9. The transfer itself, as the settlement account would send it.
  if (options.simulate === false) return { isValid: true, payer };
  const data = transferWithAuthorizationData(authorization, signature);
  try {
    await chain.call({ to: requirements.asset, data, from: settlementAddress });
  } catch (error) {
    if (!EvmCallRevertedError.is(error)) throw error;
    return refused(payer, await whyRefused(chain, payment), error.message);
  }
  return { isValid: true, payer };
}

/** ecrecover for a plain signature; the chain (ERC-1271, ERC-6492) for anything else. */
async function signatureHolds(
  chain: EvmChain,
  payer: Address,
  digest: Hex,
  signature: Hex,
): Promise<boolean> {
  if (size(signature) === 65) {
    try {
      if (isAddressEqual(await recoverAddress({ hash: digest, signature }), payer)) return true;
    } catch {
      // Not a recoverable signature: a smart wallet's, or garbage. The chain decides.
    }
    // A 65-byte signature of an account without code is settled by ecrecover alone.
    if (!(await chain.getCode(payer))) return false;
  }
  return chain.verifyHash({ address: payer, hash: digest, signature });
}

/**
 * Why the token refused the simulated transfer, read in one Multicall3 `tryAggregate` call:
 * the block time against the window, the nonce, the balance, the token's name and version.
 */
async function whyRefused(chain: EvmChain, payment: ExactEvmPayment): Promise<string> {
  const { requirements, authorization } = payment;
  const token = requirements.asset;
  const calls = [
    {
      target: MULTICALL3_ADDRESS,
      callData: encodeFunctionData({
        abi: MULTICALL3_ABI,
        functionName: 'getCurrentBlockTimestamp',
      }),
    },
    {
      target: token,
      callData: encodeFunctionData({
        abi: EIP3009_ABI,
        functionName: 'authorizationState',
        args: [authorization.from, authorization.nonce],
      }),
    },
    {
      target: token,
      callData: encodeFunctionData({
        abi: EIP3009_ABI,
        functionName: 'balanceOf',
        args: [authorization.from],
      }),
    },
    { target: token, callData: encodeFunctionData({ abi: EIP3009_ABI, functionName: 'name' }) },
    { target: token, callData: encodeFunctionData({ abi: EIP3009_ABI, functionName: 'version' }) },
  ] as const;
  let results: readonly { success: boolean; returnData: Hex }[];
  try {
    const returned = await chain.call({
      to: MULTICALL3_ADDRESS,
      data: encodeFunctionData({
        abi: MULTICALL3_ABI,
        functionName: 'tryAggregate',
        args: [false, calls],
      }),
    });
    results = decodeFunctionResult({
      abi: MULTICALL3_ABI,
      functionName: 'tryAggregate',
      data: returned,
    });
  } catch (error) {
    if (EvmCallRevertedError.is(error)) return 'invalid_exact_evm_transaction_simulation_failed';
    throw error;
  }
  const read = <T>(index: number, functionName: string, abi: unknown): T | undefined => {
    const result = results[index];
    if (!result?.success) return undefined;
    try {
      return decodeFunctionResult({
        abi: abi as typeof EIP3009_ABI,
        functionName: functionName as 'name',
        data: result.returnData,
      }) as T;
    } catch {
      return undefined;
    }
  };
  const blockTime = read<bigint>(0, 'getCurrentBlockTimestamp', MULTICALL3_ABI);
  if (blockTime !== undefined && blockTime >= authorization.validBefore) {
    return 'invalid_exact_evm_payload_authorization_valid_before';
  }
  if (blockTime !== undefined && blockTime <= authorization.validAfter) {
    return 'invalid_exact_evm_payload_authorization_valid_after';
  }
  if (read<boolean>(1, 'authorizationState', EIP3009_ABI) === true) {
    return 'invalid_exact_evm_nonce_already_used';
  }
  const balance = read<bigint>(2, 'balanceOf', EIP3009_ABI);
  if (balance !== undefined && balance < authorization.value) {
    return 'invalid_exact_evm_insufficient_balance';
  }
  const name = read<string>(3, 'name', EIP3009_ABI);
  if (name !== undefined && name !== requirements.name)
    return 'invalid_exact_evm_token_name_mismatch';
  const version = read<string>(4, 'version', EIP3009_ABI);
  if (version === undefined) return 'invalid_exact_evm_eip3009_not_supported';
  if (version !== requirements.version) return 'invalid_exact_evm_token_version_mismatch';
  return 'invalid_exact_evm_transaction_simulation_failed';
}

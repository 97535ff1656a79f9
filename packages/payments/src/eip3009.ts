/**
 * EIP-3009 on a FiatToken (USDC): the typed data an authorization signs, the call that
 * settles it, and the reads that explain a refused one (through Multicall3).
 * @module
 */
import {
  type Address,
  encodeFunctionData,
  type Hex,
  hashTypedData,
  parseAbi,
  parseSignature,
  size,
} from 'viem';
import type { Eip3009Authorization } from './x402-payment.js';

/**
 * The token functions the facilitator calls.
 * @example
 * encodeFunctionData({ abi: EIP3009_ABI, functionName: 'balanceOf', args: [payer] });
 */
export const EIP3009_ABI = parseAbi([
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)',
  'function authorizationState(address authorizer, bytes32 nonce) view returns (bool)',
  'function balanceOf(address account) view returns (uint256)',
  'function name() view returns (string)',
  'function version() view returns (string)',
]);

/**
 * Multicall3's `tryAggregate` and its block-time read, at the address every chain uses.
 * @example
 * MULTICALL3_ADDRESS; // '0xcA11bde05977b3631167028862bE2a173976CA11'
 */
export const MULTICALL3_ABI = parseAbi([
  'struct Call { address target; bytes callData; }',
  'struct Result { bool success; bytes returnData; }',
  'function tryAggregate(bool requireSuccess, Call[] calls) returns (Result[] returnData)',
  'function getCurrentBlockTimestamp() view returns (uint256 timestamp)',
]);

/**
 * Where Multicall3 lives on every EVM chain that has it.
 * @example
 * await chain.getCode(MULTICALL3_ADDRESS); // undefined on a bare anvil
 */
export const MULTICALL3_ADDRESS: Address = '0xcA11bde05977b3631167028862bE2a173976CA11';

/**
 * The EIP-712 digest of a TransferWithAuthorization under a token's domain.
 * @example
 * const digest = transferWithAuthorizationDigest(auth, { name: 'USDC', version: '2', chainId: 84532, verifyingContract: usdc });
 */
/**
 * The EIP-712 types of EIP-3009's `TransferWithAuthorization`, as a payer signs them.
 * @example
 * await account.signTypedData({ domain, types: TRANSFER_WITH_AUTHORIZATION_TYPES,
 *   primaryType: 'TransferWithAuthorization', message: authorization });
 */
export const TRANSFER_WITH_AUTHORIZATION_TYPES = {
  TransferWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const;

export function transferWithAuthorizationDigest(
  authorization: Eip3009Authorization,
  domain: { name: string; version: string; chainId: number; verifyingContract: Address },
): Hex {
  return hashTypedData({
    domain,
    primaryType: 'TransferWithAuthorization',
    types: TRANSFER_WITH_AUTHORIZATION_TYPES,
    message: authorization,
  });
}

/**
 * The call data of `transferWithAuthorization`: the (v, r, s) overload for a 65-byte
 * signature, the `bytes signature` one (ERC-1271 wallets) otherwise.
 * @example
 * const data = transferWithAuthorizationData(payment.authorization, payment.signature);
 */
export function transferWithAuthorizationData(
  authorization: Eip3009Authorization,
  signature: Hex,
): Hex {
  const { from, to, value, validAfter, validBefore, nonce } = authorization;
  if (size(signature) === 65) {
    const { r, s, v, yParity } = parseSignature(signature);
    return encodeFunctionData({
      abi: EIP3009_ABI,
      functionName: 'transferWithAuthorization',
      args: [
        from,
        to,
        value,
        validAfter,
        validBefore,
        nonce,
        Number(v ?? BigInt(27 + yParity)),
        r,
        s,
      ],
    });
  }
  return encodeFunctionData({
    abi: EIP3009_ABI,
    functionName: 'transferWithAuthorization',
    args: [from, to, value, validAfter, validBefore, nonce, signature],
  });
}

/**
 * `@keyhold/payments`: the payment gateway — an x402 facilitator for the "exact" scheme on EVM
 * (EIP-3009 `transferWithAuthorization`), v1 and v2 bodies, with every settlement a payment
 * record in the Store, idempotent by x402's `payment-identifier`, reconciled from the chain.
 * Domain only: the chain is the EvmChain port (`@keyhold/chain-evm-viem` implements it), the
 * settlement key lives in the KeyVault.
 * @module
 */
export {
  EIP3009_ABI,
  MULTICALL3_ABI,
  MULTICALL3_ADDRESS,
  TRANSFER_WITH_AUTHORIZATION_TYPES,
  transferWithAuthorizationData,
  transferWithAuthorizationDigest,
} from './eip3009.js';
export {
  EvmCallRevertedError,
  type EvmChain,
  EvmChainUnavailableError,
  type EvmFees,
  type EvmReceipt,
} from './evm-chain.js';
export {
  VALID_BEFORE_BUFFER_SECONDS,
  type VerifyResult,
  verifyExactEvmPayment,
} from './exact-evm-verifier.js';
export { authenticateOrganizationRequest } from './pay-authentication.js';
export {
  PayFacilitator,
  type PayFacilitatorDeps,
  type SettleContext,
  type SettleResult,
  type SupportedResult,
} from './pay-facilitator.js';
export { PayGateway, type PayGatewayDeps } from './pay-gateway.js';
export {
  isPayNetwork,
  PAY_NETWORKS,
  type PayNetwork,
  type PayNetworkInfo,
} from './pay-networks.js';
export { PAY_OPENAPI_PATHS } from './pay-openapi.js';
export { type PaymentView, paymentView } from './payment-view.js';
export {
  openSettlementAccount,
  SETTLEMENT_KEY_NAME,
  type SettlementAccount,
} from './settlement-account.js';
export {
  authorizationKeyOf,
  type Eip3009Authorization,
  type ExactEvmPayment,
  type ExactEvmRequirements,
  readExactEvmPayment,
} from './x402-payment.js';

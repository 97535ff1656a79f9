/**
 * @keyhold/conformance/key-vault — the KeyVault contract: the checks any implementation of the
 * KeyVault port (software, PKCS#11, a vendor's own) must pass, as plain `{ name, run }` objects
 * for any test runner.
 * @module
 */
export type { KeyVaultCheck } from './key-vault-check.js';
export { keyVaultContract } from './key-vault-contract.js';
export {
  KEY_ORIGINS,
  type KeyOrigin,
  type KeyOriginTraits,
  type KeyVaultCapabilities,
  type KeyVaultContractOptions,
} from './key-vault-contract-options.js';
export { type KeyVaultCheckFailure, runKeyVaultChecks } from './run-key-vault-checks.js';
export {
  ABANDON_ACCOUNTS,
  ABANDON_MNEMONIC,
  BIP86_VECTOR,
  type EcdsaVector,
  type Ed25519Vector,
  type KnownAccount,
  RFC6979_VECTORS,
  RFC8032_VECTORS,
} from './vectors.js';

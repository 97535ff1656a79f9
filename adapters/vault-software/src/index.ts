/**
 * @keyhold/vault-software — the software implementation of the KeyVault port: seeds and keys
 * encrypted at rest with AES-256-GCM under a master key, signing with @noble/curves (ECDSA) and
 * node:crypto (Ed25519).
 * @module
 */
export { generateMasterKey, MASTER_KEY_LENGTH, masterKeyFromHex } from './master-key.js';
export {
  isSoftwareSealed,
  openDerivationRoot,
  resealSecret,
  sealDerivationRoot,
} from './master-key-rotation.js';
export { SEALED_PREFIX } from './sealed-box.js';
export { SoftwareKeyVault, type SoftwareKeyVaultOptions } from './software-key-vault.js';

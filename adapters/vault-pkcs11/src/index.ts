/**
 * @keyhold/vault-pkcs11 — the PKCS#11 (HSM) implementation of the KeyVault port: standalone
 * private keys generated and used inside the token, wallet seeds and derived keys encrypted by a
 * token-resident AES-256 wrapping key. Tested against SoftHSM2.
 * @module
 */
export { BAD_HSM_SIGNATURE_MESSAGE, toRecoverableLowS } from './ecdsa-signature.js';
export {
  DEFAULT_PKCS11_MODULE,
  DEFAULT_WRAPPING_KEY_LABEL,
  HSM_KEY_NOT_EXPORTABLE_MESSAGE,
  NOTARIZER_KEY_LABEL,
  openPkcs11KeyVault,
  PKCS11_ENV,
  Pkcs11KeyVault,
  type Pkcs11KeyVaultOptions,
  type ResolvedPkcs11KeyVaultOptions,
  resolvePkcs11Options,
} from './pkcs11-key-vault.js';
export { OPEN_FAILED_MESSAGE, SEALED_PREFIX } from './sealed-reference.js';

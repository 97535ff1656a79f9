/**
 * @keyhold/crypto-node — the OpenSSL SignatureVerifier.
 * @module
 */
export {
  createOpenSslSignatureVerifier,
  type OpenSslSignatureVerifierOptions,
} from './openssl-signature-verifier.js';

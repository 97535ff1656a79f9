/**
 * Export, import and credential bundles in the wire formats of wire-compat §3, so the
 * published `@turnkey/crypto` helpers open and produce them. Pure functions: the activities
 * layer supplies the secret, the client's key and the server's signer key.
 * @module
 */

export {
  type CreateCredentialBundleInput,
  createCredentialBundle,
} from './credential-bundle.js';
export { type CreateExportBundleInput, createExportBundle } from './export-bundle.js';
export { BUNDLE_HPKE_INFO } from './hpke.js';
export {
  type CreateImportTargetInput,
  createImportTarget,
  deriveImportTargetKey,
  type ImportTarget,
  MAX_IMPORT_CIPHERTEXT_BYTES,
  type OpenImportBundleInput,
  openImportBundle,
  parseImportedMnemonic,
  parseImportedPrivateKey,
} from './import-bundle.js';
export { MAX_ON_RAMP_SECRET_BYTES, openOnRampSecret } from './on-ramp-secret.js';
export { createOtpTargetBundle, type OtpBundleContent, openOtpBundle } from './otp-bundle.js';
export { MAX_QUORUM_ENVELOPE_BYTES, openQuorumEnvelope } from './quorum-envelope.js';
export { openSealedSecret, sealSecret } from './sealed-secret.js';
export {
  BUNDLE_VERSION,
  type BundleSigner,
  bundleSignerPublicKey,
  type SignedEnvelope,
} from './signed-envelope.js';

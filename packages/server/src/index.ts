/**
 * @keyhold/server — the composition root: createKeyhold(), handle(), container modules,
 * the embedded client and the `keyhold` CLI.
 * @module
 */
export { createKeyhold, Keyhold, type KeyholdOptions } from './keyhold.js';
export {
  KeyholdActivityError,
  KeyholdClient,
  KeyholdRequestError,
  type KeyholdClientOptions,
} from './keyhold-client.js';
export { createApiKeyStamper, generateApiKeyPair, type ApiKeyPair, type Stamper } from './api-key-signer.js';
export {
  coreModule,
  foundationModule,
  memoryStoreModule,
  ServerTokens,
  signatureVerifierModule,
  softwareVaultModule,
} from './container-modules.js';
export { KeyholdRequestHandler } from './keyhold-request-handler.js';
export { Logger, silentLogger, stderrLogger } from './logger.js';
export { SignerKey, signerKeyFrom } from './signer-key.js';
export { startServer, type RunningServer, type ServeOptions } from './serve.js';

/**
 * @keyhold/server — the composition root: createKeyhold(), handle(), container modules and
 * the embedded client. The `keyhold` CLI and startServer() (Keyhold over HTTP) are
 * `@keyhold/cli`.
 * @module
 */

export {
  type ApiKeyPair,
  createApiKeyStamper,
  generateApiKeyPair,
  type Stamper,
} from './api-key-signer.js';
export { AUTH_PROXY_PATH } from './auth-proxy/auth-proxy.js';
export {
  coreModule,
  DEFAULT_DOCS_URL,
  DEFAULT_OAUTH2_ISSUER,
  type FrameSettings,
  foundationModule,
  memoryStoreModule,
  type RateLimitSettings,
  rateLimiterModule,
  ServerTokens,
  signatureVerifierModule,
  softwareVaultModule,
} from './container-modules.js';
export { createKeyhold, Keyhold, type KeyholdOptions } from './keyhold.js';
export {
  KeyholdActivityError,
  KeyholdClient,
  type KeyholdClientOptions,
  KeyholdRequestError,
} from './keyhold-client.js';
export {
  EXPLAIN_POLICIES_PATH,
  KEYHOLD_EXTENSION_PREFIX,
  OAUTH2_ISSUER_PATH,
  PUBLIC_KEYS_PATH,
} from './keyhold-extensions.js';
export {
  KeyholdRequestHandler,
  type PublicKeysDocument,
  type RateLimiting,
} from './keyhold-request-handler.js';
export { Logger, silentLogger, stderrLogger } from './logger.js';
export { NOT_AVAILABLE_QUERIES } from './not-available-queries.js';
export { observedKeyVault } from './observed-key-vault.js';
export {
  OPENAPI_PATH,
  type OpenApiDocumentOptions,
  type OpenApiOperation,
  type OpenApiPathItem,
  openApiDocument,
  withOpenApiPaths,
} from './openapi-document.js';
export {
  deriveNotarizer,
  deriveTlsFetcherEncryptKey,
  deriveTlsFetcherKey,
  Notarizer,
  SignerKey,
  signerKeyFrom,
  TlsFetcherEncryptKey,
  TlsFetcherKey,
} from './signer-key.js';

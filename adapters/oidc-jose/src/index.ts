/**
 * @keyhold/oidc-jose — the OIDC-verifier port of `@keyhold/activities` over `jose`: issuer
 * discovery, cached remote JWKS with key rotation, id_token signature and claim checks.
 * @module
 */
export { type JoseOidcVerifierOptions, joseOidcVerifier } from './jose-oidc-verifier.js';

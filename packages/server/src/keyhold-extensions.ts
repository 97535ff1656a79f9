/**
 * Keyhold's own endpoints, beside the public API it shares with Turnkey. They live under their
 * own prefix so they can never collide with a path the public API adds later, and a client of
 * the public API never reaches one by accident. Stamped and rate-limited like queries, but for
 * the discovery document, which is public like the webhook JWKS.
 * @module
 */

/** The prefix of every Keyhold extension endpoint. */
export const KEYHOLD_EXTENSION_PREFIX = '/keyhold/v1/';

/**
 * The dry run of the decision on a proposed activity ("why was this denied?"):
 * `POST {organizationId, activity}` → `PolicyExplanation` (see `@keyhold/activities`).
 */
export const EXPLAIN_POLICIES_PATH = `${KEYHOLD_EXTENSION_PREFIX}explain_policies`;

/**
 * Discovery: every public key Keyhold publishes, `GET` without authentication →
 * `{signerPublicKey, notarizerPublicKey, tlsFetcherSignPublicKey, tlsFetcherEncryptPublicKey,
 * webhookKeys}`. `signerPublicKey` signs export and
 * import bundles (`dangerouslyOverrideSignerPublicKey` of `@turnkey/crypto`),
 * `notarizerPublicKey` signs session JWTs (`verifySessionJwtSignature(jwt, notarizerPublicKey)`),
 * `tlsFetcherSignPublicKey` signs OTP target bundles, verification tokens and the OIDC tokens
 * of OAUTH2_AUTHENTICATE (`encryptOtpCodeToBundle`, `verifyOtpVerificationToken`),
 * `tlsFetcherEncryptPublicKey` is what OAuth 2 client secrets are encrypted to
 * (`encryptOauth2ClientSecret`),
 * `webhookKeys` are the JWKS keys that verify webhook deliveries.
 */
export const PUBLIC_KEYS_PATH = `${KEYHOLD_EXTENSION_PREFIX}public_keys`;

/**
 * The path of Keyhold's OIDC issuer (the `iss` of OAUTH2_AUTHENTICATE's tokens is the server's
 * URL + this path): `GET <issuer>/.well-known/openid-configuration` and `GET <issuer>/jwks`
 * answer without authentication, so any OIDC verifier (OAUTH_LOGIN's included) finds the key
 * that signs those tokens — the TLS-fetcher signing key, as an ES256 JWK with its `kid`.
 */
export const OAUTH2_ISSUER_PATH = `${KEYHOLD_EXTENSION_PREFIX}oauth2`;

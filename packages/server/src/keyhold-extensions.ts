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
 * `{signerPublicKey, notarizerPublicKey, tlsFetcherSignPublicKey, webhookKeys}`. `signerPublicKey` signs export and
 * import bundles (`dangerouslyOverrideSignerPublicKey` of `@turnkey/crypto`),
 * `notarizerPublicKey` signs session JWTs (`verifySessionJwtSignature(jwt, notarizerPublicKey)`),
 * `tlsFetcherSignPublicKey` signs OTP target bundles and verification tokens
 * (`encryptOtpCodeToBundle`, `verifyOtpVerificationToken`),
 * `webhookKeys` are the JWKS keys that verify webhook deliveries.
 */
export const PUBLIC_KEYS_PATH = `${KEYHOLD_EXTENSION_PREFIX}public_keys`;

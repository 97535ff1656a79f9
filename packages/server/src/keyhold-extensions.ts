/**
 * Keyhold's own endpoints, beside the public API it shares with Turnkey. They live under their
 * own prefix so they can never collide with a path the public API adds later, and a client of
 * the public API never reaches one by accident. Stamped and rate-limited like queries.
 * @module
 */

/** The prefix of every Keyhold extension endpoint. */
export const KEYHOLD_EXTENSION_PREFIX = '/keyhold/v1/';

/**
 * The dry run of the decision on a proposed activity ("why was this denied?"):
 * `POST {organizationId, activity}` → `PolicyExplanation` (see `@keyhold/activities`).
 */
export const EXPLAIN_POLICIES_PATH = `${KEYHOLD_EXTENSION_PREFIX}explain_policies`;

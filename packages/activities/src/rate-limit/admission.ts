/**
 * Admission: one request against the buckets of its lane, in two steps — its client address
 * before anything is parsed or verified (`admitClient`), then its user and organization once
 * the stamp has verified (`admitPrincipal`, weighted by the request's cost). In each step the
 * first refusal decides; an admitted request reports the bucket closest to empty, which is
 * what the `ratelimit-*` headers describe. `RequestAdmission` runs the steps in order.
 * @module
 */
import type { RateLimitDecision, RateLimiter } from '../ports/rate-limiter.js';
import type { RateLimitLane } from './lanes.js';
import type { RateLimitRules } from './rules.js';
import { ipBucketOf, type RateLimitScope } from './scopes.js';

/**
 * Who a request's stamp turned out to be, and what the request costs: charged to the user's
 * and the organization's buckets once the stamp has verified.
 * @example
 * const charge: PrincipalCharge = { organizationId, userId, cost: activityCost('CREATE_WALLET', parameters) };
 */
export interface PrincipalCharge {
  /** The organization the request targets (the credential may live in its parent). */
  organizationId: string;
  /** The user whose API key stamped the request. */
  userId: string;
  /** Tokens to take, an integer ≥ 1 (see `activityCost`); queries cost 1. */
  cost: number;
}

/**
 * The verdict: admitted or refused, by which bucket.
 * @example
 * const admission: Admission = await admitClient(limiter, rules, 'query', '203.0.113.7');
 * if (!admission.allowed) console.log(admission.scope, admission.decision.retryAfterMs);
 */
export type Admission =
  | {
      allowed: true;
      lane: RateLimitLane;
      /** The bucket closest to empty; absent when no bucket applied. */
      scope?: RateLimitScope;
      decision?: RateLimitDecision;
    }
  | RateLimitRefusal;

/**
 * A refused admission: the bucket that refused, and its decision (`retryAfterMs`).
 * @example
 * const refusal: RateLimitRefusal = { allowed: false, lane: 'query', scope: 'ip', decision };
 */
export interface RateLimitRefusal {
  allowed: false;
  lane: RateLimitLane;
  scope: RateLimitScope;
  decision: RateLimitDecision;
}

/**
 * The limiter key of a bucket: `<lane>:<scope>:<id>`, e.g. `activity:org:<uuid>`,
 * `activity:user:<uuid>` or `query:ip:203.0.113.7`. Adapters add their own prefix.
 * @example
 * bucketKey('query', 'ip', '203.0.113.7'); // 'query:ip:203.0.113.7'
 */
export function bucketKey(lane: RateLimitLane, scope: RateLimitScope, id: string): string {
  return `${lane}:${scope === 'organization' ? 'org' : scope}:${id}`;
}

/** Takes `cost` from each bucket that applies, in order, stopping at the first refusal. */
async function takeInOrder(
  limiter: RateLimiter,
  rules: RateLimitRules,
  lane: RateLimitLane,
  buckets: readonly (readonly [RateLimitScope, string | undefined])[],
  cost: number,
): Promise<Admission> {
  let tightest: { scope: RateLimitScope; decision: RateLimitDecision } | undefined;
  for (const [scope, id] of buckets) {
    const rule = rules[lane][scope];
    if (id === undefined || rule === false) continue;
    const decision = await limiter.take(bucketKey(lane, scope, id), rule, cost);
    if (!decision.allowed) return { allowed: false, lane, scope, decision };
    if (!tightest || decision.remaining < tightest.decision.remaining)
      tightest = { scope, decision };
  }
  return tightest ? { allowed: true, lane, ...tightest } : { allowed: true, lane };
}

/**
 * Step 1, before anything is parsed or verified: one token from the client address's bucket
 * (an IPv6 address shares its /64's). It bounds what each sender can make the server do —
 * forged stamps included — for the price of one bucket lookup. No bucket without an address.
 * Rejects with RateLimiterUnavailableError when the limiter cannot answer.
 * @example
 * const admission = await admitClient(limiter, DEFAULT_RATE_LIMITS, 'activity', '203.0.113.7');
 */
export function admitClient(
  limiter: RateLimiter,
  rules: RateLimitRules,
  lane: RateLimitLane,
  clientAddress: string | undefined,
): Promise<Admission> {
  const ip = clientAddress ? ipBucketOf(clientAddress) : undefined;
  return takeInOrder(limiter, rules, lane, [['ip', ip]], 1);
}

/**
 * Step 2, once the stamp has verified and its user is found: `cost` tokens from the user's
 * bucket, then from the organization's (stopping at a refusal, so a user refused for their
 * own flood spends nothing of their organization's). Only verified requests get here, so no
 * stranger can spend an organization's budget by naming it. Rejects with
 * RateLimiterUnavailableError when the limiter cannot answer.
 * @example
 * const admission = await admitPrincipal(limiter, DEFAULT_RATE_LIMITS, 'chain_expensive', {
 *   organizationId, userId, cost: 100,
 * });
 */
export function admitPrincipal(
  limiter: RateLimiter,
  rules: RateLimitRules,
  lane: RateLimitLane,
  charge: PrincipalCharge,
): Promise<Admission> {
  return takeInOrder(
    limiter,
    rules,
    lane,
    [
      ['user', charge.userId],
      ['organization', charge.organizationId],
    ],
    charge.cost,
  );
}

/**
 * The human-readable refusal text. An organization refused on a write lane gets the spec's
 * catalogue sentence (whose tail the spec elides; ours asks to wait, as Turnkey's 429 does);
 * every other refusal gets Turnkey's too-many-requests text.
 * @example
 * rateLimitedMessage('activity', 'organization');
 * // 'this organization cannot execute activities because it has been rate limited. Please wait and try again in a few seconds'
 */
export function rateLimitedMessage(lane: RateLimitLane, scope: RateLimitScope): string {
  if (scope === 'organization' && lane !== 'query') {
    return 'this organization cannot execute activities because it has been rate limited. Please wait and try again in a few seconds';
  }
  return 'Too many requests. Please wait and try again in a few seconds';
}

/**
 * Admission: one request against the buckets of its lane — its client address first, then
 * its organization. The first refusal decides; an admitted request reports the bucket closest
 * to empty, which is what the `ratelimit-*` headers describe.
 * @module
 */
import type { RateLimitDecision, RateLimiter } from '../ports/rate-limiter.js';
import type { RateLimitLane } from './lanes.js';
import type { RateLimitRules } from './rules.js';
import { ipBucketOf, type RateLimitScope } from './scopes.js';

/**
 * What admission needs to know about a request.
 * @example
 * const request: AdmissionRequest = { lane: 'query', clientAddress: '203.0.113.7', organizationId };
 */
export interface AdmissionRequest {
  lane: RateLimitLane;
  /** The client's address as the transport saw it; no IP scope without one. */
  clientAddress?: string | undefined;
  /** The body's organization id (see `organizationIdOf`); no organization scope without one. */
  organizationId?: string | undefined;
}

/**
 * The verdict: admitted or refused, by which bucket.
 * @example
 * const admission: Admission = await admit(limiter, rules, request);
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
  | { allowed: false; lane: RateLimitLane; scope: RateLimitScope; decision: RateLimitDecision };

/**
 * The limiter key of a bucket: `<lane>:<scope>:<id>`, e.g. `activity:org:<uuid>` or
 * `query:ip:203.0.113.7`. Adapters add their own prefix.
 * @example
 * bucketKey('query', 'ip', '203.0.113.7'); // 'query:ip:203.0.113.7'
 */
export function bucketKey(lane: RateLimitLane, scope: RateLimitScope, id: string): string {
  return `${lane}:${scope === 'ip' ? 'ip' : 'org'}:${id}`;
}

/**
 * Takes one token from each bucket that applies, in order, and stops at the first refusal
 * (so a request refused by its IP bucket costs its organization nothing). Rejects with
 * RateLimiterUnavailableError when the limiter cannot answer.
 * @example
 * const admission = await admit(limiter, DEFAULT_RATE_LIMITS, {
 *   lane: 'activity', clientAddress: '203.0.113.7', organizationId,
 * });
 * if (!admission.allowed) reply429(admission.scope, admission.decision.retryAfterMs);
 */
export async function admit(
  limiter: RateLimiter,
  rules: RateLimitRules,
  request: AdmissionRequest,
): Promise<Admission> {
  const { lane } = request;
  const buckets: [RateLimitScope, string | undefined][] = [
    ['ip', request.clientAddress ? ipBucketOf(request.clientAddress) : undefined],
    ['organization', request.organizationId],
  ];
  let tightest: { scope: RateLimitScope; decision: RateLimitDecision } | undefined;
  for (const [scope, id] of buckets) {
    const rule = rules[lane][scope];
    if (id === undefined || rule === false) continue;
    const decision = await limiter.take(bucketKey(lane, scope, id), rule);
    if (!decision.allowed) return { allowed: false, lane, scope, decision };
    if (!tightest || decision.remaining < tightest.decision.remaining)
      tightest = { scope, decision };
  }
  return tightest ? { allowed: true, lane, ...tightest } : { allowed: true, lane };
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

import { describe, expect, it } from 'vitest';
import type { RateLimitDecision, RateLimiter, RateLimitRule } from '../ports/rate-limiter.js';
import { admit, bucketKey, rateLimitedMessage } from './admission.js';
import { type GcraState, gcra } from './gcra.js';
import { laneOfRoute } from './lanes.js';
import { DEFAULT_RATE_LIMITS, rateLimitRules } from './rules.js';
import { ipBucketOf, organizationIdOf } from './scopes.js';

/** The GCRA model behind the port, recording every key it is asked about. */
function modelLimiter() {
  const tats = new Map<string, GcraState | undefined>();
  const asked: string[] = [];
  const limiter: RateLimiter = {
    async take(key: string, rule: RateLimitRule, cost = 1): Promise<RateLimitDecision> {
      asked.push(key);
      const step = gcra(tats.get(key), rule, cost, 0);
      tats.set(key, step.state);
      return step.decision;
    },
  };
  return { limiter, asked };
}

const ORG = '0b3a0f9e-5d4c-4b2a-9f8e-7d6c5b4a3f2e';
const bytes = (text: string) => new TextEncoder().encode(text);

describe('lanes', () => {
  it('queries are the query lane; transaction and batch signing are chain_expensive', () => {
    expect(laneOfRoute('query', 'list_wallets')).toBe('query');
    expect(laneOfRoute('submit', 'create_wallet')).toBe('activity');
    expect(laneOfRoute('submit', 'sign_raw_payload')).toBe('activity');
    expect(laneOfRoute('submit', 'sign_raw_payloads')).toBe('chain_expensive');
    expect(laneOfRoute('submit', 'sign_transaction')).toBe('chain_expensive');
  });
});

describe('scopes', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['::FFFF:cb00:7107', '203.0.113.7'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002::9', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['64:ff9b::192.0.2.33', '64:ff9b:0:0::/64'],
    ['not an address', 'not an address'],
    ['1:2:3', '1:2:3'],
    ['1::2::3', '1::2::3'],
  ])('ipBucketOf(%j) = %j', (address, bucket) => {
    expect(ipBucketOf(address)).toBe(bucket);
  });

  it('ipBucketOf keeps unparseable input short', () => {
    expect(ipBucketOf('x'.repeat(1000))).toHaveLength(64);
  });

  it('organizationIdOf reads a UUID organizationId, lower-cased, and nothing else', () => {
    expect(organizationIdOf(bytes(JSON.stringify({ organizationId: ORG.toUpperCase() })))).toBe(
      ORG,
    );
    expect(organizationIdOf(bytes(JSON.stringify({ organizationId: 'acme' })))).toBeUndefined();
    expect(organizationIdOf(bytes(JSON.stringify({ organizationId: 42 })))).toBeUndefined();
    expect(organizationIdOf(bytes(JSON.stringify([ORG])))).toBeUndefined();
    expect(organizationIdOf(bytes('{"organizationId":'))).toBeUndefined();
    expect(organizationIdOf(bytes('null'))).toBeUndefined();
    expect(organizationIdOf(new Uint8Array())).toBeUndefined();
    expect(
      organizationIdOf(bytes(JSON.stringify({ parameters: { organizationId: ORG } }))),
    ).toBeUndefined();
  });
});

describe('rules', () => {
  it('default to 60 per second with a bucket of 60, per IP and per organization, in every lane', () => {
    for (const lane of ['query', 'activity', 'chain_expensive'] as const) {
      expect(DEFAULT_RATE_LIMITS[lane]).toEqual({
        ip: { limit: 60, periodMs: 1000, burst: 60 },
        organization: { limit: 60, periodMs: 1000, burst: 60 },
      });
    }
  });

  it('take overrides, leave the rest, and name a bad rule', () => {
    const rules = rateLimitRules({
      chain_expensive: { organization: { limit: 5, periodMs: 1000 } },
      query: { ip: false },
    });
    expect(rules.chain_expensive.organization).toEqual({ limit: 5, periodMs: 1000 });
    expect(rules.chain_expensive.ip).toEqual(DEFAULT_RATE_LIMITS.chain_expensive.ip);
    expect(rules.query.ip).toBe(false);
    expect(rules.activity).toEqual(DEFAULT_RATE_LIMITS.activity);
    expect(() => rateLimitRules({ activity: { ip: { limit: 0, periodMs: 1000 } } })).toThrow(
      /activity\.ip: rate limit: limit/,
    );
  });
});

describe('admit', () => {
  const rules = rateLimitRules({
    activity: { ip: { limit: 3, periodMs: 60_000 }, organization: { limit: 2, periodMs: 60_000 } },
  });

  it('draws from the IP bucket, then the organization bucket, and reports the tighter', async () => {
    const { limiter, asked } = modelLimiter();
    const admission = await admit(limiter, rules, {
      lane: 'activity',
      clientAddress: '::ffff:203.0.113.7',
      organizationId: ORG,
    });
    expect(asked).toEqual(['activity:ip:203.0.113.7', `activity:org:${ORG}`]);
    expect(admission).toMatchObject({
      allowed: true,
      lane: 'activity',
      scope: 'organization',
      decision: { limit: 2, remaining: 1 },
    });
  });

  it('stops at the first refusal, so a request refused by its IP costs its organization nothing', async () => {
    const { limiter, asked } = modelLimiter();
    const request = { lane: 'activity' as const, clientAddress: '203.0.113.7' };
    for (let i = 0; i < 3; i++) await admit(limiter, rules, request);
    asked.length = 0;
    const refused = await admit(limiter, rules, { ...request, organizationId: ORG });
    expect(refused).toMatchObject({
      allowed: false,
      scope: 'ip',
      decision: { retryAfterMs: 20_000 },
    });
    expect(asked).toEqual(['activity:ip:203.0.113.7']);
  });

  it('refuses by organization once the organization is spent, from any address', async () => {
    const { limiter } = modelLimiter();
    for (const address of ['192.0.2.1', '192.0.2.2'])
      await admit(limiter, rules, {
        lane: 'activity',
        clientAddress: address,
        organizationId: ORG,
      });
    const refused = await admit(limiter, rules, {
      lane: 'activity',
      clientAddress: '192.0.2.3',
      organizationId: ORG,
    });
    expect(refused).toMatchObject({ allowed: false, scope: 'organization' });
  });

  it('applies no bucket when there is no scope or the rule is off', async () => {
    const { limiter, asked } = modelLimiter();
    expect(await admit(limiter, rules, { lane: 'query' })).toEqual({
      allowed: true,
      lane: 'query',
    });
    const off = rateLimitRules({ query: { ip: false, organization: false } });
    expect(
      await admit(limiter, off, { lane: 'query', clientAddress: '192.0.2.1', organizationId: ORG }),
    ).toEqual({ allowed: true, lane: 'query' });
    expect(asked).toEqual([]);
  });

  it('bucket keys name lane, scope and id', () => {
    expect(bucketKey('chain_expensive', 'organization', ORG)).toBe(`chain_expensive:org:${ORG}`);
  });

  it('messages: the catalogue sentence for an organization on a write lane, else too many requests', () => {
    expect(rateLimitedMessage('activity', 'organization')).toMatch(
      /^this organization cannot execute activities because it has been rate limited\. /,
    );
    expect(rateLimitedMessage('chain_expensive', 'organization')).toMatch(/^this organization/);
    expect(rateLimitedMessage('query', 'organization')).toMatch(/^Too many requests/);
    expect(rateLimitedMessage('activity', 'ip')).toMatch(/^Too many requests/);
  });
});

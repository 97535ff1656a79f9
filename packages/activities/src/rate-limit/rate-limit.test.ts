import { ACTIVITY_DEFINITIONS, KeyholdError, validateIntent } from '@keyhold/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type RateLimitDecision,
  type RateLimiter,
  RateLimiterUnavailableError,
  type RateLimitRule,
} from '../ports/rate-limiter.js';
import { activityCost, MAX_ACTIVITY_COST, WEIGHTED_KINDS } from './activity-cost.js';
import { admitClient, admitPrincipal, bucketKey, rateLimitedMessage } from './admission.js';
import { type GcraState, gcra } from './gcra.js';
import { CHAIN_EXPENSIVE_KINDS, laneOfRoute } from './lanes.js';
import { RateLimitedError, RequestAdmission } from './request-admission.js';
import { DEFAULT_RATE_LIMITS, rateLimitRules } from './rules.js';
import { ipBucketOf } from './scopes.js';

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
const USER = '6f1e2d3c-4b5a-4968-8776-655443322110';

describe('lanes', () => {
  it('queries are the query lane; key derivation, transaction and batch signing are chain_expensive', () => {
    expect(laneOfRoute('query', 'list_wallets')).toBe('query');
    expect(laneOfRoute('submit', 'create_users')).toBe('activity');
    expect(laneOfRoute('submit', 'sign_raw_payload')).toBe('activity');
    for (const path of [
      'create_wallet',
      'create_wallet_accounts',
      'create_private_keys',
      'create_sub_organization',
      'import_wallet',
      'sign_raw_payloads',
      'sign_transaction',
    ])
      expect(laneOfRoute('submit', path)).toBe('chain_expensive');
  });

  it('every lane kind is an activity kind, and every weighted kind is in chain_expensive', () => {
    const kinds = new Set(ACTIVITY_DEFINITIONS.map((d) => d.kind));
    for (const kind of CHAIN_EXPENSIVE_KINDS) expect(kinds).toContain(kind);
    for (const kind of WEIGHTED_KINDS) expect(CHAIN_EXPENSIVE_KINDS).toContain(kind);
  });
});

describe('activityCost', () => {
  const accounts = (n: number) =>
    Array.from({ length: n }, (_, i) => ({
      curve: 'CURVE_SECP256K1',
      pathFormat: 'PATH_FORMAT_BIP32',
      path: `m/44'/60'/0'/0/${i}`,
      addressFormat: 'ADDRESS_FORMAT_ETHEREUM',
    }));

  it('counts accounts created, keys created and payloads signed; 1 for everything else', () => {
    expect(activityCost('CREATE_WALLET', { walletName: 'w', accounts: accounts(100) })).toBe(100);
    expect(activityCost('CREATE_WALLET', { walletName: 'w', accounts: [] })).toBe(1);
    expect(activityCost('CREATE_WALLET_ACCOUNTS', { walletId: ORG, accounts: accounts(7) })).toBe(
      7,
    );
    expect(activityCost('IMPORT_WALLET', { accounts: accounts(3) })).toBe(3);
    expect(activityCost('CREATE_PRIVATE_KEYS', { privateKeys: [{}, {}, {}, {}] })).toBe(4);
    expect(
      activityCost('CREATE_SUB_ORGANIZATION', {
        wallet: { walletName: 'w', accounts: accounts(5) },
      }),
    ).toBe(5);
    expect(activityCost('CREATE_SUB_ORGANIZATION', { subOrganizationName: 's' })).toBe(1);
    expect(activityCost('SIGN_RAW_PAYLOADS', { payloads: ['a', 'b', 'c'] })).toBe(3);
    expect(activityCost('SIGN_TRANSACTION', { unsignedTransaction: '00' })).toBe(1);
    expect(activityCost('SIGN_RAW_PAYLOAD', { payload: 'a' })).toBe(1);
    expect(activityCost('CREATE_USERS', { users: [{}, {}] })).toBe(1);
  });

  it('reads unvalidated parameters safely, and never charges more than the largest valid body', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...WEIGHTED_KINDS, 'CREATE_USERS', 'constructor', '__proto__'),
        fc.anything(),
        (kind, parameters) => {
          const cost = activityCost(kind, parameters);
          expect(Number.isSafeInteger(cost)).toBe(true);
          expect(cost).toBeGreaterThanOrEqual(1);
          expect(cost).toBeLessThanOrEqual(MAX_ACTIVITY_COST);
        },
      ),
    );
    expect(activityCost('CREATE_WALLET', { accounts: accounts(5000) })).toBe(MAX_ACTIVITY_COST);
  });

  it('MAX_ACTIVITY_COST is what the intent schemas accept: 100 accounts pass, 101 are refused', () => {
    const intent = (n: number) => ({ walletName: 'w', accounts: accounts(n) });
    expect(() =>
      validateIntent('ACTIVITY_TYPE_CREATE_WALLET', intent(MAX_ACTIVITY_COST)),
    ).not.toThrow();
    expect(() =>
      validateIntent('ACTIVITY_TYPE_CREATE_WALLET', intent(MAX_ACTIVITY_COST + 1)),
    ).toThrow(KeyholdError);
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
});

describe('rules', () => {
  it('default to 60 per second with a bucket of 60, per IP, user and organization, in every lane', () => {
    for (const lane of ['query', 'activity', 'chain_expensive'] as const) {
      expect(DEFAULT_RATE_LIMITS[lane]).toEqual({
        ip: { limit: 60, periodMs: 1000, burst: 60 },
        user: { limit: 60, periodMs: 1000, burst: 60 },
        organization: { limit: 60, periodMs: 1000, burst: 60 },
      });
    }
  });

  it('take overrides, leave the rest, and name a bad rule', () => {
    const rules = rateLimitRules({
      chain_expensive: { organization: { limit: 5, periodMs: 1000 } },
      query: { ip: false },
      activity: { user: { limit: 2, periodMs: 1000 } },
    });
    expect(rules.chain_expensive.organization).toEqual({ limit: 5, periodMs: 1000 });
    expect(rules.chain_expensive.ip).toEqual(DEFAULT_RATE_LIMITS.chain_expensive.ip);
    expect(rules.query.ip).toBe(false);
    expect(rules.activity.user).toEqual({ limit: 2, periodMs: 1000 });
    expect(rules.activity.organization).toEqual(DEFAULT_RATE_LIMITS.activity.organization);
    expect(() => rateLimitRules({ activity: { ip: { limit: 0, periodMs: 1000 } } })).toThrow(
      /activity\.ip: rate limit: limit/,
    );
  });
});

describe('admission', () => {
  const rules = rateLimitRules({
    activity: {
      ip: { limit: 3, periodMs: 60_000 },
      user: { limit: 5, periodMs: 60_000 },
      organization: { limit: 2, periodMs: 60_000 },
    },
  });
  const charge = { organizationId: ORG, userId: USER, cost: 1 };

  it('admitClient draws one token from the IP bucket only', async () => {
    const { limiter, asked } = modelLimiter();
    const admission = await admitClient(limiter, rules, 'activity', '::ffff:203.0.113.7');
    expect(asked).toEqual(['activity:ip:203.0.113.7']);
    expect(admission).toMatchObject({
      allowed: true,
      lane: 'activity',
      scope: 'ip',
      decision: { limit: 3, remaining: 2 },
    });
  });

  it('admitPrincipal draws the cost from the user bucket, then the organization bucket, and reports the tighter', async () => {
    const { limiter, asked } = modelLimiter();
    const admission = await admitPrincipal(limiter, rules, 'activity', { ...charge, cost: 2 });
    expect(asked).toEqual([`activity:user:${USER}`, `activity:org:${ORG}`]);
    expect(admission).toMatchObject({
      allowed: true,
      scope: 'organization',
      decision: { limit: 2, remaining: 0 },
    });
  });

  it('a user refused for their own flood spends nothing of the organization', async () => {
    const { limiter, asked } = modelLimiter();
    const tightUser = rateLimitRules({ activity: { user: { limit: 1, periodMs: 60_000 } } });
    await admitPrincipal(limiter, tightUser, 'activity', charge);
    asked.length = 0;
    expect(await admitPrincipal(limiter, tightUser, 'activity', charge)).toMatchObject({
      allowed: false,
      scope: 'user',
    });
    expect(asked).toEqual([`activity:user:${USER}`]);
  });

  it('refuses by organization once the organization is spent, by any of its users', async () => {
    const { limiter } = modelLimiter();
    for (const userId of ['u1', 'u2'])
      await admitPrincipal(limiter, rules, 'activity', { ...charge, userId });
    const refused = await admitPrincipal(limiter, rules, 'activity', { ...charge, userId: 'u3' });
    expect(refused).toMatchObject({ allowed: false, scope: 'organization' });
  });

  it('applies no bucket when there is no address or the rule is off', async () => {
    const { limiter, asked } = modelLimiter();
    expect(await admitClient(limiter, rules, 'query', undefined)).toEqual({
      allowed: true,
      lane: 'query',
    });
    const off = rateLimitRules({ query: { ip: false, user: false, organization: false } });
    expect(await admitClient(limiter, off, 'query', '192.0.2.1')).toEqual({
      allowed: true,
      lane: 'query',
    });
    expect(await admitPrincipal(limiter, off, 'query', charge)).toEqual({
      allowed: true,
      lane: 'query',
    });
    expect(asked).toEqual([]);
  });

  it('bucket keys name lane, scope and id', () => {
    expect(bucketKey('chain_expensive', 'organization', ORG)).toBe(`chain_expensive:org:${ORG}`);
    expect(bucketKey('query', 'user', USER)).toBe(`query:user:${USER}`);
    expect(bucketKey('query', 'ip', '192.0.2.1')).toBe('query:ip:192.0.2.1');
  });

  it('messages: the catalogue sentence for an organization on a write lane, else too many requests', () => {
    expect(rateLimitedMessage('activity', 'organization')).toMatch(
      /^this organization cannot execute activities because it has been rate limited\. /,
    );
    expect(rateLimitedMessage('chain_expensive', 'organization')).toMatch(/^this organization/);
    expect(rateLimitedMessage('query', 'organization')).toMatch(/^Too many requests/);
    expect(rateLimitedMessage('activity', 'ip')).toMatch(/^Too many requests/);
    expect(rateLimitedMessage('activity', 'user')).toMatch(/^Too many requests/);
  });
});

describe('RequestAdmission: the order of one request', () => {
  const rules = rateLimitRules({
    activity: {
      ip: { limit: 2, periodMs: 60_000 },
      user: { limit: 10, periodMs: 60_000 },
      organization: { limit: 3, periodMs: 60_000 },
    },
  });
  const charge = { organizationId: ORG, userId: USER, cost: 1 };

  it('the client address first, then, once charged, the user and the organization with the cost', async () => {
    const { limiter, asked } = modelLimiter();
    const admission = new RequestAdmission(limiter, rules, 'activity');
    expect(await admission.admitClient('203.0.113.7')).toBeUndefined();
    expect(asked).toEqual(['activity:ip:203.0.113.7']);
    expect(admission.budget).toMatchObject({ scope: 'ip', decision: { remaining: 1 } });
    await admission.charge({ ...charge, cost: 3 });
    expect(asked).toEqual([
      'activity:ip:203.0.113.7',
      `activity:user:${USER}`,
      `activity:org:${ORG}`,
    ]);
    expect(admission.budget).toMatchObject({ scope: 'organization', decision: { remaining: 0 } });
    expect(admission.refusal).toBeUndefined();
  });

  it('charges at most once, however often the service calls it (a retried transaction)', async () => {
    const { limiter, asked } = modelLimiter();
    const admission = new RequestAdmission(limiter, rules, 'activity');
    await admission.charge(charge);
    await admission.charge(charge);
    expect(asked).toEqual([`activity:user:${USER}`, `activity:org:${ORG}`]);
  });

  it('a refused charge rejects with RateLimitedError and is kept as the refusal', async () => {
    const { limiter } = modelLimiter();
    // Cost 4 against a full organization bucket of 3: admitted, leaving the bucket in debt.
    await new RequestAdmission(limiter, rules, 'activity').charge({ ...charge, cost: 4 });
    const second = new RequestAdmission(limiter, rules, 'activity');
    const refused = await second.charge(charge).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RateLimitedError);
    expect((refused as RateLimitedError).refusal).toMatchObject({
      scope: 'organization',
      decision: { retryAfterMs: 40_000 }, // two tokens of debt, then one to take: 2 × 20 s
    });
    expect(second.refusal).toMatchObject({ allowed: false, scope: 'organization' });
    expect((refused as Error).message).toMatch(/^this organization cannot execute activities/);
  });

  it('a refused client address is returned, and an unreachable limiter is kept', async () => {
    const { limiter } = modelLimiter();
    for (let i = 0; i < 2; i++)
      await new RequestAdmission(limiter, rules, 'activity').admitClient('192.0.2.1');
    const refused = new RequestAdmission(limiter, rules, 'activity');
    expect(await refused.admitClient('192.0.2.1')).toMatchObject({ scope: 'ip' });
    expect(refused.refusal).toMatchObject({ scope: 'ip' });

    const down: RateLimiter = {
      take: () => Promise.reject(new RateLimiterUnavailableError('connection refused')),
    };
    const unreachable = new RequestAdmission(down, rules, 'activity');
    await expect(unreachable.charge(charge)).rejects.toBeInstanceOf(RateLimiterUnavailableError);
    expect(unreachable.unavailable?.reason).toBe('connection refused');
  });
});

/**
 * `POST /keyhold/v1/explain_policies` through real HTTP, stamped by the published
 * `@turnkey/api-key-stamper`: the dry run explains each policy's outcome, agrees with what the
 * real submit of the same activity then does, stores nothing, refuses as submit refuses, and is
 * metered in the query lane.
 */
import type { Store } from '@keyhold/activities';
import { type RunningServer, startServer } from '@keyhold/cli';
import { MemoryRateLimiter } from '@keyhold/ratelimit-memory';
import { MemoryStore } from '@keyhold/store-memory';
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTurnkeyServer, type TurnkeyServer } from './__fixtures__/turnkey-server.js';
import { type ApiKeyPair, generateApiKeyPair } from './api-key-signer.js';
import { createKeyhold } from './keyhold.js';
import { EXPLAIN_POLICIES_PATH } from './keyhold-extensions.js';
import { silentLogger } from './logger.js';

const DENIED_TYPE = 'ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2';

/** A stamped POST with plain fetch, the stamp made by the published stamper. */
async function post(url: string, path: string, body: unknown, key: ApiKeyPair) {
  const text = JSON.stringify(body);
  const stamper = new ApiKeyStamper({ apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey });
  const { stampHeaderName, stampHeaderValue } = await stamper.stamp(text);
  const res = await fetch(`${url}${path}`, {
    method: 'POST',
    body: text,
    headers: { 'content-type': 'application/json', [stampHeaderName]: stampHeaderValue },
  });
  // biome-ignore lint/suspicious/noExplicitAny: wire JSON, checked by the assertions
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

function activityBody(organizationId: string, type: string, parameters: object) {
  return { type, timestampMs: String(Date.now()), organizationId, parameters };
}

const createPrivateKeys = (organizationId: string) =>
  activityBody(organizationId, DENIED_TYPE, {
    privateKeys: [
      {
        privateKeyName: `k-${Math.random().toString(36).slice(2)}`,
        curve: 'CURVE_SECP256K1',
        privateKeyTags: [],
        addressFormats: ['ADDRESS_FORMAT_ETHEREUM'],
      },
    ],
  });

const createWallet = (organizationId: string) =>
  activityBody(organizationId, 'ACTIVITY_TYPE_CREATE_WALLET', {
    walletName: `w-${Math.random().toString(36).slice(2)}`,
    accounts: [
      {
        curve: 'CURVE_SECP256K1',
        pathFormat: 'PATH_FORMAT_BIP32',
        path: "m/44'/60'/0'/0/0",
        addressFormat: 'ADDRESS_FORMAT_ETHEREUM',
      },
    ],
  });

describe('POST /keyhold/v1/explain_policies', () => {
  let t: TurnkeyServer;
  let url: string;
  /** A user outside the root quorum: policies decide for them. */
  let member: ApiKeyPair;
  let memberId: string;
  const ids = { allow: '', deny: '', bitcoin: '' };

  const explain = (activity: object, key = member, organizationId = t.organizationId) =>
    post(url, EXPLAIN_POLICIES_PATH, { organizationId, activity }, key);
  const submit = (path: string, activity: object, key = member) =>
    post(url, `/public/v1/submit/${path}`, activity, key);
  const activityCount = async () =>
    (
      await t.embedded.query<{ activities: unknown[] }>('list_activities', {
        paginationOptions: { limit: '100' },
      })
    ).activities.length;

  beforeAll(async () => {
    t = await startTurnkeyServer();
    url = t.server.url;
    member = generateApiKeyPair();
    const { userIds } = await t.embedded.run<{ userIds: string[] }>(
      'ACTIVITY_TYPE_CREATE_USERS_V3',
      {
        users: [
          {
            userName: 'member',
            apiKeys: [
              {
                apiKeyName: 'member',
                publicKey: member.publicKey,
                curveType: 'API_KEY_CURVE_P256',
              },
            ],
            authenticators: [],
            oauthProviders: [],
            userTags: [],
          },
        ],
      },
    );
    memberId = userIds[0]!;
    const policy = async (policyName: string, effect: string, condition: string) =>
      (
        await t.embedded.run<{ policyId: string }>('ACTIVITY_TYPE_CREATE_POLICY_V3', {
          policyName,
          effect,
          condition,
          notes: '',
        })
      ).policyId;
    ids.allow = await policy('allow everything', 'EFFECT_ALLOW', 'true');
    ids.deny = await policy(
      'no new private keys',
      'EFFECT_DENY',
      `activity.type == '${DENIED_TYPE}'`,
    );
    ids.bitcoin = await policy('no big bitcoin fees', 'EFFECT_DENY', 'bitcoin.tx.fee > 50000');
  });

  afterAll(async () => {
    await t.server.close();
  });

  it('explains a DENY: the deciding policy, and the bitcoin policy erroring on missing data without counting', async () => {
    const before = await activityCount();
    const activity = createPrivateKeys(t.organizationId);
    const res = await explain(activity);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      organizationId: t.organizationId,
      activityType: DENIED_TYPE,
      userId: memberId,
      decision: 'DENY',
      reason: 'explicit-deny',
      decidingPolicyIds: [ids.deny],
      policyEvaluations: [
        {
          policyId: ids.allow,
          policyName: 'allow everything',
          effect: 'EFFECT_ALLOW',
          outcome: 'OUTCOME_ALLOW',
        },
        {
          policyId: ids.deny,
          policyName: 'no new private keys',
          effect: 'EFFECT_DENY',
          outcome: 'OUTCOME_DENY_EXPLICIT',
        },
        {
          policyId: ids.bitcoin,
          policyName: 'no big bitcoin fees',
          effect: 'EFFECT_DENY',
          outcome: 'OUTCOME_ERROR',
          error: expect.objectContaining({
            field: 'condition',
            errorClass: 'missing',
            countedAsDeny: false,
            message: expect.stringContaining('bitcoin.tx'),
          }),
        },
      ],
    });
    // Nothing was stored by the dry run.
    expect(await activityCount()).toBe(before);

    // The real submit of the same activity agrees: refused by the deny policy, nothing stored.
    const real = await submit('create_private_keys', activity);
    expect(real.status).toBe(403);
    expect(real.body).toMatchObject({
      code: 7,
      message: 'policy engine denied request explicitly',
    });
    expect(await activityCount()).toBe(before);
  });

  it('explains an ALLOW that the real submit then runs', async () => {
    const before = await activityCount();
    const activity = createWallet(t.organizationId);
    const res = await explain(activity);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      decision: 'ALLOW',
      reason: 'policy',
      decidingPolicyIds: [ids.allow],
    });
    expect(res.body.policyEvaluations.map((e: { outcome: string }) => e.outcome)).toEqual([
      'OUTCOME_ALLOW',
      'OUTCOME_DENY_IMPLICIT',
      'OUTCOME_ERROR',
    ]);
    expect(await activityCount()).toBe(before);

    const real = await submit('create_wallet', activity);
    expect(real.status).toBe(200);
    expect(real.body.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(await activityCount()).toBe(before + 1);
  });

  it('counts the caller as the first vote: the root quorum of one bypasses the policies, as on submit', async () => {
    const activity = createPrivateKeys(t.organizationId);
    const res = await explain(activity, t.key);
    expect(res.body).toMatchObject({
      userId: t.userId,
      decision: 'ALLOW',
      reason: 'root-quorum',
      decidingPolicyIds: [],
    });
    // The policies are still evaluated and shown.
    expect(res.body.policyEvaluations).toHaveLength(3);
    const real = await submit('create_private_keys', activity, t.key);
    expect(real.body.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
  });

  it('refuses a bad stamp with 401, and a key of no user of the organization', async () => {
    const body = JSON.stringify({
      organizationId: t.organizationId,
      activity: createWallet(t.organizationId),
    });
    const unstamped = await fetch(`${url}${EXPLAIN_POLICIES_PATH}`, { method: 'POST', body });
    expect(unstamped.status).toBe(401);
    expect(((await unstamped.json()) as { code: number }).code).toBe(16);

    // A stamp over other bytes: the signature is checked over the raw body.
    const stamper = new ApiKeyStamper({
      apiPublicKey: member.publicKey,
      apiPrivateKey: member.privateKey,
    });
    const { stampHeaderValue } = await stamper.stamp(`${body} `);
    const forged = await fetch(`${url}${EXPLAIN_POLICIES_PATH}`, {
      method: 'POST',
      body,
      headers: { 'x-stamp': stampHeaderValue },
    });
    expect(forged.status).toBe(401);
    expect(await forged.json()).toMatchObject({
      code: 16,
      message: 'could not verify api key signature',
    });

    const stranger = await explain(createWallet(t.organizationId), generateApiKeyPair());
    expect(stranger.status).toBe(401);
    expect(stranger.body.message).toBe(
      'could not find public key in organization or its parent organization',
    );
  });

  it('refuses a bad activity body with the same Status as submit', async () => {
    // A type of the public API that Keyhold refuses at its endpoint (selector policies).
    const unserved = activityBody(t.organizationId, 'ACTIVITY_TYPE_CREATE_POLICY', {
      policyName: 'selectors',
      selectors: [],
      effect: 'EFFECT_ALLOW',
    });
    const [dry, real] = [await explain(unserved), await submit('create_policy', unserved)];
    expect(real.status).toBe(400);
    expect(real.body.details[0]).toMatchObject({ errorCode: 'SELECTOR_POLICY_NOT_AVAILABLE' });
    expect(dry.status).toBe(real.status);
    expect(dry.body).toEqual(real.body);

    // An invalid intent: the schema's refusal, word for word.
    const badCurve = createPrivateKeys(t.organizationId);
    (badCurve.parameters as { privateKeys: { curve: string }[] }).privateKeys[0]!.curve = 'CURVE_X';
    const [dryCurve, realCurve] = [
      await explain(badCurve),
      await submit('create_private_keys', badCurve),
    ];
    expect(realCurve.status).toBe(400);
    expect(dryCurve.status).toBe(realCurve.status);
    expect(dryCurve.body).toEqual(realCurve.body);

    // No activity type at all: submit names its endpoint's types; the message is the same.
    const unknown = activityBody(t.organizationId, 'ACTIVITY_TYPE_MAKE_COFFEE', {});
    const [dryUnknown, realUnknown] = [
      await explain(unknown),
      await submit('create_wallet', unknown),
    ];
    expect(dryUnknown.status).toBe(400);
    expect(dryUnknown.status).toBe(realUnknown.status);
    expect(dryUnknown.body.code).toBe(realUnknown.body.code);
    expect(dryUnknown.body.message).toBe(realUnknown.body.message);
  });

  it('refuses a malformed explain request, another method and another extension path', async () => {
    const missing = await post(
      url,
      EXPLAIN_POLICIES_PATH,
      { organizationId: t.organizationId },
      member,
    );
    expect(missing.status).toBe(400);
    expect(missing.body.message).toBe('bad request body');

    const elsewhere = await explain({
      ...createWallet(t.organizationId),
      organizationId: '00000000-0000-4000-8000-000000000000',
    });
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body.details[0]).toMatchObject({ field: '/activity/organizationId' });

    const vote = await explain(
      activityBody(t.organizationId, 'ACTIVITY_TYPE_APPROVE_ACTIVITY', {
        fingerprint: 'sha256:00',
      }),
    );
    expect(vote.status).toBe(400);

    const get = await fetch(`${url}${EXPLAIN_POLICIES_PATH}`);
    expect(get.status).toBe(405);
    const other = await post(url, '/keyhold/v1/explain_everything', {}, member);
    expect(other.status).toBe(404);
  });
});

describe('explain_policies rate limiting', () => {
  let server: RunningServer | undefined;
  afterAll(async () => {
    await server?.close();
  });

  it('is metered in the query lane: it shares the query bucket', async () => {
    const key = generateApiKeyPair();
    const now = 1_750_000_000_000;
    server = await startServer({
      port: 0,
      logger: silentLogger,
      bootstrapApiPublicKey: key.publicKey,
      rateLimiter: new MemoryRateLimiter({ clock: { now: () => now } }),
      rateLimits: { query: { ip: { limit: 2, periodMs: 60_000 } } },
    });
    const organizationId = server.organizationId!;
    const dryRun = () =>
      post(
        server!.url,
        EXPLAIN_POLICIES_PATH,
        { organizationId, activity: createWallet(organizationId) },
        key,
      );
    const admitted = await dryRun();
    expect(admitted.status).toBe(200);
    expect(admitted.headers.get('ratelimit-limit')).toBe('2');
    const query = await post(server.url, '/public/v1/query/whoami', { organizationId }, key);
    expect(query.status).toBe(200);
    const refused = await fetch(`${server.url}${EXPLAIN_POLICIES_PATH}`, {
      method: 'POST',
      body: JSON.stringify({ organizationId, activity: createWallet(organizationId) }),
    });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('x-keyhold-ratelimit-lane')).toBe('query');
  });
});

describe('explain_policies over Koa', () => {
  it('is served by the Koa adapter too', async () => {
    const t = await startTurnkeyServer({ http: 'koa' });
    try {
      const res = await post(
        t.server.url,
        EXPLAIN_POLICIES_PATH,
        { organizationId: t.organizationId, activity: createWallet(t.organizationId) },
        t.key,
      );
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ decision: 'ALLOW', reason: 'root-quorum' });
    } finally {
      await t.server.close();
    }
  });
});

describe('explain_policies writes nothing', () => {
  it('runs in one transaction that rolls back, and calls no write of any repository', async () => {
    const inner = new MemoryStore();
    const log = { transactions: 0, rolledBack: 0, writes: [] as string[] };
    // Every repository method that is not a read is a write.
    const isRead = (name: string) => /^(get|list|find)/.test(name);
    const store: Store = {
      close: () => inner.close(),
      transaction: (work) =>
        inner.transaction(async (tx) => {
          log.transactions++;
          const spied = new Proxy(tx, {
            get(target, repoName) {
              const repo = Reflect.get(target, repoName) as object;
              return new Proxy(repo, {
                get(r, method) {
                  const fn = Reflect.get(r, method);
                  if (typeof fn !== 'function') return fn;
                  return (...args: unknown[]) => {
                    if (!isRead(String(method)))
                      log.writes.push(`${String(repoName)}.${String(method)}`);
                    return fn.apply(r, args);
                  };
                },
              });
            },
          });
          try {
            return await work(spied);
          } catch (error) {
            log.rolledBack++;
            throw error;
          }
        }),
    };
    const keyhold = createKeyhold({ logger: silentLogger, store });
    const key = generateApiKeyPair();
    const { organizationId } = await keyhold.bootstrap({
      organizationName: 'Spied',
      apiPublicKey: key.publicKey,
    });
    const client = keyhold.client({ organizationId, apiPrivateKey: key.privateKey });
    await client.run('ACTIVITY_TYPE_CREATE_POLICY_V3', {
      policyName: 'deny wallets',
      effect: 'EFFECT_DENY',
      condition: "activity.resource == 'WALLET'",
      notes: '',
    });
    Object.assign(log, { transactions: 0, rolledBack: 0, writes: [] });

    const explanation = await client.post<{ decision: string }>(EXPLAIN_POLICIES_PATH, {
      organizationId,
      activity: createWallet(organizationId),
    });
    expect(explanation.decision).toBe('ALLOW'); // the root quorum of one
    expect(log).toEqual({ transactions: 1, rolledBack: 1, writes: [] });
  });
});

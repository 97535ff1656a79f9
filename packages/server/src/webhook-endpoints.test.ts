/**
 * Webhook endpoints and ACTIVITY_UPDATES events in the outbox: CREATE/UPDATE/DELETE_WEBHOOK_ENDPOINT
 * and list_webhook_endpoints through the published `@turnkey/sdk-server` client, their refusals
 * (nothing stored) — every URL that can never deliver, whatever the server allows — private and
 * loopback destinations only with `allowPrivateDestinations`, and the deliveries each activity
 * enqueues in its own transaction, read back through the store's Outbox (`claimDue`).
 */

import type { RunningServer } from '@keyhold/cli';
import type { Activity } from '@keyhold/protocol';
import { MemoryStore } from '@keyhold/store-memory';
import type { WebhookDelivery } from '@keyhold/webhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type SdkClient, startTurnkeyServer } from './__fixtures__/turnkey-server.js';
import { generateApiKeyPair } from './api-key-signer.js';
import { createKeyhold, type Keyhold } from './keyhold.js';
import { type KeyholdClient, KeyholdRequestError } from './keyhold-client.js';

const ETH = {
  curve: 'CURVE_SECP256K1',
  pathFormat: 'PATH_FORMAT_BIP32',
  path: "m/44'/60'/0'/0/0",
  addressFormat: 'ADDRESS_FORMAT_ETHEREUM',
} as const;
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';
const ACTIVITY_UPDATES = [{ eventType: 'ACTIVITY_UPDATES' }];

let store: MemoryStore;
let server: RunningServer;
let sdk: SdkClient;
let embedded: KeyholdClient;
let organizationId: string;

beforeAll(async () => {
  store = new MemoryStore();
  // No delivery loop: the tests read the outbox themselves (a loop would claim first).
  ({
    server,
    client: sdk,
    embedded,
    organizationId,
  } = await startTurnkeyServer({
    store,
    webhookIntervalMs: 0,
  }));
});
afterAll(() => server.close());

/** Every delivery due now (leased for a minute, so the next call sees only new ones). */
const claim = (): Promise<WebhookDelivery[]> => store.claimDue(Date.now() + 1000, 1000, 60_000);

/** The catalogue message a refused request carries. */
async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(KeyholdRequestError);
  return (error as KeyholdRequestError).status.message;
}

const listEndpoints = (client: KeyholdClient = embedded) =>
  client
    .query<{ webhookEndpoints: { endpointId: string; url: string }[] }>('list_webhook_endpoints')
    .then((r) => r.webhookEndpoints);
const activityCount = async (client: KeyholdClient = embedded) =>
  (await client.query<{ activities: unknown[] }>('list_activities')).activities.length;

describe('webhook endpoint activities through @turnkey/sdk-server', () => {
  it('creates, lists, updates and deletes an endpoint', async () => {
    const created = await sdk.createWebhookEndpoint({
      url: 'https://hooks.example.com/keyhold',
      name: 'primary',
      subscriptions: [
        { eventType: 'ACTIVITY_UPDATES', filtersJson: '{"types":["ACTIVITY_TYPE_CREATE_WALLET"]}' },
      ],
    });
    expect(created.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(created.activity.type).toBe('ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT');
    const endpointId = created.endpointId;
    expect(created.webhookEndpoint).toEqual({
      endpointId,
      organizationId,
      url: 'https://hooks.example.com/keyhold',
      name: 'primary',
      isActive: true,
      subscriptions: [
        {
          eventType: 'ACTIVITY_UPDATES',
          filtersJson: '{"types":["ACTIVITY_TYPE_CREATE_WALLET"]}',
          isActive: true,
        },
      ],
    });
    expect(created.activity.intent.createWebhookEndpointIntent?.url).toBe(
      'https://hooks.example.com/keyhold',
    );
    expect((await sdk.listWebhookEndpoints({})).webhookEndpoints).toEqual([
      created.webhookEndpoint,
    ]);

    const updated = await sdk.updateWebhookEndpoint({
      endpointId,
      url: 'https://hooks.example.com/v2',
      name: 'renamed',
      isActive: false,
    });
    expect(updated.endpointId).toBe(endpointId);
    expect(updated.webhookEndpoint).toEqual({
      ...created.webhookEndpoint,
      url: 'https://hooks.example.com/v2',
      name: 'renamed',
      isActive: false,
    });
    // Omitted fields stay as they were.
    const renamedOnly = await sdk.updateWebhookEndpoint({ endpointId, name: 'again' });
    expect(renamedOnly.webhookEndpoint).toEqual({ ...updated.webhookEndpoint, name: 'again' });
    expect((await sdk.listWebhookEndpoints({})).webhookEndpoints).toEqual([
      renamedOnly.webhookEndpoint,
    ]);

    const deleted = await sdk.deleteWebhookEndpoint({ endpointId });
    expect(deleted.endpointId).toBe(endpointId);
    expect(deleted.activity.result).toEqual({ deleteWebhookEndpointResult: { endpointId } });
    expect((await sdk.listWebhookEndpoints({})).webhookEndpoints).toEqual([]);
    await claim(); // the events of this test
  });

  it('an unknown endpoint id makes update and delete FAILED, changing nothing', async () => {
    for (const [type, parameters] of [
      ['ACTIVITY_TYPE_UPDATE_WEBHOOK_ENDPOINT', { endpointId: UNKNOWN_ID, name: 'x' }],
      ['ACTIVITY_TYPE_DELETE_WEBHOOK_ENDPOINT', { endpointId: UNKNOWN_ID }],
    ] as const) {
      const activity = await embedded.submit(type, parameters);
      expect(activity.status).toBe('ACTIVITY_STATUS_FAILED');
      expect(activity.failure?.message).toBe('webhook endpoint not found');
    }
    expect(await listEndpoints()).toEqual([]);
  });
});

describe('refusals: nothing is stored', () => {
  const create = (parameters: object) =>
    embedded.submit('ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT', parameters);

  it.each([
    ['plain http', 'http://hooks.example.com/keyhold', 'http:// is not accepted: use https://'],
    ['http://localhost', 'http://localhost:8080/hook', 'http:// is not accepted: use https://'],
    ['http://127.0.0.1', 'http://127.0.0.1:8080/hook', 'http:// is not accepted: use https://'],
    ['another scheme', 'ftp://hooks.example.com/', 'scheme ftp: is not accepted: use https://'],
    ['not a URL', 'hooks.example.com/keyhold', 'not an absolute URL'],
    ['an empty URL', '', 'must NOT have fewer than 1 characters'], // the intent schema's
    [
      'credentials in the URL',
      'https://user:pw@hooks.example.com/x',
      'credentials in the URL are not accepted',
    ],
    ['IPv6 loopback', 'https://[::1]/x', 'host [::1] is not a public address (loopback)'],
    ['127.1', 'https://127.1/x', 'host 127.0.0.1 is not a public address (loopback)'],
    ['a decimal IPv4', 'https://2130706433/x', 'host 127.0.0.1 is not a public address (loopback)'],
    ['a private address', 'https://10.0.0.5/x', 'host 10.0.0.5 is not a public address (private)'],
    [
      'the metadata address',
      'https://169.254.169.254/latest',
      'host 169.254.169.254 is not a public address (link-local)',
    ],
    ['localhost', 'https://localhost:8443/x', 'host localhost is a local name, not a public one'],
    ['a bare host name', 'https://receiver/x', 'host receiver is a local name, not a public one'],
  ])('refuses %s', async (_, url, reason) => {
    const before = await activityCount();
    const error = await create({ url, name: 'n', subscriptions: ACTIVITY_UPDATES }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(KeyholdRequestError);
    const { status } = error as KeyholdRequestError;
    expect(status.message).toBe('invalid webhook url: it must be an absolute https:// URL');
    expect(JSON.stringify(status.details)).toContain(JSON.stringify(reason));
    expect(await listEndpoints()).toEqual([]);
    expect(await activityCount()).toBe(before);
    expect(await claim()).toEqual([]);
  });

  it('refuses an event type other than ACTIVITY_UPDATES, and filtersJson that is not JSON', async () => {
    const before = await activityCount();
    for (const eventType of ['BALANCE_CONFIRMED_UPDATES', 'activity.completed', '']) {
      expect(
        await refusal(
          create({ url: 'https://h.example.com/', name: 'n', subscriptions: [{ eventType }] }),
        ),
      ).toBe('unsupported webhook event type: only ACTIVITY_UPDATES is supported');
    }
    for (const filtersJson of ['{not json', '', "{'a':1}"]) {
      expect(
        await refusal(
          create({
            url: 'https://h.example.com/',
            name: 'n',
            subscriptions: [{ eventType: 'ACTIVITY_UPDATES', filtersJson }],
          }),
        ),
      ).toBe('invalid webhook subscription filters: filtersJson must be valid JSON');
    }
    // An update refuses a bad URL too, before looking for the endpoint.
    expect(
      await refusal(
        embedded.submit('ACTIVITY_TYPE_UPDATE_WEBHOOK_ENDPOINT', {
          endpointId: UNKNOWN_ID,
          url: 'http://hooks.example.com/',
        }),
      ),
    ).toBe('invalid webhook url: it must be an absolute https:// URL');
    expect(await listEndpoints()).toEqual([]);
    expect(await activityCount()).toBe(before);
    expect(await claim()).toEqual([]);
  });
});

describe('private destinations allowed (allowPrivateDestinations, --allow-private-webhooks)', () => {
  let keyhold: Keyhold;
  let client: KeyholdClient;

  beforeAll(async () => {
    keyhold = createKeyhold({ webhooks: { allowPrivateDestinations: true } });
    const key = generateApiKeyPair();
    const { organizationId: org } = await keyhold.bootstrap({
      organizationName: 'Dev',
      apiPublicKey: key.publicKey,
    });
    client = keyhold.client({ organizationId: org, apiPrivateKey: key.privateKey });
  });
  afterAll(() => keyhold.close());

  it('accepts private and loopback hosts, http only to loopback, never an undeliverable URL', async () => {
    const accepted = [
      'http://localhost:3000/hook',
      'http://127.0.0.1:9000/x',
      'http://localhost',
      'http://[::1]/hook',
      'https://10.0.0.1/hook',
      'https://receiver/hook',
    ];
    for (const url of accepted) {
      const activity = await client.submit('ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT', {
        url,
        name: url,
        subscriptions: ACTIVITY_UPDATES,
      });
      expect(activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    }
    for (const url of [
      'http://10.0.0.1/hook',
      'http://localhost.example.com/hook',
      'http://hooks.example.com/',
      'https://user:pw@localhost/hook',
      'https://0.0.0.0/hook',
      'https://[ff02::1]/hook',
    ]) {
      expect(
        await refusal(
          client.submit('ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT', {
            url,
            name: 'n',
            subscriptions: ACTIVITY_UPDATES,
          }),
        ),
      ).toBe('invalid webhook url: it must be an absolute https:// URL');
    }
    // Stored as given.
    expect((await listEndpoints(client)).map((e) => e.url)).toEqual(accepted);
  });
});

describe('ACTIVITY_UPDATES deliveries', () => {
  /** Endpoint ids by role, created once. */
  const ep: Record<string, string> = {};
  let other: KeyholdClient;
  let otherOrganizationId: string;

  const createEndpoint = async (
    client: KeyholdClient,
    url: string,
    subscriptions: object[] = ACTIVITY_UPDATES,
  ) => {
    const activity = await client.submit('ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT', {
      url,
      name: url,
      subscriptions,
    });
    expect(activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    return (activity.result.createWebhookEndpointResult as { endpointId: string }).endpointId;
  };

  const createWalletBody = (walletName: string) => ({
    type: 'ACTIVITY_TYPE_CREATE_WALLET',
    timestampMs: String(Date.now()),
    organizationId,
    parameters: { walletName, accounts: [ETH] },
  });
  const submitBody = async (body: object) =>
    (await embedded.post<{ activity: Activity }>('/public/v1/submit/create_wallet', body)).activity;

  /** Checks one event: one delivery per receiving endpoint, one event id, the activity as body. */
  function expectEvent(deliveries: WebhookDelivery[], activity: Activity, endpoints: string[]) {
    expect(deliveries.map((d) => d.endpointId).sort()).toEqual([...endpoints].sort());
    expect(new Set(deliveries.map((d) => d.eventId)).size).toBe(1);
    expect(new Set(deliveries.map((d) => d.deliveryId)).size).toBe(deliveries.length);
    for (const d of deliveries) {
      expect(d.organizationId).toBe(activity.organizationId);
      expect(d.eventType).toBe('ACTIVITY_UPDATES');
      expect(d.attempts).toBe(0);
      expect(d.url).toBe(`https://${d.endpointId}.example.com/hook`);
      expect(JSON.parse(d.body)).toEqual(activity);
    }
  }

  beforeAll(async () => {
    // Endpoints named by role; URLs carry the endpoint id once it is known, so rewrite them.
    const roles: [string, object[]][] = [
      ['one', ACTIVITY_UPDATES],
      ['two', [{ eventType: 'ACTIVITY_UPDATES', filtersJson: '{}', isActive: true }]],
      ['inactiveSubscription', [{ eventType: 'ACTIVITY_UPDATES', isActive: false }]],
      ['noSubscription', []],
      ['inactive', ACTIVITY_UPDATES],
    ];
    for (const [role, subscriptions] of roles) {
      ep[role] = await createEndpoint(embedded, `https://${role}.example.com/hook`, subscriptions);
    }
    for (const role of Object.keys(ep)) {
      const activity = await embedded.submit('ACTIVITY_TYPE_UPDATE_WEBHOOK_ENDPOINT', {
        endpointId: ep[role],
        url: `https://${ep[role]}.example.com/hook`,
        ...(role === 'inactive' ? { isActive: false } : {}),
      });
      expect(activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    }

    const key = generateApiKeyPair();
    ({ organizationId: otherOrganizationId } = await server.keyhold.bootstrap({
      organizationName: 'Other',
      apiPublicKey: key.publicKey,
    }));
    other = server.keyhold.client({
      organizationId: otherOrganizationId,
      apiPrivateKey: key.privateKey,
    });
    ep.otherOrg = await createEndpoint(other, 'https://placeholder.example.com/hook');
    await other.submit('ACTIVITY_TYPE_UPDATE_WEBHOOK_ENDPOINT', {
      endpointId: ep.otherOrg,
      url: `https://${ep.otherOrg}.example.com/hook`,
    });
  });
  beforeEach(async () => {
    await claim(); // events of earlier tests and of the setup
  });

  it('a completed activity: one delivery per active endpoint with an active subscription', async () => {
    const { activity } = await embedded.createWallet({ walletName: 'events-1', accounts: [ETH] });
    expect(activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expectEvent(await claim(), activity, [ep.one!, ep.two!]);
  });

  it('the body is exactly what get_activity answers', async () => {
    const { activity } = await embedded.createWallet({ walletName: 'events-2', accounts: [ETH] });
    const [delivery] = await claim();
    const { activity: read } = await embedded.getActivity(activity.id);
    expect(JSON.parse(delivery!.body)).toEqual(read);
  });

  it('the same body submitted again enqueues nothing', async () => {
    const body = createWalletBody('events-resubmitted');
    const first = await submitBody(body);
    expectEvent(await claim(), first, [ep.one!, ep.two!]);
    const again = await submitBody(body);
    expect(again.id).toBe(first.id);
    expect(await claim()).toEqual([]);
  });

  it('a refused request enqueues nothing', async () => {
    const message = await refusal(
      embedded.submit('ACTIVITY_TYPE_CREATE_WALLET', { accounts: [ETH] }),
    );
    expect(message).toBe('bad request body');
    expect(await claim()).toEqual([]);
  });

  it('a FAILED activity enqueues its event too', async () => {
    const activity = await embedded.submit('ACTIVITY_TYPE_DELETE_WEBHOOK_ENDPOINT', {
      endpointId: UNKNOWN_ID,
    });
    expect(activity.status).toBe('ACTIVITY_STATUS_FAILED');
    const deliveries = await claim();
    expectEvent(deliveries, activity, [ep.one!, ep.two!]);
    expect(JSON.parse(deliveries[0]!.body).failure.message).toBe('webhook endpoint not found');
  });

  it("another organization's activities go to its endpoints only", async () => {
    const { activity } = await other.createWallet({ walletName: 'elsewhere', accounts: [ETH] });
    expectEvent(await claim(), activity, [ep.otherOrg!]);
  });

  it('an endpoint made inactive stops receiving; deleting one drops its pending deliveries', async () => {
    const three = await createEndpoint(embedded, 'https://three.example.com/hook');
    // Its own creation is announced to it (endpoints are read after the activity's effects).
    expect((await claim()).map((d) => d.endpointId).sort()).toEqual(
      [ep.one!, ep.two!, three].sort(),
    );

    const pause = await embedded.submit('ACTIVITY_TYPE_UPDATE_WEBHOOK_ENDPOINT', {
      endpointId: three,
      isActive: false,
    });
    expectEvent(await claim(), pause, [ep.one!, ep.two!]);
    const resume = await embedded.submit('ACTIVITY_TYPE_UPDATE_WEBHOOK_ENDPOINT', {
      endpointId: three,
      isActive: true,
    });
    expect((await claim()).map((d) => d.endpointId).sort()).toEqual(
      [ep.one!, ep.two!, three].sort(),
    );
    expect(resume.status).toBe('ACTIVITY_STATUS_COMPLETED');

    // Pending (unclaimed) deliveries to `three`, then its deletion.
    await embedded.createWallet({ walletName: 'pending-for-three', accounts: [ETH] });
    const deleted = await embedded.submit('ACTIVITY_TYPE_DELETE_WEBHOOK_ENDPOINT', {
      endpointId: three,
    });
    expect(deleted.status).toBe('ACTIVITY_STATUS_COMPLETED');
    const left = await claim();
    expect(left.map((d) => d.endpointId)).not.toContain(three);
    // The wallet's event to one and two, and the deletion's event to one and two.
    expect(left).toHaveLength(4);
    expect(new Set(left.map((d) => d.eventId)).size).toBe(2);
  });
});

describe('ACTIVITY_UPDATES deliveries around consensus', () => {
  let keyhold: Keyhold;
  let memory: MemoryStore;
  let root: KeyholdClient;
  let alice: KeyholdClient;
  let endpointId: string;
  const due = () => memory.claimDue(Date.now() + 1000, 1000, 60_000);

  beforeAll(async () => {
    memory = new MemoryStore();
    keyhold = createKeyhold({ store: memory });
    const rootKey = generateApiKeyPair();
    const { organizationId: org, userId: rootUserId } = await keyhold.bootstrap({
      organizationName: 'Quorum',
      apiPublicKey: rootKey.publicKey,
    });
    root = keyhold.client({ organizationId: org, apiPrivateKey: rootKey.privateKey });
    const aliceKey = generateApiKeyPair();
    const { userIds } = await root.run<{ userIds: string[] }>('ACTIVITY_TYPE_CREATE_USERS_V3', {
      users: [
        {
          userName: 'alice',
          apiKeys: [
            { apiKeyName: 'alice', publicKey: aliceKey.publicKey, curveType: 'API_KEY_CURVE_P256' },
          ],
          authenticators: [],
          oauthProviders: [],
          userTags: [],
        },
      ],
    });
    alice = keyhold.client({ organizationId: org, apiPrivateKey: aliceKey.privateKey });
    ({ endpointId } = await root.run<{ endpointId: string }>(
      'ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT',
      { url: 'https://quorum.example.com/hook', name: 'quorum', subscriptions: ACTIVITY_UPDATES },
    ));
    await root.run('ACTIVITY_TYPE_UPDATE_ROOT_QUORUM', {
      threshold: 2,
      userIds: [rootUserId, userIds[0]!],
    });
  });
  afterAll(() => keyhold.close());
  beforeEach(async () => {
    await due();
  });

  /** The one delivery now due: its body as an activity. */
  const onlyEvent = async (): Promise<Activity> => {
    const deliveries = await due();
    expect(deliveries.map((d) => d.endpointId)).toEqual([endpointId]);
    return JSON.parse(deliveries[0]!.body) as Activity;
  };

  it('CONSENSUS_NEEDED, then COMPLETED on the approval that runs it', async () => {
    const waiting = await root.submit('ACTIVITY_TYPE_CREATE_WALLET', {
      walletName: 'needs two',
      accounts: [ETH],
    });
    expect(waiting.status).toBe('ACTIVITY_STATUS_CONSENSUS_NEEDED');
    expect(await onlyEvent()).toEqual({ ...waiting, canApprove: false, canReject: false });
    const done = await alice.approveActivity(waiting.fingerprint);
    expect(done.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(await onlyEvent()).toEqual({ ...done, canApprove: false, canReject: false });
  });

  it('REJECTED on a rejection; FAILED when the approved activity fails', async () => {
    const rejected = await root.submit('ACTIVITY_TYPE_CREATE_WALLET', {
      walletName: 'rejected',
      accounts: [ETH],
    });
    await due();
    expect((await alice.rejectActivity(rejected.fingerprint)).status).toBe(
      'ACTIVITY_STATUS_REJECTED',
    );
    expect((await onlyEvent()).status).toBe('ACTIVITY_STATUS_REJECTED');

    const failing = await root.submit('ACTIVITY_TYPE_DELETE_WEBHOOK_ENDPOINT', {
      endpointId: UNKNOWN_ID,
    });
    expect((await onlyEvent()).status).toBe('ACTIVITY_STATUS_CONSENSUS_NEEDED');
    const failed = await alice.approveActivity(failing.fingerprint);
    expect(failed.status).toBe('ACTIVITY_STATUS_FAILED');
    expect(await onlyEvent()).toMatchObject({
      id: failing.id,
      status: 'ACTIVITY_STATUS_FAILED',
      failure: { message: 'webhook endpoint not found' },
    });
  });
});

/**
 * Issue #10, finding 4: a member that no schema lists — in an activity's parameters, nested
 * in them, or beside them in the envelope — is refused with 400 "unknown field: <path>", so is
 * text that JSON.parse would discard (a shadowed duplicate key, padding), and nothing of it is
 * stored (no activity, no vote message, no webhook event) or echoed by
 * get_activity / list_activities. Bodies are posted as the published clients post them:
 * `JSON.stringify` of sdk-server's envelope, stamped by `@turnkey/api-key-stamper`. Run on
 * memory and on embedded PGlite.
 */
import { fingerprintOf, Store } from '@keyhold/activities';
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeStoreTargets, STORE_TARGETS } from './__fixtures__/store-targets.js';
import {
  rejection,
  startTurnkeyServer,
  type TurnkeyServer,
} from './__fixtures__/turnkey-server.js';

afterAll(closeStoreTargets);

/** Just under the 1 MiB body limit once the rest of the envelope is added. */
const MEGABYTE_OF_JUNK = 'x'.repeat(1_000_000);

const ETH_ACCOUNT = {
  curve: 'CURVE_SECP256K1',
  pathFormat: 'PATH_FORMAT_BIP32',
  path: "m/44'/60'/0'/0/0",
  addressFormat: 'ADDRESS_FORMAT_ETHEREUM',
} as const;

describe.each(STORE_TARGETS)('unknown fields on %s', (_, openStore) => {
  let t: TurnkeyServer;
  let stamper: ApiKeyStamper;

  beforeAll(async () => {
    t = await startTurnkeyServer(await openStore());
    stamper = new ApiKeyStamper({
      apiPublicKey: t.key.publicKey,
      apiPrivateKey: t.key.privateKey,
    });
  });
  afterAll(() => t.server.close());

  /** sdk-server's envelope (its key order), with `extra` members beside its four. */
  const envelope = (
    type: string,
    parameters: Record<string, unknown>,
    extra: Record<string, unknown> = {},
  ) =>
    JSON.stringify({
      parameters,
      organizationId: t.organizationId,
      timestampMs: String(Date.now()),
      type,
      ...extra,
    });

  async function post(path: string, body: string) {
    const { stampHeaderName, stampHeaderValue } = await stamper.stamp(body);
    const res = await fetch(`${t.server.url}${path}`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', [stampHeaderName]: stampHeaderValue },
    });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  }

  async function activityCount(): Promise<number> {
    const { activities } = await t.client.getActivities({});
    return activities.length;
  }

  async function storedWithFingerprint(body: string) {
    const store = t.server.keyhold.container.get<Store>(Store);
    return store.transaction((tx) =>
      tx.activities.findByFingerprint(fingerprintOf(new TextEncoder().encode(body))),
    );
  }

  /** Posts `body`, expects the unknown-field refusal naming `field`, and that nothing is kept. */
  async function expectRefused(path: string, body: string, field: string) {
    const before = await activityCount();
    const { status, json } = await post(path, body);
    expect(status).toBe(400);
    expect(json.code).toBe(3);
    expect(json.message).toBe(`unknown field: ${field}`);
    expect(json.details).toEqual([expect.objectContaining({ errorCode: 'UNKNOWN_FIELD', field })]);
    expect(await storedWithFingerprint(body)).toBeUndefined();
    expect(await activityCount()).toBe(before);
  }

  it('refuses a 1 MB unknown field in the parameters of CREATE_WALLET, storing nothing', async () => {
    const body = envelope('ACTIVITY_TYPE_CREATE_WALLET', {
      walletName: 'junk-in-parameters',
      accounts: [ETH_ACCOUNT],
      junk: MEGABYTE_OF_JUNK,
    });
    expect(body.length).toBeGreaterThan(1_000_000);
    await expectRefused('/public/v1/submit/create_wallet', body, '/parameters/junk');
    const { wallets } = await t.client.getWallets({});
    expect(wallets.map((w) => w.walletName)).not.toContain('junk-in-parameters');
  });

  it('refuses a 1 MB unknown member of the envelope beside the parameters', async () => {
    const body = envelope(
      'ACTIVITY_TYPE_CREATE_WALLET',
      { walletName: 'junk-in-envelope', accounts: [ETH_ACCOUNT] },
      { junk: MEGABYTE_OF_JUNK },
    );
    await expectRefused('/public/v1/submit/create_wallet', body, '/junk');
  });

  it('refuses an unknown member nested in the parameters (a wallet account)', async () => {
    const body = envelope('ACTIVITY_TYPE_CREATE_WALLET', {
      walletName: 'junk-in-account',
      accounts: [{ ...ETH_ACCOUNT, memo: MEGABYTE_OF_JUNK }],
    });
    await expectRefused('/public/v1/submit/create_wallet', body, '/parameters/accounts/0/memo');
  });

  it('refuses an unknown member of a sub-organization wallet with its own message, not the wallet one', async () => {
    const body = envelope('ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8', {
      subOrganizationName: 'junk-sub',
      rootUsers: [{ userName: 'u', apiKeys: [], authenticators: [], oauthProviders: [] }],
      rootQuorumThreshold: 1,
      wallet: { walletName: 'w', accounts: [ETH_ACCOUNT], junk: 1 },
    });
    await expectRefused(
      '/public/v1/submit/create_sub_organization',
      body,
      '/parameters/wallet/junk',
    );
  });

  it('quotes back at most 64 characters of an unknown name (the name may be the megabyte)', async () => {
    const body = envelope('ACTIVITY_TYPE_CREATE_WALLET', {
      walletName: 'junk-name',
      accounts: [],
      [MEGABYTE_OF_JUNK]: 1,
    });
    await expectRefused('/public/v1/submit/create_wallet', body, `/parameters/${'x'.repeat(64)}…`);
  });

  it('refuses an unknown field in a vote before looking for its activity (nothing recorded)', async () => {
    const body = envelope('ACTIVITY_TYPE_APPROVE_ACTIVITY', {
      fingerprint: `sha256:${'00'.repeat(32)}`,
      junk: MEGABYTE_OF_JUNK,
    });
    await expectRefused('/public/v1/submit/approve_activity', body, '/parameters/junk');
  });

  it('refuses what JSON.parse would discard but the vote message would keep', async () => {
    const clean = envelope('ACTIVITY_TYPE_CREATE_WALLET', { walletName: 'hidden', accounts: [] });
    // A 1 MB value shadowed by a later duplicate of its key: no schema ever sees it.
    const shadowed = clean.replace(
      '"walletName":"hidden"',
      `"walletName":"${MEGABYTE_OF_JUNK}","walletName":"hidden"`,
    );
    const dup = await post('/public/v1/submit/create_wallet', shadowed);
    expect(dup.status).toBe(400);
    expect(dup.json.message).toBe('duplicate field: /parameters/walletName');
    expect(await storedWithFingerprint(shadowed)).toBeUndefined();
    // A megabyte of padding between tokens.
    const padded = clean.replace('"parameters":', `"parameters":${' '.repeat(1_000_000)}`);
    const pad = await post('/public/v1/submit/create_wallet', padded);
    expect(pad.status).toBe(400);
    expect(pad.json.message).toBe('bad request body');
    expect(await storedWithFingerprint(padded)).toBeUndefined();
  });

  it('shows the published client the path it sent', async () => {
    const error = await rejection(
      t.client.createWallet({
        walletName: 'sdk-junk',
        accounts: [ETH_ACCOUNT],
        junk: 'x',
      } as Parameters<typeof t.client.createWallet>[0]),
    );
    expect(error.message).toContain('unknown field: /parameters/junk');
  });

  it('stores and echoes exactly the intent of a body without unknown fields', async () => {
    const parameters = { walletName: 'clean', accounts: [ETH_ACCOUNT] };
    const body = envelope('ACTIVITY_TYPE_CREATE_WALLET', parameters);
    const { status, json } = await post('/public/v1/submit/create_wallet', body);
    expect(status).toBe(200);
    const { activity } = json as { activity: { id: string; intent: Record<string, unknown> } };
    expect(activity.intent).toEqual({ createWalletIntent: parameters });

    const got = await t.client.getActivity({ activityId: activity.id });
    expect(got.activity.intent).toEqual({ createWalletIntent: parameters });
    const listed = (await t.client.getActivities({})).activities.find((a) => a.id === activity.id);
    expect(listed?.intent).toEqual({ createWalletIntent: parameters });

    const record = await storedWithFingerprint(body);
    expect(record?.parameters).toEqual(parameters);
    // The vote keeps the signed body (re-verifiable), which now holds only schema fields.
    expect(record?.votes.map((v) => v.message)).toEqual([body]);
  });
});

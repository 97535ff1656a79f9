/**
 * Issue 15's records through the published `@turnkey/sdk-server` client, against a listening
 * server: organization features and `get_organization_configs`; the auth proxy's stored
 * configuration; TVC apps, deployments and manifest approvals (operators' P-256 signatures
 * checked; records under consensus like any activity); the legacy and billing activities —
 * organizations and selector policies refused with their specific messages, payment methods
 * kept as their last four digits and holder, the billing tier recorded. Every refusal stores
 * nothing (the activity count is unchanged). And CORS on both HTTP adapters: a browser page
 * at an allowed origin may call Keyhold directly.
 */
import { authProxySettingOf, type Store, Store as StoreId } from '@keyhold/activities';
import type { RunningServer } from '@keyhold/cli';
import { p256 } from '@noble/curves/nist.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SdkClient, sdkClient, startTurnkeyServer } from './__fixtures__/turnkey-server.js';
import { generateApiKeyPair } from './api-key-signer.js';
import { type KeyholdClient, KeyholdRequestError } from './keyhold-client.js';

let server: RunningServer;
let sdk: SdkClient;
let embedded: KeyholdClient;
let organizationId: string;

beforeAll(async () => {
  ({ server, client: sdk, embedded, organizationId } = await startTurnkeyServer());
});
afterAll(() => server.close());

const activityCount = async () =>
  (await embedded.query<{ activities: unknown[] }>('list_activities')).activities.length;

/** The Status body of a refused embedded request, and that it stored no activity. */
async function refusedStoringNothing(call: () => Promise<unknown>) {
  const before = await activityCount();
  const error = await call().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(KeyholdRequestError);
  expect(await activityCount()).toBe(before);
  return (error as KeyholdRequestError).status;
}

describe('organization features and get_organization_configs', () => {
  it('sets, replaces and removes features; the configs show them with the root quorum', async () => {
    const set = await sdk.setOrganizationFeature({
      name: 'FEATURE_NAME_WEBHOOK',
      value: 'https://hooks.example.com/a',
    });
    expect(set.features).toEqual([
      { name: 'FEATURE_NAME_WEBHOOK', value: 'https://hooks.example.com/a' },
    ]);
    await sdk.setOrganizationFeature({ name: 'FEATURE_NAME_EMAIL_AUTH', value: '' });
    const replaced = await sdk.setOrganizationFeature({
      name: 'FEATURE_NAME_WEBHOOK',
      value: 'https://hooks.example.com/b',
    });
    expect(replaced.features).toEqual([
      { name: 'FEATURE_NAME_WEBHOOK', value: 'https://hooks.example.com/b' },
      { name: 'FEATURE_NAME_EMAIL_AUTH', value: '' },
    ]);
    const removed = await sdk.removeOrganizationFeature({ name: 'FEATURE_NAME_WEBHOOK' });
    expect(removed.features).toEqual([{ name: 'FEATURE_NAME_EMAIL_AUTH', value: '' }]);
    const { configs } = await sdk.getOrganizationConfigs({ organizationId });
    const { userId } = await embedded.whoami();
    expect(configs).toEqual({
      features: [{ name: 'FEATURE_NAME_EMAIL_AUTH', value: '' }],
      quorum: { threshold: 1, userIds: [userId] },
    });
  });

  it('refuses an unknown feature name, storing nothing', async () => {
    const status = await refusedStoringNothing(() =>
      embedded.submit('ACTIVITY_TYPE_SET_ORGANIZATION_FEATURE', { name: 'FEATURE_NAME_TELEPORT' }),
    );
    expect(status.message).toBe('invalid feature name');
  });
});

describe('the auth proxy, as stored configuration', () => {
  it('enables, configures (a stable configId) and disables; the feature follows', async () => {
    const enabled = await embedded.run<{ userId: string; encryptedApiKey: string }>(
      'ACTIVITY_TYPE_ENABLE_AUTH_PROXY',
      {},
    );
    // The proxy's user, and its API key sealed for this server (never the key in the clear).
    expect(enabled.userId).toMatch(/^[0-9a-f-]{36}$/);
    expect(enabled.encryptedApiKey).not.toBe('');
    const config = {
      allowedOrigins: ['https://app.example.com'],
      allowedAuthMethods: ['AUTH_METHOD_EMAIL_OTP'],
      sendFromEmailAddress: 'login@example.com',
      walletKitSettings: { enabledSocialProviders: ['google'], oauthClientIds: { google: 'cid' } },
      otpLength: 6,
      sessionExpirationSeconds: 900,
    };
    const first = await embedded.run<{ configId: string }>(
      'ACTIVITY_TYPE_UPDATE_AUTH_PROXY_CONFIG',
      config,
    );
    const second = await embedded.run<{ configId: string }>(
      'ACTIVITY_TYPE_UPDATE_AUTH_PROXY_CONFIG',
      {
        ...config,
        otpLength: 8,
      },
    );
    expect(second.configId).toBe(first.configId);
    // What the auth proxy will read: enabled, the last configuration as given, its id.
    const setting = await server.keyhold.container
      .get<Store>(StoreId)
      .transaction((tx) => authProxySettingOf(tx, organizationId));
    expect(setting).toEqual({
      enabled: true,
      configId: first.configId,
      proxyUserId: enabled.userId,
      sealedApiKey: enabled.encryptedApiKey,
      config: { ...config, otpLength: 8 },
    });
    expect(
      (await sdk.getOrganizationConfigs({ organizationId })).configs.features?.map((f) => f.name),
    ).toContain('FEATURE_NAME_AUTH_PROXY');
    await embedded.run('ACTIVITY_TYPE_DISABLE_AUTH_PROXY', {});
    expect(
      (await sdk.getOrganizationConfigs({ organizationId })).configs.features?.map((f) => f.name),
    ).not.toContain('FEATURE_NAME_AUTH_PROXY');
  });

  it('refuses an origin that is not one and an OTP length out of range, storing nothing', async () => {
    const origin = await refusedStoringNothing(() =>
      embedded.submit('ACTIVITY_TYPE_UPDATE_AUTH_PROXY_CONFIG', {
        allowedOrigins: ['not an origin'],
      }),
    );
    expect(origin.details[0]).toMatchObject({ errorCode: 'INVALID_ALLOWED_ORIGIN' });
    const length = await refusedStoringNothing(() =>
      embedded.submit('ACTIVITY_TYPE_UPDATE_AUTH_PROXY_CONFIG', { otpLength: 3 }),
    );
    expect(length.message).toBe('invalid auth proxy configuration');
  });
});

/** An operator: a P-256 key pair, its public key compressed hex. */
function operatorKey() {
  const privateKey = p256.utils.randomSecretKey();
  return { privateKey, publicKey: bytesToHex(p256.getPublicKey(privateKey, true)) };
}
const approve = (manifest: string, privateKey: Uint8Array) =>
  bytesToHex(p256.sign(sha256(utf8ToBytes(manifest)), privateKey, { prehash: false }));

describe('TVC apps, deployments and manifest approvals', () => {
  it('creates an app with new operators, deploys it, and takes its operators’ approvals', async () => {
    const [alice, bob, carol] = [operatorKey(), operatorKey(), operatorKey()];
    const app = await sdk.createTvcApp({
      name: 'price-oracle',
      quorumPublicKey: bytesToHex(p256.getPublicKey(p256.utils.randomSecretKey(), false)),
      manifestSetParams: {
        name: 'manifest operators',
        threshold: 2,
        newOperators: [
          { name: 'alice', publicKey: alice.publicKey },
          { name: 'bob', publicKey: bob.publicKey },
        ],
      },
      shareSetParams: {
        name: 'share operators',
        threshold: 1,
        newOperators: [{ name: 'carol', publicKey: carol.publicKey }],
      },
      enableEgress: true,
    });
    expect(app.manifestSetThreshold).toBe(2);
    expect(app.manifestSetOperatorIds).toHaveLength(2);
    const [aliceId, bobId] = app.manifestSetOperatorIds as [string, string];

    const deployment = await sdk.createTvcDeployment({
      appId: app.appId,
      qosVersion: '0.4.0',
      pivotContainerImageUrl: 'ghcr.io/example/oracle:1.2.3',
      pivotPath: '/oracle',
      pivotArgs: ['--port', '3000'],
      expectedPivotDigest: `sha256:${'ab'.repeat(32)}`,
      healthCheckType: 'TVC_HEALTH_CHECK_TYPE_HTTP',
      healthCheckPort: 3000,
      publicIngressPort: 443,
    });
    const { tvcDeployment } = await sdk.getTvcDeployment({
      organizationId,
      deploymentId: deployment.deploymentId,
    });
    expect(tvcDeployment.manifest.id).toBe(deployment.manifestId);
    const manifest = tvcDeployment.manifest.manifest;
    expect(JSON.parse(manifest)).toMatchObject({ appId: app.appId, qosVersion: '0.4.0' });

    // Carol is not in the manifest set; Bob's signature over another text does not verify.
    const outsider = await refusedStoringNothing(() =>
      embedded.submit('ACTIVITY_TYPE_CREATE_TVC_MANIFEST_APPROVALS', {
        manifestId: deployment.manifestId,
        approvals: [{ operatorId: app.appId, signature: approve(manifest, carol.privateKey) }],
      }),
    );
    expect(outsider.details[0]).toMatchObject({ errorCode: 'INVALID_TVC_MANIFEST_APPROVAL' });
    const forged = await refusedStoringNothing(() =>
      embedded.submit('ACTIVITY_TYPE_CREATE_TVC_MANIFEST_APPROVALS', {
        manifestId: deployment.manifestId,
        approvals: [
          { operatorId: aliceId, signature: approve(manifest, alice.privateKey) },
          { operatorId: bobId, signature: approve(`${manifest} `, bob.privateKey) },
        ],
      }),
    );
    expect(forged.message).toMatch(/^invalid manifest approval/);
    expect(forged.details[0]).toMatchObject({ approvalIndex: 1 });

    const approvals = await sdk.createTvcManifestApprovals({
      manifestId: deployment.manifestId,
      approvals: [
        { operatorId: aliceId, signature: approve(manifest, alice.privateKey) },
        { operatorId: bobId, signature: approve(manifest, bob.privateKey) },
      ],
    });
    expect(approvals.approvalIds).toHaveLength(2);
    const twice = await refusedStoringNothing(() =>
      embedded.submit('ACTIVITY_TYPE_CREATE_TVC_MANIFEST_APPROVALS', {
        manifestId: deployment.manifestId,
        approvals: [{ operatorId: aliceId, signature: approve(manifest, alice.privateKey) }],
      }),
    );
    expect(twice.details[0]).toMatchObject({
      reason: 'the operator has approved this manifest already',
    });

    const { tvcApp } = await sdk.getTvcApp({ organizationId, tvcAppId: app.appId });
    expect(tvcApp).toMatchObject({
      id: app.appId,
      name: 'price-oracle',
      enableEgress: true,
      manifestSet: { threshold: 2, name: 'manifest operators' },
      shareSet: { threshold: 1, operators: [{ name: 'carol', publicKey: carol.publicKey }] },
    });
    expect((await sdk.getTvcApps({ organizationId })).tvcApps.map((a) => a.id)).toContain(
      app.appId,
    );
    const { tvcDeployments } = await sdk.getTvcAppDeployments({ organizationId, appId: app.appId });
    expect(tvcDeployments).toHaveLength(1);
    expect(tvcDeployments[0]!.manifestApprovals.map((a) => a.operator.name).sort()).toEqual([
      'alice',
      'bob',
    ]);
    expect(tvcDeployments[0]!.pivotContainer).toMatchObject({
      containerUrl: 'ghcr.io/example/oracle:1.2.3',
      args: ['--port', '3000'],
    });
  });

  it('reuses an existing operator set by id; refuses a threshold above its operators and an unknown app', async () => {
    const first = await sdk.createTvcApp({
      name: 'first',
      quorumPublicKey: '04aa',
      manifestSetParams: {
        name: 'ops',
        threshold: 1,
        newOperators: [{ name: 'o', publicKey: operatorKey().publicKey }],
      },
    });
    const second = await sdk.createTvcApp({
      name: 'second',
      quorumPublicKey: '04bb',
      manifestSetId: first.manifestSetId,
    });
    expect(second.manifestSetId).toBe(first.manifestSetId);
    expect(second.manifestSetOperatorIds).toEqual(first.manifestSetOperatorIds);
    const threshold = await refusedStoringNothing(() =>
      embedded.submit('ACTIVITY_TYPE_CREATE_TVC_APP', {
        name: 'x',
        quorumPublicKey: '04cc',
        manifestSetParams: {
          name: 'ops',
          threshold: 2,
          newOperators: [{ name: 'o', publicKey: operatorKey().publicKey }],
        },
      }),
    );
    expect(threshold.message).toMatch(/^invalid operator set/);
    const unknown = await refusedStoringNothing(() =>
      embedded.submit('ACTIVITY_TYPE_CREATE_TVC_DEPLOYMENT', {
        appId: '00000000-0000-4000-8000-000000000000',
        qosVersion: '1',
        pivotContainerImageUrl: 'x',
        pivotPath: '/x',
        expectedPivotDigest: 'd',
      }),
    );
    expect(unknown.message).toBe('TVC app not found');
  });

  it('is decided like any activity: with a root quorum of two, an app waits for the second approval', async () => {
    const t = await startTurnkeyServer();
    try {
      const bobKey = generateApiKeyPair();
      const { userIds } = await t.embedded.run<{ userIds: string[] }>(
        'ACTIVITY_TYPE_CREATE_API_ONLY_USERS',
        {
          apiOnlyUsers: [
            {
              userName: 'bob',
              userTags: [],
              apiKeys: [{ apiKeyName: 'bob', publicKey: bobKey.publicKey }],
            },
          ],
        },
      );
      await t.embedded.run('ACTIVITY_TYPE_UPDATE_ROOT_QUORUM', {
        threshold: 2,
        userIds: [t.userId, userIds[0]],
      });
      const waiting = await t.embedded.submit('ACTIVITY_TYPE_CREATE_TVC_APP', {
        name: 'quorum-app',
        quorumPublicKey: '04dd',
        manifestSetParams: {
          name: 'ops',
          threshold: 1,
          newOperators: [{ name: 'o', publicKey: operatorKey().publicKey }],
        },
      });
      expect(waiting.status).toBe('ACTIVITY_STATUS_CONSENSUS_NEEDED');
      expect((await t.client.getTvcApps({ organizationId: t.organizationId })).tvcApps).toEqual([]);
      const bob = sdkClient(t.server.url, t.organizationId, bobKey);
      const approved = await bob.approveActivity({ fingerprint: waiting.fingerprint });
      expect(approved.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
      expect(
        (await t.client.getTvcApps({ organizationId: t.organizationId })).tvcApps.map(
          (a) => a.name,
        ),
      ).toEqual(['quorum-app']);
    } finally {
      await t.server.close();
    }
  });
});

describe('legacy and billing activities on a self-hosted instance', () => {
  it('refuses CREATE_ORGANIZATION (V1, V2) and DELETE_ORGANIZATION with what to do instead', async () => {
    for (const type of [
      'ACTIVITY_TYPE_CREATE_ORGANIZATION',
      'ACTIVITY_TYPE_CREATE_ORGANIZATION_V2',
    ] as const) {
      const status = await refusedStoringNothing(() =>
        embedded.submit(type, { organizationName: 'Acme', rootEmail: 'root@example.com' }),
      );
      expect(status.message).toMatch(
        /^CREATE_ORGANIZATION is not available in Keyhold: .*CREATE_SUB_ORGANIZATION$/,
      );
      expect(status.details[0]).toMatchObject({
        errorCode: 'ORGANIZATION_CREATION_NOT_AVAILABLE',
        type,
      });
    }
    const deletion = await refusedStoringNothing(() =>
      embedded.submit('ACTIVITY_TYPE_DELETE_ORGANIZATION', { organizationId }),
    );
    expect(deletion.message).toMatch(
      /^DELETE_ORGANIZATION is not available in Keyhold: .*DELETE_SUB_ORGANIZATION$/,
    );
  });

  it('refuses selector policies (CREATE_POLICY V1, V2), naming V3; V3 still creates', async () => {
    for (const [type, selectors] of [
      [
        'ACTIVITY_TYPE_CREATE_POLICY',
        [{ subject: 'activity.type', operator: 'OPERATOR_EQUAL', target: 'x' }],
      ],
      [
        'ACTIVITY_TYPE_CREATE_POLICY_V2',
        [{ subject: 'activity.type', operator: 'OPERATOR_IN', targets: ['x'] }],
      ],
    ] as const) {
      const status = await refusedStoringNothing(() =>
        embedded.submit(type, {
          policyName: `selector ${type}`,
          selectors,
          effect: 'EFFECT_ALLOW',
        }),
      );
      expect(status.message).toMatch(/^selector policies .* send CREATE_POLICY_V3/);
    }
    const { policyId } = await sdk.createPolicy({
      policyName: 'v3 still',
      effect: 'EFFECT_ALLOW',
      condition: 'true',
      notes: '',
    });
    expect(policyId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('keeps a card as its last four digits and holder; V2 names a payment method; deletes it', async () => {
    const set = await embedded.run<{ lastFour: string; paymentMethodId: string }>(
      'ACTIVITY_TYPE_SET_PAYMENT_METHOD',
      {
        number: '4242424242424242',
        cvv: '123',
        expiryMonth: '7',
        expiryYear: '2030',
        cardHolderName: 'Ada Lovelace',
        cardHolderEmail: 'ada@example.com',
      },
    );
    expect(set).toMatchObject({
      lastFour: '4242',
      cardHolderName: 'Ada Lovelace',
      cardHolderEmail: 'ada@example.com',
    });
    // The activity shows the stored form: no card number, no CVV.
    expect(JSON.stringify(set.activity)).not.toContain('4242424242424242');
    expect(set.activity.intent).toEqual({
      setPaymentMethodIntent: {
        number: '4242',
        cvv: '',
        expiryMonth: '',
        expiryYear: '',
        cardHolderName: 'Ada Lovelace',
        cardHolderEmail: 'ada@example.com',
      },
    });
    const luhn = await refusedStoringNothing(() =>
      embedded.submit('ACTIVITY_TYPE_SET_PAYMENT_METHOD', {
        number: '4242424242424241',
        cvv: '123',
        expiryMonth: '7',
        expiryYear: '2030',
        cardHolderName: 'Ada',
      }),
    );
    expect(luhn.message).toMatch(/^invalid payment card/);
    const v2 = await embedded.run<{ paymentMethodId: string; lastFour: string }>(
      'ACTIVITY_TYPE_SET_PAYMENT_METHOD_V2',
      {
        paymentMethodId: set.paymentMethodId,
        cardHolderName: 'Ada King',
      },
    );
    expect(v2).toMatchObject({
      paymentMethodId: set.paymentMethodId,
      lastFour: '4242',
      cardHolderName: 'Ada King',
    });
    await embedded.run('ACTIVITY_TYPE_DELETE_PAYMENT_METHOD', {
      paymentMethodId: set.paymentMethodId,
    });
    const gone = await refusedStoringNothing(() =>
      embedded.submit('ACTIVITY_TYPE_DELETE_PAYMENT_METHOD', {
        paymentMethodId: set.paymentMethodId,
      }),
    );
    expect(gone.message).toBe('payment method not found');
  });

  it('records the billing tier (nothing is charged)', async () => {
    const tier = await embedded.run<{ productId: string }>('ACTIVITY_TYPE_ACTIVATE_BILLING_TIER', {
      productId: 'prod_pro',
    });
    expect(tier.productId).toBe('prod_pro');
  });
});

describe('CORS: a browser page at an allowed origin calls Keyhold directly', () => {
  for (const http of ['express', 'koa'] as const) {
    it(`${http}: the preflight allows the stamp header, and the stamped answer the origin`, async () => {
      const t = await startTurnkeyServer({ http });
      try {
        const origin = 'https://wallet.example.com';
        await t.embedded.run('ACTIVITY_TYPE_UPDATE_ALLOWED_ORIGINS', { allowedOrigins: [origin] });
        const url = `${t.server.url}/public/v1/query/get_organization_configs`;
        const preflight = await fetch(url, {
          method: 'OPTIONS',
          headers: {
            origin,
            'access-control-request-method': 'POST',
            'access-control-request-headers': 'content-type,x-stamp',
          },
        });
        expect(preflight.status).toBe(204);
        const allowOrigin = preflight.headers.get('access-control-allow-origin');
        expect(allowOrigin === '*' || allowOrigin === origin).toBe(true);
        expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
        expect(preflight.headers.get('access-control-allow-headers')).toContain('x-stamp');
        const body = JSON.stringify({ organizationId: t.organizationId });
        const stamp = await new ApiKeyStamper({
          apiPublicKey: t.key.publicKey,
          apiPrivateKey: t.key.privateKey,
        }).stamp(body);
        const answer = await fetch(url, {
          method: 'POST',
          headers: {
            origin,
            'content-type': 'application/json',
            [stamp.stampHeaderName]: stamp.stampHeaderValue,
          },
          body,
        });
        expect(answer.status).toBe(200);
        const allowed = answer.headers.get('access-control-allow-origin');
        expect(allowed === '*' || allowed === origin).toBe(true);
        // A refusal is readable by the page too.
        const refused = await fetch(url, {
          method: 'POST',
          headers: { origin, 'content-type': 'application/json' },
          body,
        });
        expect(refused.status).toBe(401);
        expect(refused.headers.get('access-control-allow-origin')).not.toBeNull();
      } finally {
        await t.server.close();
      }
    });
  }
});

/**
 * Sessions through the published clients: STAMP_LOGIN by a sub-organization's user naming the
 * parent (as `@turnkey/core` sends it) answers a session JWT that `@turnkey/crypto` verifies
 * with the `notarizerPublicKey` and that names the sub-organization; CREATE_READ_WRITE_SESSION
 * (V1, V2) hands over a session key in a credential bundle `decryptCredentialBundle` opens; the
 * session keys stamp requests until they expire (the server's clock is moved) and not after;
 * the per-user limit evicts the oldest, `invalidateExisting` clears the user's sessions;
 * CREATE_READ_ONLY_SESSION's JWT reads through `X-Session` for an hour and never writes. Run on
 * memory and on embedded PGlite.
 */
import type { Clock } from '@keyhold/activities';
import { bytesToHex } from '@noble/hashes/utils.js';
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import {
  decryptCredentialBundle,
  generateP256KeyPair,
  getPublicKey,
  verifySessionJwtSignature,
} from '@turnkey/crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeStoreTargets, STORE_TARGETS } from './__fixtures__/store-targets.js';
import {
  httpClient,
  rejection,
  type SdkClient,
  sdkClient,
  startTurnkeyServer,
  type TurnkeyServer,
} from './__fixtures__/turnkey-server.js';
import { type ApiKeyPair, generateApiKeyPair } from './api-key-signer.js';

afterAll(closeStoreTargets);

const ETH_ACCOUNT = {
  curve: 'CURVE_SECP256K1',
  pathFormat: 'PATH_FORMAT_BIP32',
  path: "m/44'/60'/0'/0/0",
  addressFormat: 'ADDRESS_FORMAT_ETHEREUM',
} as const;

/** A clock the test moves forward; requests are still stamped with real timestamps. */
function movableClock(): Clock & { advance(seconds: number): void } {
  let offset = 0;
  return {
    now: () => Date.now() + offset,
    advance(seconds) {
      offset += seconds * 1000;
    },
  };
}

/** The claims of a session JWT, decoded as `@turnkey/core` does (a bare atob). */
const claimsOf = (jwt: string) => JSON.parse(atob(jwt.split('.')[1]!)) as Record<string, unknown>;

/** The key pair a client holds once it decrypted a credential bundle. */
function sessionKeyFrom(credentialBundle: string, target: { privateKey: string }): ApiKeyPair {
  const privateKey = decryptCredentialBundle(credentialBundle, target.privateKey);
  return { privateKey, publicKey: bytesToHex(getPublicKey(privateKey, true)) };
}

/** POST a body with the given headers (no stamp unless given), answering status and JSON. */
async function postRaw(url: string, path: string, body: unknown, headers: Record<string, string>) {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe.each(STORE_TARGETS)('sessions on %s', (_, openStore) => {
  let kh: TurnkeyServer;
  const clock = movableClock();
  const endUserKey = generateApiKeyPair();
  let subOrgId: string;
  let endUserId: string;
  /** The end user at the parent, as `@turnkey/core` addresses them. */
  let atParent: SdkClient;

  beforeAll(async () => {
    kh = await startTurnkeyServer({ ...(await openStore()), clock });
    const created = await kh.client.createSubOrganization({
      subOrganizationName: 'end user',
      rootUsers: [
        {
          userName: 'alice',
          userEmail: 'alice@example.com',
          apiKeys: [
            {
              apiKeyName: 'device',
              publicKey: endUserKey.publicKey,
              curveType: 'API_KEY_CURVE_P256',
            },
          ],
          authenticators: [],
          oauthProviders: [],
        },
      ],
      rootQuorumThreshold: 1,
    });
    subOrgId = created.subOrganizationId;
    endUserId = created.rootUserIds![0]!;
    atParent = sdkClient(kh.server.url, kh.organizationId, endUserKey);
  });
  afterAll(() => kh?.server.close());

  it('the listening server publishes its keys at /keyhold/v1/public_keys', async () => {
    const response = await fetch(`${kh.server.url}/keyhold/v1/public_keys`);
    expect(response.status).toBe(200);
    const document = (await response.json()) as Record<string, unknown>;
    const jwks = (await (
      await fetch(`${kh.server.url}/public/v1/discovery/webhooks/jwks`)
    ).json()) as { keys: unknown[] };
    expect(document).toEqual({
      signerPublicKey: kh.server.keyhold.signerPublicKey,
      notarizerPublicKey: kh.server.keyhold.notarizerPublicKey,
      tlsFetcherSignPublicKey: kh.server.keyhold.tlsFetcherSignPublicKey,
      tlsFetcherEncryptPublicKey: kh.server.keyhold.tlsFetcherEncryptPublicKey,
      onRampEncryptionPublicKey: kh.server.keyhold.onRampEncryptionPublicKey,
      webhookKeys: jwks.keys,
    });
    expect(document.notarizerPublicKey).toMatch(/^04[0-9a-f]{128}$/);
    expect(document.notarizerPublicKey).not.toBe(document.signerPublicKey);
  });

  it('STAMP_LOGIN naming the parent logs the sub-organization user in; the JWT verifies', async () => {
    const client = generateP256KeyPair();
    const before = clock.now();
    const { session, activity } = await atParent.stampLogin({ publicKey: client.publicKey });
    expect(activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    // The activity runs (and is kept) in the sub-organization.
    expect(activity.organizationId).toBe(subOrgId);
    expect(await verifySessionJwtSignature(session, kh.server.keyhold.notarizerPublicKey)).toBe(
      true,
    );
    expect(await verifySessionJwtSignature(session)).toBe(false); // not Turnkey's production key
    const claims = claimsOf(session);
    expect(claims).toEqual({
      exp: expect.any(Number),
      public_key: client.publicKey,
      session_type: 'SESSION_TYPE_READ_WRITE',
      user_id: endUserId,
      organization_id: subOrgId,
    });
    const exp = claims.exp as number;
    expect(exp).toBeGreaterThanOrEqual(Math.floor(before / 1000) + 899);
    expect(exp).toBeLessThanOrEqual(Math.ceil(clock.now() / 1000) + 900);

    const { apiKeys } = await sdkClient(kh.server.url, subOrgId, endUserKey).getApiKeys({
      userId: endUserId,
    });
    const sessionKey = apiKeys.find((k) => k.credential.publicKey === client.publicKey);
    expect(sessionKey?.credential.type).toBe('CREDENTIAL_TYPE_LOGIN');
    expect(sessionKey?.expirationSeconds).toBe('900');
  });

  it('the dry run of a STAMP_LOGIN naming the parent decides it in the sub-organization', async () => {
    const activity = {
      type: 'ACTIVITY_TYPE_STAMP_LOGIN',
      timestampMs: String(Date.now()),
      organizationId: kh.organizationId,
      parameters: { publicKey: generateP256KeyPair().publicKey },
    };
    const body = { organizationId: kh.organizationId, activity };
    const stamper = new ApiKeyStamper({
      apiPublicKey: endUserKey.publicKey,
      apiPrivateKey: endUserKey.privateKey,
    });
    const { stampHeaderName, stampHeaderValue } = await stamper.stamp(JSON.stringify(body));
    const explained = await postRaw(kh.server.url, '/keyhold/v1/explain_policies', body, {
      [stampHeaderName]: stampHeaderValue,
    });
    expect(explained).toMatchObject({
      status: 200,
      body: { organizationId: subOrgId, userId: endUserId, decision: 'ALLOW' },
    });
  });

  it('the login session key stamps requests until it expires, and not after', async () => {
    const client = generateP256KeyPair();
    const { session } = await atParent.stampLogin({
      publicKey: client.publicKey,
      expirationSeconds: '120',
    });
    const sessionKey = { publicKey: client.publicKey, privateKey: client.privateKey };
    // The organization comes from the JWT, as `@turnkey/sdk-browser` takes it.
    const sessionClient = sdkClient(
      kh.server.url,
      claimsOf(session).organization_id as string,
      sessionKey,
    );
    expect(await sessionClient.getWhoami()).toMatchObject({
      organizationId: subOrgId,
      userId: endUserId,
      username: 'alice',
    });
    const wallet = await sessionClient.createWallet({ walletName: 'w', accounts: [ETH_ACCOUNT] });
    expect(wallet.addresses).toHaveLength(1);

    clock.advance(121);
    try {
      const expired = await rejection(sessionClient.getWhoami());
      expect(expired.message).toContain('expired api key');
      const write = await rejection(
        sessionClient.createWallet({ walletName: 'late', accounts: [ETH_ACCOUNT] }),
      );
      expect(write.message).toContain('expired api key');
      // The raw answer: 401 and a Status body with the catalogue's message.
      const stamped = await httpClient(kh.server.url, sessionKey).stampGetWhoami({
        organizationId: subOrgId,
      });
      const raw = await postRaw(
        kh.server.url,
        '/public/v1/query/whoami',
        JSON.parse(stamped.body),
        {
          [stamped.stamp.stampHeaderName]: stamped.stamp.stampHeaderValue,
        },
      );
      expect(raw.status).toBe(401);
      expect(raw.body).toMatchObject({ code: 16, message: 'expired api key' });
      const wallets = await sdkClient(kh.server.url, subOrgId, endUserKey).getWallets();
      expect(wallets.wallets.map((w) => w.walletName)).not.toContain('late');
    } finally {
      clock.advance(-121);
    }
  });

  it('CREATE_READ_WRITE_SESSION V2: the credential bundle opens to a key that stamps until expiry', async () => {
    const target = generateP256KeyPair();
    const sub = sdkClient(kh.server.url, subOrgId, endUserKey);
    const result = await sub.createReadWriteSession({
      targetPublicKey: target.publicKeyUncompressed,
      expirationSeconds: '60',
    });
    expect(result).toMatchObject({
      organizationId: subOrgId,
      organizationName: 'end user',
      userId: endUserId,
      username: 'alice',
    });
    const sessionKey = sessionKeyFrom(result.credentialBundle, target);
    const { apiKey } = await sub.getApiKey({ apiKeyId: result.apiKeyId });
    expect(apiKey.credential).toEqual({
      publicKey: sessionKey.publicKey,
      type: 'CREDENTIAL_TYPE_READ_WRITE_SESSION_KEY_P256',
    });
    const session = sdkClient(kh.server.url, subOrgId, sessionKey);
    expect((await session.getWhoami()).userId).toBe(endUserId);
    expect(
      (await session.createWallet({ walletName: 'rw', accounts: [ETH_ACCOUNT] })).walletId,
    ).toBeTruthy();
    clock.advance(61);
    try {
      expect((await rejection(session.getWhoami())).message).toContain('expired api key');
    } finally {
      clock.advance(-61);
    }
  });

  it('CREATE_READ_WRITE_SESSION V1 (the user by email), stamped by @turnkey/api-key-stamper', async () => {
    const target = generateP256KeyPair();
    // @turnkey/http types only V2 for this path: the V1 body is posted with its stamp.
    const body = {
      type: 'ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION',
      timestampMs: String(Date.now()),
      organizationId: subOrgId,
      parameters: { targetPublicKey: target.publicKey, email: 'Alice@example.com' },
    };
    const stamper = new ApiKeyStamper({
      apiPublicKey: endUserKey.publicKey,
      apiPrivateKey: endUserKey.privateKey,
    });
    const { stampHeaderName, stampHeaderValue } = await stamper.stamp(JSON.stringify(body));
    const { status, body: answer } = await postRaw(
      kh.server.url,
      '/public/v1/submit/create_read_write_session',
      body,
      { [stampHeaderName]: stampHeaderValue },
    );
    expect(status).toBe(200);
    const activity = answer.activity as {
      status: string;
      result: { createReadWriteSessionResult: { userId: string; credentialBundle: string } };
    };
    expect(activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    const result = activity.result.createReadWriteSessionResult;
    expect(result.userId).toBe(endUserId);
    const sessionKey = sessionKeyFrom(result.credentialBundle, target);
    expect((await sdkClient(kh.server.url, subOrgId, sessionKey).getWhoami()).userId).toBe(
      endUserId,
    );
  });

  it('the eleventh expiring key evicts the oldest; invalidateExisting clears the sessions', async () => {
    const sub = sdkClient(kh.server.url, subOrgId, endUserKey);
    // A fresh user of its own, so earlier tests' keys do not count.
    const userKey = generateApiKeyPair();
    const { userIds } = await sub.createUsers({
      users: [
        {
          userName: 'bob',
          apiKeys: [
            { apiKeyName: 'long', publicKey: userKey.publicKey, curveType: 'API_KEY_CURVE_P256' },
          ],
          authenticators: [],
          oauthProviders: [],
          userTags: [],
        },
      ],
    });
    const bobId = userIds[0]!;
    await sub.createPolicy({
      policyName: 'bob logs in',
      effect: 'EFFECT_ALLOW',
      consensus: `approvers.any(user, user.id == '${bobId}')`,
      condition: "activity.resource == 'AUTH'",
      notes: '',
    });
    const bob = sdkClient(kh.server.url, subOrgId, userKey);
    const logins: string[] = [];
    for (let i = 0; i < 11; i++) {
      const key = generateP256KeyPair();
      await bob.stampLogin({ publicKey: key.publicKey });
      logins.push(key.publicKey);
      clock.advance(1); // distinct creation times
    }
    const keysOf = async () =>
      (await sub.getApiKeys({ userId: bobId })).apiKeys.map((k) => k.credential.publicKey);
    const held = await keysOf();
    expect(held).toHaveLength(11); // the long-lived key and ten sessions
    expect(held).toContain(userKey.publicKey);
    expect(held).not.toContain(logins[0]);
    expect(held).toEqual(expect.arrayContaining(logins.slice(1)));

    const last = generateP256KeyPair();
    await bob.stampLogin({ publicKey: last.publicKey, invalidateExisting: true });
    expect(new Set(await keysOf())).toEqual(new Set([userKey.publicKey, last.publicKey]));
    clock.advance(-11);
  });

  it('CREATE_READ_ONLY_SESSION: an hour of reads through X-Session, never a write', async () => {
    const sub = sdkClient(kh.server.url, subOrgId, endUserKey);
    const result = await sub.createReadOnlySession({});
    expect(result).toMatchObject({
      organizationId: subOrgId,
      organizationName: 'end user',
      userId: endUserId,
      username: 'alice',
    });
    expect(
      await verifySessionJwtSignature(result.session, kh.server.keyhold.notarizerPublicKey),
    ).toBe(true);
    const claims = claimsOf(result.session);
    expect(claims.session_type).toBe('SESSION_TYPE_READ_ONLY');
    expect(String(claims.exp)).toBe(result.sessionExpiry);
    expect(Number(result.sessionExpiry) - Math.floor(clock.now() / 1000)).toBeGreaterThan(3590);

    const session = { 'x-session': result.session };
    const whoami = await postRaw(
      kh.server.url,
      '/public/v1/query/whoami',
      { organizationId: subOrgId },
      session,
    );
    expect(whoami).toEqual({
      status: 200,
      body: {
        organizationId: subOrgId,
        organizationName: 'end user',
        userId: endUserId,
        username: 'alice',
      },
    });
    const wallets = await postRaw(
      kh.server.url,
      '/public/v1/query/list_wallets',
      { organizationId: subOrgId },
      session,
    );
    expect(wallets.status).toBe(200);
    const walletCount = (wallets.body.wallets as unknown[]).length;

    const write = await postRaw(
      kh.server.url,
      '/public/v1/submit/create_wallet',
      {
        type: 'ACTIVITY_TYPE_CREATE_WALLET',
        timestampMs: String(Date.now()),
        organizationId: subOrgId,
        parameters: { walletName: 'read-only', accounts: [ETH_ACCOUNT] },
      },
      session,
    );
    expect(write.status).toBe(403);
    expect(write.body).toMatchObject({ code: 7, message: 'request not authorized' });
    expect((await sub.getWallets()).wallets).toHaveLength(walletCount);

    // Another organization (the parent) is not the session's to read.
    const elsewhere = await postRaw(
      kh.server.url,
      '/public/v1/query/list_wallets',
      { organizationId: kh.organizationId },
      session,
    );
    expect(elsewhere).toMatchObject({ status: 403, body: { message: 'organization mismatch' } });

    const tampered = await postRaw(
      kh.server.url,
      '/public/v1/query/whoami',
      { organizationId: subOrgId },
      { 'x-session': `${result.session.slice(0, -4)}AAAA` },
    );
    expect(tampered).toMatchObject({ status: 401, body: { message: 'authentication failed' } });

    clock.advance(3601);
    try {
      const late = await postRaw(
        kh.server.url,
        '/public/v1/query/whoami',
        { organizationId: subOrgId },
        session,
      );
      expect(late).toMatchObject({ status: 401, body: { message: 'authentication failed' } });
    } finally {
      clock.advance(-3601);
    }
  });

  it('refuses a bad lifetime or key with the catalogue message, storing nothing', async () => {
    const sub = sdkClient(kh.server.url, subOrgId, endUserKey);
    const before = (await sub.getApiKeys({ userId: endUserId })).apiKeys.length;
    const zero = await rejection(
      sub.stampLogin({ publicKey: generateP256KeyPair().publicKey, expirationSeconds: '0' }),
    );
    expect(zero.message).toContain('invalid api key expiration');
    const badKey = await rejection(sub.stampLogin({ publicKey: `02${'ff'.repeat(32)}` }));
    expect(badKey.message).toContain('invalid public key');
    const badTarget = await rejection(
      sub.createReadWriteSession({ targetPublicKey: `04${'00'.repeat(64)}` }),
    );
    expect(badTarget.message).toContain('invalid public key');
    expect((await sub.getApiKeys({ userId: endUserId })).apiKeys).toHaveLength(before);
    const { activities } = await sub.getActivities({});
    expect(
      activities.filter((a) => a.status === 'ACTIVITY_STATUS_FAILED').map((a) => a.type),
    ).toEqual([]);
  });
});

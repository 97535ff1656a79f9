/**
 * OIDC logins end to end, against a real OpenID Provider (`oidc-provider`, started here on
 * loopback) and through the published `@turnkey/sdk-server`: a user of a sub-organization
 * registers the provider from a real id_token (CREATE_OAUTH_PROVIDERS), the parent's backend
 * exchanges a token whose nonce binds a client key for a session (OAUTH_LOGIN) that verifies
 * under the `notarizerPublicKey`, or for an API key in a credential bundle (OAUTH). A token
 * bound to another key, for another audience, from an untrusted issuer, expired, or signed
 * by a key the issuer never published, and an issuer out of reach, are each refused with the
 * catalogue's Status and leave nothing stored; the provider's key rotation is picked up. Run
 * on memory and on embedded PGlite.
 */
import { joseOidcVerifier } from '@keyhold/oidc-jose';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import {
  decryptCredentialBundle,
  generateP256KeyPair,
  getPublicKey,
  verifySessionJwtSignature,
} from '@turnkey/crypto';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalOidcIssuer, startOidcIssuer } from './__fixtures__/oidc-issuer.js';
import { closeStoreTargets, STORE_TARGETS } from './__fixtures__/store-targets.js';
import {
  httpClient,
  rejection,
  type SdkClient,
  sdkClient,
  startTurnkeyServer,
  type TurnkeyServer,
} from './__fixtures__/turnkey-server.js';
import { generateApiKeyPair } from './api-key-signer.js';

/** The nonce of identity-and-payments §B5: hex sha256 of the UTF-8 of the key's hex. */
const nonceOf = (publicKeyHex: string) => bytesToHex(sha256(utf8ToBytes(publicKeyHex)));

/** A port nothing listens on: the issuer of tokens nobody can check. */
async function closedPort(): Promise<number> {
  const { createServer } = await import('node:net');
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** An ES256 id_token signed by a key no issuer published. */
async function forgedToken(claims: Record<string, unknown>): Promise<string> {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  await exportJWK(privateKey);
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'ES256', kid: 'key-nobody-published' })
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(privateKey);
}

afterAll(closeStoreTargets);

describe.each(STORE_TARGETS)('OIDC logins against a local oidc-provider on %s', (_, openStore) => {
  let op: LocalOidcIssuer;
  let untrusted: LocalOidcIssuer;
  let unreachable: string;
  let kh: TurnkeyServer;
  let alice: SdkClient;
  let subOrgId: string;
  let aliceId: string;
  const app = 'wallet-app';

  beforeAll(async () => {
    op = await startOidcIssuer([
      { clientId: app },
      { clientId: 'other-app' },
      { clientId: 'short-lived', ttlSeconds: 1 },
    ]);
    untrusted = await startOidcIssuer([{ clientId: app }]);
    unreachable = `http://127.0.0.1:${await closedPort()}`;
    kh = await startTurnkeyServer({
      ...(await openStore()),
      oidcVerifier: joseOidcVerifier({
        trustedIssuers: [op.issuer, unreachable],
        allowLoopbackHttp: true,
        timeoutMs: 2000,
        // Rotation is picked up at once here; the default waits 30 s between refetches.
        jwksCooldownMs: 0,
      }),
    });
    const aliceKey = generateApiKeyPair();
    const created = await kh.client.createSubOrganization({
      subOrganizationName: 'end user',
      rootUsers: [
        {
          userName: 'alice',
          apiKeys: [
            {
              apiKeyName: 'device',
              publicKey: aliceKey.publicKey,
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
    aliceId = created.rootUserIds![0]!;
    alice = sdkClient(kh.server.url, subOrgId, aliceKey);
    const { providerIds } = await alice.createOauthProviders({
      userId: aliceId,
      oauthProviders: [
        {
          providerName: 'Local OP',
          oidcToken: await op.idToken({ clientId: app, sub: 'alice-at-op' }),
        },
      ],
    });
    expect(providerIds).toHaveLength(1);
  });
  afterAll(async () => {
    await kh?.server.close();
    await op?.close();
    await untrusted?.close();
  });

  /** What a refusal must leave as it was: the activities and alice's keys. */
  async function snapshot() {
    const [parent, sub, keys] = await Promise.all([
      kh.client.getActivities({}),
      alice.getActivities({}),
      alice.getApiKeys({ userId: aliceId }),
    ]);
    return {
      parent: parent.activities.length,
      sub: sub.activities.length,
      keys: keys.apiKeys.length,
    };
  }

  it('registers the provider with the token’s issuer, audience and subject', async () => {
    const { oauthProviders } = await alice.getOauthProviders({ userId: aliceId });
    expect(oauthProviders).toEqual([
      expect.objectContaining({
        providerName: 'Local OP',
        issuer: op.issuer,
        audience: app,
        subject: 'alice-at-op',
      }),
    ]);
    const { user } = await alice.getUser({ userId: aliceId });
    expect(user.oauthProviders.map((p) => p.subject)).toEqual(['alice-at-op']);
    // The parent finds the end user's sub-organization by a token (getSubOrgIds OIDC_TOKEN).
    const found = async (oidcToken: string) =>
      (await kh.client.getSubOrgIds({ filterType: 'OIDC_TOKEN', filterValue: oidcToken }))
        .organizationIds;
    expect(await found(await op.idToken({ clientId: app, sub: 'alice-at-op' }))).toEqual([
      subOrgId,
    ]);
    expect(await found(await op.idToken({ clientId: 'other-app', sub: 'alice-at-op' }))).toEqual(
      [],
    );
    expect(await found('not-a-token')).toEqual([]);
  });

  it('OAUTH_LOGIN by the parent: a session of alice in the sub-organization, signed by the notarizer', async () => {
    const client = generateP256KeyPair();
    const oidcToken = await op.idToken({
      clientId: app,
      sub: 'alice-at-op',
      nonce: nonceOf(client.publicKey),
    });
    const { session } = await kh.client.oauthLogin({
      organizationId: subOrgId,
      oidcToken,
      publicKey: client.publicKey,
    });
    expect(await verifySessionJwtSignature(session, kh.server.keyhold.notarizerPublicKey)).toBe(
      true,
    );
    expect(JSON.parse(atob(session.split('.')[1]!))).toMatchObject({
      public_key: client.publicKey,
      user_id: aliceId,
      organization_id: subOrgId,
      session_type: 'SESSION_TYPE_READ_WRITE',
    });
    const asSession = sdkClient(kh.server.url, subOrgId, client);
    expect((await asSession.getWhoami({})).userId).toBe(aliceId);
  });

  it('OAUTH (legacy): an API key in a credential bundle for the key the nonce binds', async () => {
    const target = generateP256KeyPair();
    const oidcToken = await op.idToken({
      clientId: app,
      sub: 'alice-at-op',
      nonce: nonceOf(target.publicKeyUncompressed),
    });
    const result = await kh.client.oauth({
      organizationId: subOrgId,
      oidcToken,
      targetPublicKey: target.publicKeyUncompressed,
    });
    expect(result.userId).toBe(aliceId);
    const privateKey = decryptCredentialBundle(result.credentialBundle, target.privateKey);
    const publicKey = bytesToHex(getPublicKey(privateKey, true));
    const { apiKeys } = await alice.getApiKeys({ userId: aliceId });
    expect(apiKeys.find((k) => k.apiKeyId === result.apiKeyId)?.credential).toEqual({
      publicKey,
      type: 'CREDENTIAL_TYPE_OAUTH_KEY_P256',
    });
    const asKey = sdkClient(kh.server.url, subOrgId, { publicKey, privateKey });
    expect((await asKey.getWhoami({})).userId).toBe(aliceId);
  });

  it('refuses a token bound to another key, another audience, an untrusted issuer, an expired one and a forged one: "invalid OIDC token", nothing stored', async () => {
    const client = generateP256KeyPair();
    const nonce = nonceOf(client.publicKey);
    const shortLived = await op.idToken({ clientId: 'short-lived', sub: 'alice-at-op', nonce });
    // Each case, and the check that refuses it (the Status details the client appends).
    const reasons: Record<string, string> = {
      'bound to another key': 'the token is bound to another key',
      'another audience': 'no OAuth provider of this organization',
      'an untrusted issuer': 'the issuer is not trusted by this server',
      'signed by an unknown key': "no key of the issuer's JWKS matches the token",
    };
    const cases = {
      'bound to another key': await op.idToken({
        clientId: app,
        sub: 'alice-at-op',
        nonce: nonceOf(generateP256KeyPair().publicKey),
      }),
      'another audience': await op.idToken({ clientId: 'other-app', sub: 'alice-at-op', nonce }),
      'an untrusted issuer': await untrusted.idToken({ clientId: app, sub: 'alice-at-op', nonce }),
      'signed by an unknown key': await forgedToken({
        iss: op.issuer,
        aud: app,
        sub: 'alice-at-op',
        nonce,
      }),
    };
    const before = await snapshot();
    for (const [name, oidcToken] of Object.entries(cases)) {
      const refused = await rejection(
        kh.client.oauthLogin({ organizationId: subOrgId, oidcToken, publicKey: client.publicKey }),
      );
      expect(refused.message, name).toContain('invalid OIDC token');
      expect(refused.code, name).toBe(3); // INVALID_ARGUMENT: HTTP 400
      expect(refused.message, name).toContain(reasons[name]);
    }
    // Expired: the issuer gave this client one second.
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const expired = await rejection(
      kh.client.oauthLogin({
        organizationId: subOrgId,
        oidcToken: shortLived,
        publicKey: client.publicKey,
      }),
    );
    expect(expired.message).toContain('invalid OIDC token');
    expect(expired.message).toContain('expired');
    // Registering with a bad token is refused alike.
    const registering = await rejection(
      alice.createOauthProviders({
        userId: aliceId,
        oauthProviders: [{ providerName: 'forged', oidcToken: cases['signed by an unknown key'] }],
      }),
    );
    expect(registering.message).toContain('invalid OIDC token');
    expect(await snapshot()).toEqual(before);
    expect((await alice.getOauthProviders({ userId: aliceId })).oauthProviders).toHaveLength(1);
  });

  it('an issuer out of reach answers 503 with Retry-After, storing nothing', async () => {
    const client = generateP256KeyPair();
    const before = await snapshot();
    const oidcToken = await forgedToken({
      iss: unreachable,
      aud: app,
      sub: 'alice-at-op',
      nonce: nonceOf(client.publicKey),
    });
    const refused = await rejection(
      kh.client.oauthLogin({ organizationId: subOrgId, oidcToken, publicKey: client.publicKey }),
    );
    expect(refused.message).toContain('service unavailable');
    expect(refused.code).toBe(14); // UNAVAILABLE: HTTP 503
    // The raw answer carries Retry-After.
    const signed = await httpClient(kh.server.url, kh.key).stampOauthLogin({
      type: 'ACTIVITY_TYPE_OAUTH_LOGIN',
      timestampMs: String(Date.now()),
      organizationId: subOrgId,
      parameters: { oidcToken, publicKey: client.publicKey },
    });
    const raw = await fetch(signed.url, {
      method: 'POST',
      body: signed.body,
      headers: { [signed.stamp.stampHeaderName]: signed.stamp.stampHeaderValue },
    });
    expect(raw.status).toBe(503);
    expect(raw.headers.get('retry-after')).toBe('1');
    expect(await snapshot()).toEqual(before);
  });

  it('picks up the provider’s key rotation', async () => {
    const oldKid = op.kid;
    await op.rotate();
    expect(op.kid).not.toBe(oldKid);
    const client = generateP256KeyPair();
    const oidcToken = await op.idToken({
      clientId: app,
      sub: 'alice-at-op',
      nonce: nonceOf(client.publicKey),
    });
    const { session } = await kh.client.oauthLogin({
      organizationId: subOrgId,
      oidcToken,
      publicKey: client.publicKey,
    });
    expect(JSON.parse(atob(session.split('.')[1]!)).user_id).toBe(aliceId);
  });

  it('users created with OAuth providers: CREATE_SUB_ORGANIZATION (V8) and CREATE_USERS (V4) log in by token', async () => {
    const { subOrganizationId, rootUserIds } = await kh.client.createSubOrganization({
      subOrganizationName: 'signed up with OIDC',
      rootUsers: [
        {
          userName: 'carol',
          apiKeys: [],
          authenticators: [],
          oauthProviders: [
            {
              providerName: 'Local OP',
              oidcToken: await op.idToken({ clientId: app, sub: 'carol-at-op' }),
            },
          ],
        },
      ],
      rootQuorumThreshold: 1,
    });
    const client = generateP256KeyPair();
    const login = async (organizationId: string, sub: string) =>
      kh.client.oauthLogin({
        organizationId,
        oidcToken: await op.idToken({ clientId: app, sub, nonce: nonceOf(client.publicKey) }),
        publicKey: client.publicKey,
      });
    const { session } = await login(subOrganizationId, 'carol-at-op');
    expect(JSON.parse(atob(session.split('.')[1]!)).user_id).toBe(rootUserIds![0]);

    const { userIds } = await alice.createUsers({
      users: [
        {
          userName: 'dave',
          apiKeys: [],
          authenticators: [],
          userTags: [],
          oauthProviders: [
            {
              providerName: 'by claims',
              oidcClaims: { iss: op.issuer, aud: app, sub: 'dave-at-op' },
            },
          ],
        },
      ],
    });
    const { session: daves } = await login(subOrgId, 'dave-at-op');
    expect(JSON.parse(atob(daves.split('.')[1]!)).user_id).toBe(userIds[0]);
    // Deleting the user deletes their providers.
    await alice.deleteUsers({ userIds });
    const left = (await alice.getOauthProviders({})).oauthProviders.map((p) => p.subject);
    expect(left).not.toContain('dave-at-op');

    // A sub-organization whose root user's token does not verify is refused whole.
    const before = (await kh.client.getSubOrgIds({})).organizationIds.length;
    const refused = await rejection(
      kh.client.createSubOrganization({
        subOrganizationName: 'forged sign-up',
        rootUsers: [
          {
            userName: 'mallory',
            apiKeys: [],
            authenticators: [],
            oauthProviders: [
              {
                providerName: 'forged',
                oidcToken: await forgedToken({ iss: op.issuer, aud: app, sub: 'mallory' }),
              },
            ],
          },
        ],
        rootQuorumThreshold: 1,
      }),
    );
    expect(refused.message).toContain('invalid OIDC token');
    expect((await kh.client.getSubOrgIds({})).organizationIds).toHaveLength(before);
  });

  it('DELETE_OAUTH_PROVIDERS: the provider logs in no more', async () => {
    const { oauthProviders } = await alice.getOauthProviders({ userId: aliceId });
    const providerIds = oauthProviders.map((p) => p.providerId);
    expect(
      (await alice.deleteOauthProviders({ userId: aliceId, providerIds })).providerIds,
    ).toEqual(providerIds);
    const client = generateP256KeyPair();
    const oidcToken = await op.idToken({
      clientId: app,
      sub: 'alice-at-op',
      nonce: nonceOf(client.publicKey),
    });
    const refused = await rejection(
      kh.client.oauthLogin({ organizationId: subOrgId, oidcToken, publicKey: client.publicKey }),
    );
    expect(refused.message).toContain('invalid OIDC token');
    // Registered again by its claims (V2), without a token.
    const { providerIds: again } = await alice.createOauthProviders({
      userId: aliceId,
      oauthProviders: [
        { providerName: 'by claims', oidcClaims: { iss: op.issuer, aud: app, sub: 'alice-at-op' } },
      ],
    });
    expect(again).toHaveLength(1);
    await kh.client.oauthLogin({
      organizationId: subOrgId,
      oidcToken,
      publicKey: client.publicKey,
    });
    // An identity belongs to one user: registering it again is refused, nothing stored.
    const duplicate = await rejection(
      alice.createOauthProviders({
        userId: aliceId,
        oauthProviders: [
          { providerName: 'twice', oidcClaims: { iss: op.issuer, aud: app, sub: 'alice-at-op' } },
        ],
      }),
    );
    expect(duplicate.message).toContain(
      'oauth provider with this issuer, audience and subject already exists in organization',
    );
    expect((await alice.getOauthProviders({ userId: aliceId })).oauthProviders).toHaveLength(1);
  });
});

/**
 * OAuth 2 credentials end to end, through the published clients and a real OAuth 2.0 server
 * (`@node-oauth/oauth2-server`, started here on loopback): `@turnkey/sdk-server` creates a
 * credential whose secret `@turnkey/crypto`'s `encryptOauth2ClientSecret` encrypted to
 * `tlsFetcherEncryptPublicKey`, reads and lists it (never the secret), updates and deletes
 * it; OAUTH2_AUTHENTICATE exchanges a code the provider issued (with and without PKCE) and
 * answers an OIDC token that verifies with the key the server's discovery document and JWKS
 * publish, naming the provider's user (`x:<id>`, `discord:<id>`), the app and the nonce; the
 * provider's bearer token comes back in a credential bundle only when asked for. Refusals — a
 * secret encrypted to another key, an unknown credential, a wrong or reused code or verifier,
 * a provider that is down or too slow — are Status bodies with the catalogue's message (503
 * with Retry-After for the provider), and store nothing. Run on memory and embedded PGlite.
 */
import type { Oauth2Gateway } from '@keyhold/activities';
import { HttpOauth2Gateway } from '@keyhold/oauth2-http';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import {
  decryptCredentialBundle,
  encryptOauth2ClientSecret,
  generateP256KeyPair,
} from '@turnkey/crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The loopback OAuth 2.0 server of the gateway's tests (test-only code, no package export).
import {
  pkceVerifier,
  startTestOauth2Provider,
  type TestOauth2Provider,
} from '../../../adapters/oauth2-http/src/testing/oauth2-provider.js';
import { closeStoreTargets, STORE_TARGETS } from './__fixtures__/store-targets.js';
import {
  httpClient,
  rejection,
  startTurnkeyServer,
  type TurnkeyServer,
} from './__fixtures__/turnkey-server.js';

afterAll(closeStoreTargets);

const claimsOf = (jwt: string) =>
  JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8')) as Record<
    string,
    unknown
  >;

/** Verifies an ES256 JWT with the key the issuer publishes (discovery → jwks_uri → kid). */
async function verifiedByIssuer(jwt: string): Promise<boolean> {
  const [header, payload, signature] = jwt.split('.') as [string, string, string];
  const { iss } = claimsOf(jwt) as { iss: string };
  const { kid } = JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as { kid: string };
  const discovery = (await (await fetch(`${iss}/.well-known/openid-configuration`)).json()) as {
    issuer: string;
    jwks_uri: string;
  };
  expect(discovery.issuer).toBe(iss);
  const jwks = (await (await fetch(discovery.jwks_uri)).json()) as {
    keys: (JsonWebKey & { kid: string })[];
  };
  const jwk = jwks.keys.find((k) => k.kid === kid);
  if (!jwk) return false;
  const key = await crypto.subtle.importKey(
    'jwk',
    { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y },
    { name: 'ECDSA', namedCurve: 'P-256' },
    false,
    ['verify'],
  );
  return crypto.subtle.verify(
    { name: 'ECDSA', hash: 'SHA-256' },
    key,
    Buffer.from(signature, 'base64url'),
    utf8ToBytes(`${header}.${payload}`),
  );
}

/** The nonce a client binds its key with: hex of sha256 of the compressed key's hex. */
const nonceFor = (publicKey: string) => bytesToHex(sha256(utf8ToBytes(publicKey)));

describe.each(STORE_TARGETS)('OAuth 2 credentials on %s', (_, openStore) => {
  let kh: TurnkeyServer;
  let provider: TestOauth2Provider;
  /** The gateway the server uses; a test swaps it to reach a provider that is down. */
  let gateway: Oauth2Gateway;
  let providerGateway: Oauth2Gateway;
  const app = {
    clientId: 'keyhold-app',
    clientSecret: 'first-secret-Zq9',
    redirectUri: 'https://app.example/oauth/callback',
  };

  const gatewayTo = (p: { tokenEndpoint: string; x: string; discord: string }, timeoutMs = 2000) =>
    new HttpOauth2Gateway({
      endpoints: {
        OAUTH2_PROVIDER_X: { tokenEndpoint: p.tokenEndpoint, userInfoEndpoint: p.x },
        OAUTH2_PROVIDER_DISCORD: { tokenEndpoint: p.tokenEndpoint, userInfoEndpoint: p.discord },
      },
      allowLoopbackHttp: true,
      timeoutMs,
    });

  beforeAll(async () => {
    provider = await startTestOauth2Provider();
    provider.register(app);
    providerGateway = gatewayTo({
      tokenEndpoint: provider.tokenEndpoint,
      x: provider.xUserInfoEndpoint,
      discord: provider.discordUserInfoEndpoint,
    });
    gateway = providerGateway;
    kh = await startTurnkeyServer({
      ...(await openStore()),
      oauth2: { gateway: { authenticate: (exchange) => gateway.authenticate(exchange) } },
    });
  });
  afterAll(async () => {
    await kh?.server.close();
    await provider?.close();
  });

  const encrypted = (secret: string) =>
    encryptOauth2ClientSecret(secret, kh.server.keyhold.tlsFetcherEncryptPublicKey);
  const activityCount = async () =>
    (await kh.client.getActivities({ organizationId: kh.organizationId })).activities.length;
  const credentialCount = async () =>
    (await kh.client.listOauth2Credentials({ organizationId: kh.organizationId })).oauth2Credentials
      .length;

  it('creates, reads, lists, updates and deletes a credential; no answer carries the secret', async () => {
    const { oauth2CredentialId } = await kh.client.createOauth2Credential({
      provider: 'OAUTH2_PROVIDER_X',
      clientId: app.clientId,
      encryptedClientSecret: await encrypted(app.clientSecret),
    });
    const got = await kh.client.getOauth2Credential({ oauth2CredentialId });
    expect(got.oauth2Credential).toMatchObject({
      oauth2CredentialId,
      organizationId: kh.organizationId,
      provider: 'OAUTH2_PROVIDER_X',
      clientId: app.clientId,
    });
    expect(got.oauth2Credential.createdAt.seconds).toMatch(/^\d+$/);
    const listed = await kh.client.listOauth2Credentials({ organizationId: kh.organizationId });
    expect(listed.oauth2Credentials.map((c) => c.oauth2CredentialId)).toContain(oauth2CredentialId);
    for (const answer of [got, listed]) {
      expect(JSON.stringify(answer)).not.toContain(app.clientSecret);
      expect(JSON.stringify(answer)).not.toContain('encryptedClientSecret');
    }

    const updated = await kh.client.updateOauth2Credential({
      oauth2CredentialId,
      provider: 'OAUTH2_PROVIDER_DISCORD',
      clientId: 'another-app',
      encryptedClientSecret: await encrypted('another-secret'),
    });
    expect(updated.oauth2CredentialId).toBe(oauth2CredentialId);
    expect(
      (await kh.client.getOauth2Credential({ oauth2CredentialId })).oauth2Credential,
    ).toMatchObject({
      provider: 'OAUTH2_PROVIDER_DISCORD',
      clientId: 'another-app',
    });

    await kh.client.deleteOauth2Credential({ oauth2CredentialId });
    const gone = await rejection(kh.client.getOauth2Credential({ oauth2CredentialId }));
    expect(gone.message).toContain('OAuth 2.0 credential not found');
  });

  it('OAUTH2_AUTHENTICATE with PKCE answers an OIDC token the issuer’s JWKS verifies', async () => {
    const { oauth2CredentialId } = await kh.client.createOauth2Credential({
      provider: 'OAUTH2_PROVIDER_X',
      clientId: app.clientId,
      encryptedClientSecret: await encrypted(app.clientSecret),
    });
    const sessionKey = generateP256KeyPair();
    const codeVerifier = pkceVerifier();
    const authCode = await provider.authorize({ client: app, userId: '123456789', codeVerifier });
    const before = Math.floor(Date.now() / 1000);
    const { oidcToken } = await kh.client.oauth2Authenticate({
      oauth2CredentialId,
      authCode,
      redirectUri: app.redirectUri,
      codeVerifier,
      nonce: nonceFor(sessionKey.publicKey),
    });
    const claims = claimsOf(oidcToken);
    expect(claims).toMatchObject({
      iss: `${kh.server.url}/keyhold/v1/oauth2`,
      aud: app.clientId,
      sub: 'x:123456789',
      nonce: nonceFor(sessionKey.publicKey),
    });
    expect(claims.exp as number).toBeGreaterThan(before);
    expect(claims.encrypted_bearer_token).toBeUndefined();
    expect(await verifiedByIssuer(oidcToken)).toBe(true);
    // A byte changed in the payload no longer verifies (the check can fail).
    const [h, p, s] = oidcToken.split('.') as [string, string, string];
    const forged = Buffer.from(JSON.stringify({ ...claims, sub: 'x:1' })).toString('base64url');
    expect(await verifiedByIssuer(`${h}.${forged}.${s}`)).toBe(false);
    expect(p).not.toBe(forged);
    // The exchange sent the verifier and authenticated the app.
    expect(provider.tokenRequests.at(-1)).toMatchObject({
      basicClientId: app.clientId,
      form: { code: authCode, code_verifier: codeVerifier, redirect_uri: app.redirectUri },
    });
  });

  it('without PKCE, and with the bearer token encrypted to the client', async () => {
    const { oauth2CredentialId } = await kh.client.createOauth2Credential({
      provider: 'OAUTH2_PROVIDER_DISCORD',
      clientId: app.clientId,
      encryptedClientSecret: await encrypted(app.clientSecret),
    });
    const target = generateP256KeyPair();
    const { oidcToken } = await kh.client.oauth2Authenticate({
      oauth2CredentialId,
      authCode: await provider.authorize({ client: app, userId: '80351110224678912' }),
      redirectUri: app.redirectUri,
      codeVerifier: '',
      nonce: nonceFor(target.publicKey),
      bearerTokenTargetPublicKey: target.publicKey,
    });
    const claims = claimsOf(oidcToken);
    expect(claims.sub).toBe('discord:80351110224678912');
    expect(provider.tokenRequests.at(-1)!.form.code_verifier).toBeUndefined();
    const bearer = Buffer.from(
      hexToBytes(
        decryptCredentialBundle(claims.encrypted_bearer_token as string, target.privateKey),
      ),
    ).toString('utf8');
    // It is the provider's token: the provider's who-am-I accepts it.
    const me = await fetch(provider.discordUserInfoEndpoint, {
      headers: { authorization: `Bearer ${bearer}` },
    });
    expect(await me.json()).toMatchObject({ id: '80351110224678912' });
  });

  it('refuses bad input with the catalogue message and stores nothing', async () => {
    const { oauth2CredentialId } = await kh.client.createOauth2Credential({
      provider: 'OAUTH2_PROVIDER_X',
      clientId: app.clientId,
      encryptedClientSecret: await encrypted(app.clientSecret),
    });
    const activities = await activityCount();
    const credentials = await credentialCount();

    // A secret encrypted to another key (Turnkey's production key), or not an envelope.
    const otherKey = generateP256KeyPair().publicKeyUncompressed;
    for (const encryptedClientSecret of [
      await encryptOauth2ClientSecret(app.clientSecret, otherKey),
      await encryptOauth2ClientSecret(app.clientSecret),
      'abcd',
    ]) {
      // Thunks, so each request starts only when it is awaited: a refusal that arrives
      // before its await would be an unhandled rejection.
      for (const call of [
        () =>
          kh.client.createOauth2Credential({
            provider: 'OAUTH2_PROVIDER_X',
            clientId: app.clientId,
            encryptedClientSecret,
          }),
        () =>
          kh.client.updateOauth2Credential({
            oauth2CredentialId,
            provider: 'OAUTH2_PROVIDER_X',
            clientId: 'changed',
            encryptedClientSecret,
          }),
      ]) {
        const refused = await rejection(call());
        expect(refused.message).toContain('invalid encrypted client secret');
        expect(refused.message).not.toContain(app.clientSecret);
      }
    }
    // The failed update changed nothing: the old client id and secret still work below.
    expect(
      (await kh.client.getOauth2Credential({ oauth2CredentialId })).oauth2Credential.clientId,
    ).toBe(app.clientId);

    // An unknown credential.
    const unknown = '0195f1d2-0000-7000-8000-000000000000';
    const secret = await encrypted(app.clientSecret);
    for (const call of [
      () => kh.client.deleteOauth2Credential({ oauth2CredentialId: unknown }),
      () =>
        kh.client.updateOauth2Credential({
          oauth2CredentialId: unknown,
          provider: 'OAUTH2_PROVIDER_X',
          clientId: app.clientId,
          encryptedClientSecret: secret,
        }),
      () =>
        kh.client.oauth2Authenticate({
          oauth2CredentialId: unknown,
          authCode: 'code',
          redirectUri: app.redirectUri,
          codeVerifier: '',
          nonce: 'n',
        }),
    ]) {
      expect((await rejection(call())).message).toContain('OAuth 2.0 credential not found');
    }

    // A wrong code, a wrong verifier, a code used twice.
    const authenticate = (authCode: string, codeVerifier: string) =>
      kh.client.oauth2Authenticate({
        oauth2CredentialId,
        authCode,
        redirectUri: app.redirectUri,
        codeVerifier,
        nonce: nonceFor(generateP256KeyPair().publicKey),
      });
    const verifier = pkceVerifier();
    const code = await provider.authorize({ client: app, userId: '42', codeVerifier: verifier });
    for (const [authCode, codeVerifier] of [
      ['not-a-code', verifier],
      [code, pkceVerifier()],
    ] as const) {
      const refused = await rejection(authenticate(authCode, codeVerifier));
      expect(refused.message).toContain(
        'the OAuth 2.0 provider refused the authorization code exchange',
      );
      expect(refused.message).toContain('invalid_grant');
    }
    const fresh = await provider.authorize({ client: app, userId: '42', codeVerifier: verifier });
    expect(claimsOf((await authenticate(fresh, verifier)).oidcToken).sub).toBe('x:42');
    const reused = await rejection(authenticate(fresh, verifier));
    expect(reused.message).toContain('invalid_grant');
    // A verifier that is not RFC 7636's shape is refused before any exchange.
    expect((await rejection(authenticate(fresh, 'short'))).message).toContain(
      'invalid code verifier',
    );
    expect(await activityCount()).toBe(activities + 1); // the one that succeeded
    expect(await credentialCount()).toBe(credentials);
  });

  it('a provider that is down or too slow is 503 with Retry-After, and nothing is stored', async () => {
    const { oauth2CredentialId } = await kh.client.createOauth2Credential({
      provider: 'OAUTH2_PROVIDER_X',
      clientId: app.clientId,
      encryptedClientSecret: await encrypted(app.clientSecret),
    });
    const activities = await activityCount();
    const http = httpClient(kh.server.url, kh.key);
    const attempt = async () => {
      const stamped = await http.stampOauth2Authenticate({
        type: 'ACTIVITY_TYPE_OAUTH2_AUTHENTICATE',
        timestampMs: String(Date.now()),
        organizationId: kh.organizationId,
        parameters: {
          oauth2CredentialId,
          authCode: await provider.authorize({ client: app, userId: '7' }),
          redirectUri: app.redirectUri,
          codeVerifier: '',
          nonce: 'n',
        },
      });
      return fetch(stamped.url, {
        method: 'POST',
        body: stamped.body,
        headers: { [stamped.stamp.stampHeaderName]: stamped.stamp.stampHeaderValue },
      });
    };
    const down = await startTestOauth2Provider();
    await down.close();
    try {
      gateway = gatewayTo({
        tokenEndpoint: down.tokenEndpoint,
        x: down.xUserInfoEndpoint,
        discord: down.discordUserInfoEndpoint,
      });
      const refused = await attempt();
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('1');
      const status = (await refused.json()) as { message: string; details: { reason?: string }[] };
      expect(status.message).toBe('service unavailable');
      expect(JSON.stringify(status.details)).toContain('the OAuth 2.0 provider cannot be reached');

      // Too slow: every answer of the provider waits 1.5 s, the gateway waits 300 ms.
      gateway = gatewayTo(
        {
          tokenEndpoint: provider.tokenEndpoint,
          x: provider.xUserInfoEndpoint,
          discord: provider.discordUserInfoEndpoint,
        },
        300,
      );
      provider.mode = { kind: 'slow', delayMs: 1500 };
      const slow = await attempt();
      expect(slow.status).toBe(503);
      expect(slow.headers.get('retry-after')).toBe('1');
      expect(await slow.text()).toContain('no answer within 300 ms');
    } finally {
      provider.mode = { kind: 'normal' };
      gateway = providerGateway;
    }
    expect(await activityCount()).toBe(activities);
  });
});

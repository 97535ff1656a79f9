/**
 * The auth proxy (`/auth-proxy/v1/*`) driven by `@turnkey/core` 2.8.1's own proxy client (its
 * `TurnkeySDKClientBase` proxy methods, `getAuthProxyConfig`, `getClientParams`, and the
 * client-signature helpers), with the codes read from the mail a real `smtp-server` received
 * and OIDC tokens from a local issuer:
 * - sign-up (otp_init_v2 → otp_verify_v2 → account → signup_v2), login by X-Stamp-Attested
 *   STAMP_LOGIN on the public API (what core does after `account`), otp_login_v2, oauth_login;
 *   each session then makes a wallet through `@turnkey/sdk-server`.
 * - what a public endpoint must refuse, each with the Status body and nothing stored: an
 *   unknown config id, a disabled proxy, a disallowed origin, a wrong or replayed code, a
 *   replayed token, a lookup by contact without the proof of it, an OIDC token bound to
 *   another key; and the send limits per contact and per client address. Never a 5xx.
 * - the proxy's user is a real user of the organization whose policy allows only the proxy's
 *   activities, and its key is stored sealed.
 * - X sign-in (OAuth 2.0 without OIDC, a loopback `@node-oauth/oauth2-server`):
 *   oauth2_authenticate → account → signup_v2 with the token → oauth_login → a wallet.
 * - the same proxy on the Koa adapter over embedded PGlite, with the V1 routes (otp_init,
 *   otp_verify with the typed code, signup, otp_login); a fast-check property that no route
 *   answers 5xx to any JSON; a limiter that cannot answer is a 503.
 */

import { smtpNotifier } from '@keyhold/notifier-smtp';
import { HttpOauth2Gateway } from '@keyhold/oauth2-http';
import { joseOidcVerifier } from '@keyhold/oidc-jose';
import { RedisRateLimiter } from '@keyhold/ratelimit-redis';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import {
  decodeVerificationToken,
  getAuthProxyConfig,
  getClientParams,
  getClientSignatureMessageForLogin,
  getClientSignatureMessageForSignup,
  TurnkeyClient,
} from '@turnkey/core';
import {
  encryptOauth2ClientSecret,
  encryptOtpCodeToBundle,
  verifySessionJwtSignature,
} from '@turnkey/crypto';
import { DEFAULT_ETHEREUM_ACCOUNTS } from '@turnkey/sdk-server';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type SmtpMailbox,
  startSmtpMailbox,
} from '../../../adapters/notifier-smtp/src/testing/smtp-mailbox.js';
import {
  pkceVerifier,
  startTestOauth2Provider,
  type TestOauth2Provider,
} from '../../../adapters/oauth2-http/src/testing/oauth2-provider.js';
import { clientSignatureFor } from './__fixtures__/client-signature.js';
import { type LocalOidcIssuer, startOidcIssuer } from './__fixtures__/oidc-issuer.js';
import { closeStoreTargets, STORE_TARGETS } from './__fixtures__/store-targets.js';
import {
  rejection,
  sdkClient,
  startTurnkeyServer,
  type TurnkeyServer,
} from './__fixtures__/turnkey-server.js';
import { type ApiKeyPair, generateApiKeyPair } from './api-key-signer.js';

const ORIGIN = 'https://app.example.com';
const APP = 'wallet-app';

/** The header core's AttestedStamper sends (see attested-stamp.test.ts). */
async function attestedHeader(key: ApiKeyPair, attestation: string, body: string) {
  const stamper = new ApiKeyStamper({ apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey });
  const { stampHeaderValue } = await stamper.stamp(body);
  const { signature } = JSON.parse(Buffer.from(stampHeaderValue, 'base64url').toString());
  return Buffer.from(
    JSON.stringify({
      publicKeyAttestation: attestation,
      scheme: 'STAMP_ATTESTED_SCHEME_P256_VERIFICATION_TOKEN',
      publicKey: key.publicKey,
      signature,
    }),
  ).toString('base64url');
}

const sessionClaims = (session: string) => JSON.parse(atob(session.split('.')[1]!));

const nonceOf = (publicKeyHex: string) => bytesToHex(sha256(utf8ToBytes(publicKeyHex)));

describe('the auth proxy, through @turnkey/core 2.8.1', () => {
  let kh: TurnkeyServer;
  let mailbox: SmtpMailbox;
  let op: LocalOidcIssuer;
  let configId: string;
  let authProxyUrl: string;
  let proxyUserId: string;

  /** core's HTTP client with the proxy settings (its proxy methods need no stamper). */
  const proxyClient = (id = configId) =>
    new TurnkeyClient({
      apiBaseUrl: kh.server.url,
      authProxyUrl,
      authProxyConfigId: id,
      organizationId: kh.organizationId,
    }).createHttpClient();

  /** A raw POST to a proxy path: status, headers and body. */
  async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
    const response = await fetch(`${authProxyUrl}/v1/${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-auth-proxy-config-id': configId,
        ...headers,
      },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    return {
      status: response.status,
      headers: response.headers,
      body: (await response.json()) as Record<string, unknown>,
    };
  }

  const codeFor = (contact: string) => {
    const mail = mailbox.received.filter((m) => m.to.includes(contact)).at(-1);
    const code = mail?.raw.match(/sign-in code is ([0-9A-Z]{6,9})/)?.[1];
    if (!code) throw new Error(`no code mailed to ${contact}`);
    return code;
  };

  /** otp_init_v2 → mail → otp_verify_v2, the key bound; answers the token. */
  async function verified(contact: string, key: ApiKeyPair) {
    const proxy = proxyClient();
    const { otpId, otpEncryptionTargetBundle } = await proxy.proxyInitOtpV2({
      otpType: 'OTP_TYPE_EMAIL',
      contact,
    });
    const encryptedOtpBundle = await encryptOtpCodeToBundle(
      codeFor(contact),
      otpEncryptionTargetBundle,
      key.publicKey,
      kh.server.keyhold.tlsFetcherSignPublicKey,
    );
    const { verificationToken } = await proxy.proxyVerifyOtpV2({ otpId, encryptedOtpBundle });
    return verificationToken;
  }

  /** STAMP_LOGIN on the public API under an X-Stamp-Attested stamp, as core's `loginWithOtp`. */
  async function attestedLogin(key: ApiKeyPair, token: string, organizationId: string) {
    const body = JSON.stringify({
      type: 'ACTIVITY_TYPE_STAMP_LOGIN',
      timestampMs: String(Date.now()),
      organizationId,
      parameters: { publicKey: key.publicKey, expirationSeconds: '1200' },
    });
    const response = await fetch(`${kh.server.url}/public/v1/submit/stamp_login`, {
      method: 'POST',
      body,
      headers: { 'X-Stamp-Attested': await attestedHeader(key, token, body) },
    });
    const answer = (await response.json()) as {
      message?: string;
      activity?: { result: { stampLoginResult: { session: string } } };
    };
    return {
      status: response.status,
      message: answer.message,
      session: answer.activity?.result.stampLoginResult.session,
    };
  }

  /** What the store holds that a refusal must not change. */
  async function footprint() {
    const { activities } = await kh.client.getActivities({ organizationId: kh.organizationId });
    const { organizationIds } = await kh.client.getSubOrgIds({ organizationId: kh.organizationId });
    return {
      activities: activities.length,
      subOrgs: organizationIds.length,
      mails: mailbox.received.length,
    };
  }

  beforeAll(async () => {
    mailbox = await startSmtpMailbox({ username: 'keyhold', password: 's3cret' });
    op = await startOidcIssuer([{ clientId: APP }]);
    kh = await startTurnkeyServer({
      notifier: smtpNotifier({ url: mailbox.url, from: 'login@keyhold.test', timeoutMs: 2000 }),
      oidcVerifier: joseOidcVerifier({ trustedIssuers: [op.issuer], allowLoopbackHttp: true }),
    });
    authProxyUrl = kh.server.authProxyUrl;
    const enabled = await kh.embedded.run<{ userId: string; encryptedApiKey: string }>(
      'ACTIVITY_TYPE_ENABLE_AUTH_PROXY',
      {},
    );
    proxyUserId = enabled.userId;
    ({ configId } = await kh.embedded.run<{ configId: string }>(
      'ACTIVITY_TYPE_UPDATE_AUTH_PROXY_CONFIG',
      {
        allowedOrigins: [ORIGIN],
        allowedAuthMethods: ['email', 'passkey'],
        walletKitSettings: {
          enabledSocialProviders: ['google'],
          oauthClientIds: { google: APP },
          oauthRedirectUrl: 'https://app.example.com/oauth',
        },
        sessionExpirationSeconds: 1200,
        otpLength: 6,
        otpAlphanumeric: false,
        emailCustomizationParams: { appName: 'Acme Wallet' },
      },
    ));
  });
  afterAll(async () => {
    await kh?.server.close();
    await mailbox?.close();
    await op?.close();
  });

  it('serves under authProxyUrl; wallet_kit_config and client params as the kit reads them', async () => {
    expect(authProxyUrl).toBe(`${kh.server.url}/auth-proxy`);
    const config = await getAuthProxyConfig(configId, authProxyUrl);
    expect(config).toEqual({
      enabledProviders: ['email', 'passkey', 'google'],
      sessionExpirationSeconds: '1200',
      organizationId: kh.organizationId,
      oauthClientIds: { google: APP },
      oauthRedirectUrl: 'https://app.example.com/oauth',
      otpAlphanumeric: false,
      otpLength: '6',
    });
    expect(await getClientParams(configId, authProxyUrl)).toEqual({});
  });

  it('the proxy is a user of the organization, allowed only its activities, its key sealed', async () => {
    const { user } = await kh.client.getUser({
      organizationId: kh.organizationId,
      userId: proxyUserId,
    });
    expect(user.userName).toBe('Auth Proxy');
    expect(user.apiKeys).toHaveLength(1);
    const { policies } = await kh.client.getPolicies({ organizationId: kh.organizationId });
    const policy = policies.find((p) => p.consensus?.includes(proxyUserId));
    expect(policy?.effect).toBe('EFFECT_ALLOW');
    expect(policy?.condition).toContain("'ACTIVITY_TYPE_INIT_OTP_V3'");
    expect(policy?.condition).not.toContain('SIGN');
    // ENABLE again keeps the same user and key.
    const again = await kh.embedded.run<{ userId: string }>('ACTIVITY_TYPE_ENABLE_AUTH_PROXY', {});
    expect(again.userId).toBe(proxyUserId);
  });

  it('OTP sign-up, then login by X-Stamp-Attested STAMP_LOGIN; the session makes a wallet', async () => {
    const email = 'new.user@example.com';
    const sessionKey = generateApiKeyPair();
    const proxy = proxyClient();
    const signUpToken = await verified(email, sessionKey);
    expect(mailbox.received.at(-1)!.raw).toContain('Subject: Sign in to Acme Wallet');
    expect(codeFor(email)).toMatch(/^[0-9]{6}$/);
    // No account yet: the proof of the contact gets an empty answer.
    expect(
      await proxy.proxyGetAccount({
        filterType: 'EMAIL',
        filterValue: email,
        verificationToken: signUpToken,
      }),
    ).toEqual({});

    const signUpBody = {
      userName: email,
      userEmail: email,
      authenticators: [],
      organizationName: `sub-org-${Date.now()}`,
      verificationToken: signUpToken,
      apiKeys: [],
      oauthProviders: [],
    };
    const { message, publicKey } = getClientSignatureMessageForSignup({
      verificationToken: signUpToken,
      email,
      apiKeys: [],
      authenticators: [],
      oauthProviders: [],
    });
    expect(publicKey).toBe(sessionKey.publicKey);
    const signedUp = await proxy.proxySignupV2({
      ...signUpBody,
      clientSignature: clientSignatureFor(sessionKey, message),
    });
    expect(signedUp.organizationId).toMatch(/^[0-9a-f-]{36}$/);
    expect(signedUp.userId).toMatch(/^[0-9a-f-]{36}$/);

    // What `signUpWithOtp` does next: STAMP_LOGIN in the new account with the same token.
    const first = await attestedLogin(sessionKey, signUpToken, signedUp.organizationId);
    expect(first.status).toBe(200);
    expect(sessionClaims(first.session!)).toMatchObject({
      organization_id: signedUp.organizationId,
      user_id: signedUp.userId,
      public_key: sessionKey.publicKey,
    });
    // The token logs in once.
    const again = await attestedLogin(sessionKey, signUpToken, signedUp.organizationId);
    expect(again.status).toBe(400);
    expect(again.message).toContain('verification token has already been used');

    // A later login (`completeOtp` → `verifyOtp` → `loginWithOtp`): a new code, the account
    // found by the proof of the contact, STAMP_LOGIN on the public API.
    const loginKey = generateApiKeyPair();
    const loginToken = await verified(email, loginKey);
    expect(decodeVerificationToken(loginToken).public_key).toBe(loginKey.publicKey);
    const account = await proxy.proxyGetAccount({
      filterType: 'EMAIL',
      filterValue: email,
      verificationToken: loginToken,
    });
    expect(account).toEqual({ organizationId: signedUp.organizationId });
    const login = await attestedLogin(loginKey, loginToken, signedUp.organizationId);
    expect(login.status).toBe(200);
    const session = login.session!;
    expect(await verifySessionJwtSignature(session, kh.server.keyhold.notarizerPublicKey)).toBe(
      true,
    );
    expect(sessionClaims(session)).toMatchObject({
      organization_id: signedUp.organizationId,
      user_id: signedUp.userId,
      public_key: loginKey.publicKey,
    });

    const asUser = sdkClient(kh.server.url, signedUp.organizationId, loginKey);
    const wallet = await asUser.createWallet({
      walletName: 'main',
      accounts: DEFAULT_ETHEREUM_ACCOUNTS,
    });
    expect(wallet.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(wallet.addresses[0]).toMatch(/^0x[0-9a-fA-F]{40}$/);
  });

  it('otp_login_v2: the session of the contact’s account; the token is used once', async () => {
    const email = 'otp.login@example.com';
    const device = generateApiKeyPair();
    const created = await kh.client.createSubOrganization({
      subOrganizationName: 'otp login user',
      rootUsers: [
        {
          userName: 'otp',
          userEmail: email,
          apiKeys: [
            { apiKeyName: 'device', publicKey: device.publicKey, curveType: 'API_KEY_CURVE_P256' },
          ],
          authenticators: [],
          oauthProviders: [],
        },
      ],
      rootQuorumThreshold: 1,
    });
    const key = generateApiKeyPair();
    const token = await verified(email, key);
    const { message } = getClientSignatureMessageForLogin({ verificationToken: token });
    const request = {
      verificationToken: token,
      publicKey: key.publicKey,
      clientSignature: clientSignatureFor(key, message),
    };
    const { session } = await proxyClient().proxyOtpLoginV2(request);
    expect(JSON.parse(atob(session.split('.')[1]!))).toMatchObject({
      organization_id: created.subOrganizationId,
      public_key: key.publicKey,
    });
    const wallet = await sdkClient(kh.server.url, created.subOrganizationId, key).createWallet({
      walletName: 'w',
      accounts: DEFAULT_ETHEREUM_ACCOUNTS,
    });
    expect(wallet.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');

    // The same token again: refused, nothing stored.
    const before = await footprint();
    const replay = await post('otp_login_v2', request);
    expect(replay.status).toBe(400);
    expect(replay.body.message).toContain('verification token has already been used');
    expect(await footprint()).toEqual(before);
  });

  it('oauth_login with a token whose nonce binds the key; a token for another key is refused', async () => {
    const created = await kh.client.createSubOrganization({
      subOrganizationName: 'oauth user',
      rootUsers: [
        {
          userName: 'bob',
          apiKeys: [],
          authenticators: [],
          oauthProviders: [
            {
              providerName: 'Local OP',
              oidcToken: await op.idToken({ clientId: APP, sub: 'bob' }),
            },
          ],
        },
      ],
      rootQuorumThreshold: 1,
    });
    const key = generateApiKeyPair();
    const oidcToken = await op.idToken({
      clientId: APP,
      sub: 'bob',
      nonce: nonceOf(key.publicKey),
    });
    const proxy = proxyClient();
    expect(
      await proxy.proxyGetAccount({ filterType: 'OIDC_TOKEN', filterValue: oidcToken }),
    ).toEqual({
      organizationId: created.subOrganizationId,
    });
    // What core asks before linking a provider (`addOauthProvider`): the identity's account.
    const claims = JSON.parse(atob(oidcToken.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/')));
    expect(
      await proxy.proxyGetAccount({
        filterType: 'OIDC_CLAIMS',
        filterValue: JSON.stringify({ iss: claims.iss, sub: claims.sub, aud: claims.aud }),
      }),
    ).toEqual({ organizationId: created.subOrganizationId });
    expect(
      await proxy.proxyGetAccount({
        filterType: 'OIDC_CLAIMS',
        filterValue: JSON.stringify({ iss: claims.iss, sub: 'nobody', aud: claims.aud }),
      }),
    ).toEqual({});
    const { session } = await proxy.proxyOAuthLogin({ oidcToken, publicKey: key.publicKey });
    expect(JSON.parse(atob(session.split('.')[1]!))).toMatchObject({
      organization_id: created.subOrganizationId,
      public_key: key.publicKey,
    });

    const other = generateApiKeyPair();
    const before = await footprint();
    const { apiKeys: keysBefore } = await kh.client.getApiKeys({
      organizationId: created.subOrganizationId,
    });
    const refused = await post('oauth_login', { oidcToken, publicKey: other.publicKey });
    expect(refused.status).toBe(400);
    expect(typeof refused.body.message).toBe('string');
    expect(refused.body.code).toBe(3);
    expect(await footprint()).toEqual(before);
    const { apiKeys: keysAfter } = await kh.client.getApiKeys({
      organizationId: created.subOrganizationId,
    });
    expect(keysAfter).toEqual(keysBefore);
    // A forged token (not signed by a trusted issuer) finds no account.
    const forged = `${oidcToken.split('.').slice(0, 2).join('.')}.AAAA`;
    const lookup = await post('account', { filterType: 'OIDC_TOKEN', filterValue: forged });
    expect(lookup.status).toBe(400);
    expect(lookup.body.message).toBe('invalid OIDC token');
  });

  it('refuses an unknown config id, a disabled proxy and a disallowed origin; storing nothing', async () => {
    const before = await footprint();
    const init = { otpType: 'OTP_TYPE_EMAIL', contact: 'someone@example.com' };
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-config']) {
      const unknown = await post('otp_init_v2', init, { 'x-auth-proxy-config-id': id });
      expect(unknown.status).toBe(404);
      expect(unknown.body).toMatchObject({ code: 5, message: 'auth proxy config not found' });
    }
    const missing = await fetch(`${authProxyUrl}/v1/wallet_kit_config`, { method: 'POST' });
    expect(missing.status).toBe(404);
    // core's client surfaces the Status body.
    const viaCore = await rejection(
      proxyClient('00000000-0000-4000-8000-000000000000').proxyInitOtpV2(init),
    );
    expect(viaCore.message).toContain('auth proxy config not found');

    const foreign = await post('otp_init_v2', init, { origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    expect(foreign.body.message).toBe('origin not allowed');
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
    const allowed = await post('wallet_kit_config', {}, { origin: ORIGIN });
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    const preflight = await fetch(`${authProxyUrl}/v1/otp_init_v2`, {
      method: 'OPTIONS',
      headers: { origin: ORIGIN, 'access-control-request-headers': 'x-auth-proxy-config-id' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toContain(
      'x-auth-proxy-config-id',
    );

    const sms = await post('otp_init_v2', { otpType: 'OTP_TYPE_SMS', contact: '+15555550100' });
    expect(sms.status).toBe(403);
    expect(sms.body.message).toBe('auth method not enabled');

    for (const bad of ['{', '[]']) {
      const answer = await post('otp_init_v2', bad);
      expect(answer.status).toBe(400);
      expect(answer.body.message).toBe('bad request body');
    }
    expect((await post('no_such_route', {})).status).toBe(404);
    expect(await footprint()).toEqual(before);

    await kh.embedded.run('ACTIVITY_TYPE_DISABLE_AUTH_PROXY', {});
    try {
      const disabled = await post('wallet_kit_config', {});
      expect(disabled.status).toBe(404);
      expect(disabled.body.message).toBe('auth proxy config not found');
    } finally {
      await kh.embedded.run('ACTIVITY_TYPE_ENABLE_AUTH_PROXY', {});
    }
  });

  it('refuses a wrong code, a replayed code, and a lookup by contact without its proof', async () => {
    const contact = 'carol@example.com';
    const key = generateApiKeyPair();
    const proxy = proxyClient();
    const { otpId, otpEncryptionTargetBundle } = await proxy.proxyInitOtpV2({
      otpType: 'OTP_TYPE_EMAIL',
      contact,
    });
    const code = codeFor(contact);
    const wrongCode = code === '000000' ? '111111' : '000000';
    const tls = kh.server.keyhold.tlsFetcherSignPublicKey;
    const wrong = await post('otp_verify_v2', {
      otpId,
      encryptedOtpBundle: await encryptOtpCodeToBundle(
        wrongCode,
        otpEncryptionTargetBundle,
        key.publicKey,
        tls,
      ),
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toBe('Invalid OTP code');
    const bundle = await encryptOtpCodeToBundle(
      code,
      otpEncryptionTargetBundle,
      key.publicKey,
      tls,
    );
    const { verificationToken } = await proxy.proxyVerifyOtpV2({
      otpId,
      encryptedOtpBundle: bundle,
    });
    const replayed = await post('otp_verify_v2', { otpId, encryptedOtpBundle: bundle });
    expect(replayed.status).toBe(400);
    expect(replayed.body.message).toContain('OTP has already been used');

    // Whether an address has an account is told only to whoever proved it.
    const noProof = await post('account', {
      filterType: 'EMAIL',
      filterValue: 'new.user@example.com',
    });
    expect(noProof.status).toBe(400);
    expect(noProof.body.message).toBe('invalid verification token');
    const otherContact = await post('account', {
      filterType: 'EMAIL',
      filterValue: 'new.user@example.com',
      verificationToken,
    });
    expect(otherContact.status).toBe(400);
    expect(otherContact.body.message).toBe('invalid verification token');
  });

  it('limits codes per contact and per client address, before anything is sent', async () => {
    const contact = 'dave@example.com';
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      statuses.push((await post('otp_init_v2', { otpType: 'OTP_TYPE_EMAIL', contact })).status);
    }
    expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
    const sent = mailbox.received.length;
    const limited = await post('otp_init_v2', { otpType: 'OTP_TYPE_EMAIL', contact });
    expect(limited.status).toBe(429);
    expect(limited.body.message).toBe('Max number of OTPs have been initiated');
    expect(mailbox.received.length).toBe(sent);

    // Ten codes per address in ten minutes, whatever the contacts (some were sent above).
    const answers: number[] = [];
    for (let i = 0; i < 10; i++) {
      answers.push(
        (await post('otp_init_v2', { otpType: 'OTP_TYPE_EMAIL', contact: `user${i}@example.com` }))
          .status,
      );
    }
    expect(answers.at(-1)).toBe(429);
    expect(answers.every((s) => s === 200 || s === 429)).toBe(true);
  });
});

describe('the auth proxy on the Koa adapter and embedded PGlite, and its V1 routes', () => {
  let kh: TurnkeyServer;
  let mailbox: SmtpMailbox;
  let configId: string;

  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${kh.server.authProxyUrl}/v1/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-auth-proxy-config-id': configId },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  beforeAll(async () => {
    mailbox = await startSmtpMailbox({ username: 'keyhold', password: 's3cret' });
    kh = await startTurnkeyServer({
      ...(await STORE_TARGETS.find(([name]) => name === 'embedded PGlite')![1]()),
      http: 'koa',
      // The operator's own limit: one code per contact per minute.
      authProxyLimits: { otpPerContact: { limit: 1, periodMs: 60_000 } },
      notifier: smtpNotifier({ url: mailbox.url, from: 'login@keyhold.test', timeoutMs: 2000 }),
    });
    await kh.embedded.run('ACTIVITY_TYPE_ENABLE_AUTH_PROXY', {});
    ({ configId } = await kh.embedded.run<{ configId: string }>(
      'ACTIVITY_TYPE_UPDATE_AUTH_PROXY_CONFIG',
      { otpLength: 7, otpAlphanumeric: false },
    ));
  });
  afterAll(async () => {
    await kh?.server.close();
    await mailbox?.close();
    await closeStoreTargets();
  });

  it('serves wallet_kit_config with the defaults of an unset config', async () => {
    expect(await getAuthProxyConfig(configId, kh.server.authProxyUrl)).toEqual({
      enabledProviders: [],
      sessionExpirationSeconds: '900',
      organizationId: kh.organizationId,
      otpAlphanumeric: false,
      otpLength: '7',
    });
  });

  it('otp_init answers only the id; otp_verify takes the code as typed; otp_login V1 and signup V1', async () => {
    const email = 'v1@example.com';
    const key = generateApiKeyPair();
    const init = await post('otp_init', { otpType: 'OTP_TYPE_EMAIL', contact: email });
    expect(init.status).toBe(200);
    expect(Object.keys(init.body)).toEqual(['otpId']);
    const code = mailbox.received.at(-1)!.raw.match(/sign-in code is ([0-9A-Z]{6,9})/)![1]!;
    expect(code).toMatch(/^[0-9]{7}$/);
    const second = await post('otp_init', { otpType: 'OTP_TYPE_EMAIL', contact: email });
    expect(second.status).toBe(429);
    expect(second.body.message).toBe('Max number of OTPs have been initiated');
    const verify = await post('otp_verify', {
      otpId: init.body.otpId,
      otpCode: code,
      publicKey: key.publicKey,
    });
    expect(verify.status).toBe(200);
    const token = verify.body.verificationToken as string;
    const signedUp = await post('signup', {
      userEmail: email,
      verificationToken: token,
      clientSignature: clientSignatureFor(
        key,
        getClientSignatureMessageForSignup({ verificationToken: token, email }).message,
      ),
      apiKeys: [],
      authenticators: [],
      oauthProviders: [],
    });
    expect(signedUp.status).toBe(200);
    const login = await post('otp_login', {
      verificationToken: token,
      publicKey: key.publicKey,
      organizationId: signedUp.body.organizationId,
    });
    expect(login.status).toBe(200);
    expect(sessionClaims(login.body.session as string)).toMatchObject({
      organization_id: signedUp.body.organizationId,
      user_id: signedUp.body.userId,
    });
  });

  it('never answers 5xx, whatever JSON a route is sent (fast-check)', async () => {
    const routes = [
      'wallet_kit_config',
      'wallet_kit_client_params',
      'otp_init',
      'otp_init_v2',
      'otp_verify',
      'otp_verify_v2',
      'otp_login',
      'otp_login_v2',
      'account',
      'signup',
      'signup_v2',
      'oauth_login',
      'oauth2_authenticate',
    ];
    const field = fc.oneof(
      fc.string(),
      fc.constantFrom('OTP_TYPE_EMAIL', 'EMAIL', 'OIDC_TOKEN', 'PUBLIC_KEY', 'a.b.c', ''),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.array(fc.string(), { maxLength: 2 }),
      fc.dictionary(fc.string({ maxLength: 8 }), fc.string(), { maxKeys: 2 }),
    );
    const body = fc.oneof(
      fc.json(),
      fc.record(
        {
          otpType: field,
          contact: field,
          otpId: field,
          otpCode: field,
          encryptedOtpBundle: field,
          verificationToken: field,
          publicKey: field,
          clientSignature: field,
          organizationId: field,
          filterType: field,
          filterValue: field,
          oidcToken: field,
          userEmail: field,
          apiKeys: field,
          wallet: field,
          provider: field,
          clientId: field,
        },
        { requiredKeys: [] },
      ),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...routes), body, async (route, value) => {
        // In process (no client address): the per-address limits do not end the run early.
        const response = await kh.server.keyhold.handle({
          method: 'POST',
          path: `/auth-proxy/v1/${route}`,
          headers: { 'content-type': 'application/json', 'x-auth-proxy-config-id': configId },
          rawBody: new TextEncoder().encode(
            typeof value === 'string' ? value : JSON.stringify(value),
          ),
        });
        expect(response.status, `${route} ${response.body}`).toBeLessThan(500);
        const answer = JSON.parse(response.body);
        if (response.status !== 200) expect(typeof answer.message).toBe('string');
      }),
      { numRuns: 150 },
    );
  }, 60_000);

  it('oauth2_authenticate without a credential for the provider and client id is refused', async () => {
    const refused = await post('oauth2_authenticate', {
      provider: 'OAUTH2_PROVIDER_X',
      authCode: 'code',
      redirectUri: 'https://app.example.com/cb',
      codeVerifier: 'v'.repeat(43),
      nonce: 'n',
      clientId: 'nobody',
    });
    expect(refused.status).toBe(404);
    expect(refused.body.message).toBe('OAuth 2.0 credential not found');
  });
});

describe('the auth proxy with its rate limiter unreachable', () => {
  it('refuses with 503 and Retry-After: 1, sending nothing', async () => {
    const mailbox = await startSmtpMailbox({ username: 'keyhold', password: 's3cret' });
    const kh = await startTurnkeyServer({
      rateLimiter: new RedisRateLimiter({ url: 'redis://127.0.0.1:1' }),
      notifier: smtpNotifier({ url: mailbox.url, from: 'login@keyhold.test', timeoutMs: 2000 }),
    });
    try {
      const response = await fetch(`${kh.server.authProxyUrl}/v1/otp_init_v2`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-auth-proxy-config-id': '00000000-0000-4000-8000-000000000000',
        },
        body: JSON.stringify({ otpType: 'OTP_TYPE_EMAIL', contact: 'x@example.com' }),
      });
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('1');
      expect(await response.json()).toMatchObject({
        code: 14,
        message: 'service unavailable',
        details: [{ errorCode: 'RATE_LIMIT_BACKEND_UNAVAILABLE' }],
      });
      expect(mailbox.received).toHaveLength(0);
    } finally {
      await kh.server.close();
      await mailbox.close();
    }
  });
});

describe('the auth proxy with X (OAuth 2.0 without OIDC)', () => {
  let kh: TurnkeyServer;
  let provider: TestOauth2Provider;
  let configId: string;
  const app = {
    clientId: 'kit-app',
    clientSecret: 'kit-secret-Zq9',
    redirectUri: 'https://app.example.com/oauth/callback',
  };

  beforeAll(async () => {
    provider = await startTestOauth2Provider();
    provider.register(app);
    const endpoints = {
      tokenEndpoint: provider.tokenEndpoint,
      userInfoEndpoint: provider.xUserInfoEndpoint,
    };
    kh = await startTurnkeyServer({
      oauth2: {
        gateway: new HttpOauth2Gateway({
          endpoints: { OAUTH2_PROVIDER_X: endpoints, OAUTH2_PROVIDER_DISCORD: endpoints },
          allowLoopbackHttp: true,
          timeoutMs: 2000,
        }),
      },
      // The tokens OAUTH2_AUTHENTICATE issues name this server (on loopback) as their issuer.
      oidcVerifier: joseOidcVerifier({ allowLoopbackHttp: true }),
    });
    await kh.client.createOauth2Credential({
      provider: 'OAUTH2_PROVIDER_X',
      clientId: app.clientId,
      encryptedClientSecret: await encryptOauth2ClientSecret(
        app.clientSecret,
        kh.server.keyhold.tlsFetcherEncryptPublicKey,
      ),
    });
    await kh.embedded.run('ACTIVITY_TYPE_ENABLE_AUTH_PROXY', {});
    ({ configId } = await kh.embedded.run<{ configId: string }>(
      'ACTIVITY_TYPE_UPDATE_AUTH_PROXY_CONFIG',
      { walletKitSettings: { enabledSocialProviders: ['x'], oauthClientIds: { x: app.clientId } } },
    ));
  });
  afterAll(async () => {
    await kh?.server.close();
    await provider?.close();
  });

  it('oauth2_authenticate → account (none) → signup with the token → oauth_login; a session that makes a wallet', async () => {
    const proxy = new TurnkeyClient({
      apiBaseUrl: kh.server.url,
      authProxyUrl: kh.server.authProxyUrl,
      authProxyConfigId: configId,
      organizationId: kh.organizationId,
    }).createHttpClient();
    const key = generateApiKeyPair();
    const codeVerifier = pkceVerifier();
    const { oidcToken } = await proxy.proxyOAuth2Authenticate({
      provider: 'OAUTH2_PROVIDER_X',
      authCode: await provider.authorize({ client: app, userId: '31337', codeVerifier }),
      redirectUri: app.redirectUri,
      codeVerifier,
      nonce: nonceOf(key.publicKey),
      clientId: app.clientId,
    });
    expect(sessionClaims(oidcToken)).toMatchObject({ sub: 'x:31337', aud: app.clientId });
    expect(
      await proxy.proxyGetAccount({ filterType: 'OIDC_TOKEN', filterValue: oidcToken }),
    ).toEqual({});
    const signedUp = await proxy.proxySignupV2({
      userName: 'x user',
      organizationName: 'x user',
      apiKeys: [],
      authenticators: [],
      oauthProviders: [{ providerName: 'X', oidcToken }],
    });
    expect(
      await proxy.proxyGetAccount({ filterType: 'OIDC_TOKEN', filterValue: oidcToken }),
    ).toEqual({ organizationId: signedUp.organizationId });
    const { session } = await proxy.proxyOAuthLogin({ oidcToken, publicKey: key.publicKey });
    expect(sessionClaims(session)).toMatchObject({
      organization_id: signedUp.organizationId,
      user_id: signedUp.userId,
    });
    const wallet = await sdkClient(kh.server.url, signedUp.organizationId, key).createWallet({
      walletName: 'x wallet',
      accounts: [
        {
          curve: 'CURVE_ED25519',
          pathFormat: 'PATH_FORMAT_BIP32',
          path: "m/44'/501'/0'/0'",
          addressFormat: 'ADDRESS_FORMAT_SOLANA',
        },
      ],
    });
    expect(wallet.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
  });
});

/**
 * The HTTP gateway against a real OAuth 2.0 server on loopback (`@node-oauth/oauth2-server`):
 * the code exchange with PKCE and Basic client authentication, and the who-am-I of X and
 * Discord; a wrong code, verifier, secret or redirect URI is a refusal naming the OAuth error;
 * an absent, slow or oversized provider is unavailability; http:// only to loopback and only
 * when allowed.
 */
import {
  Oauth2ExchangeRefusedError,
  type Oauth2ProviderName,
  Oauth2ProviderUnavailableError,
} from '@keyhold/activities';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  HttpOauth2Gateway,
  oauth2ProviderOf,
  parseOauth2EndpointUrl,
} from './http-oauth2-gateway.js';
import {
  pkceVerifier,
  startTestOauth2Provider,
  type TestOauth2Provider,
} from './testing/oauth2-provider.js';

let provider: TestOauth2Provider;
const client = {
  clientId: 'keyhold-app',
  clientSecret: 'an app secret: with spaces & symbols',
  redirectUri: 'https://app.example/callback',
};
const gatewayFor = (p: TestOauth2Provider, options: { timeoutMs?: number } = {}) =>
  new HttpOauth2Gateway({
    endpoints: {
      OAUTH2_PROVIDER_X: { tokenEndpoint: p.tokenEndpoint, userInfoEndpoint: p.xUserInfoEndpoint },
      OAUTH2_PROVIDER_DISCORD: {
        tokenEndpoint: p.tokenEndpoint,
        userInfoEndpoint: p.discordUserInfoEndpoint,
      },
    },
    allowLoopbackHttp: true,
    ...options,
  });

beforeAll(async () => {
  provider = await startTestOauth2Provider();
  provider.register(client);
});
afterAll(() => provider.close());

const exchangeOf = async (provider_: Oauth2ProviderName, userId: string, withPkce = true) => {
  const codeVerifier = withPkce ? pkceVerifier() : undefined;
  const authCode = await provider.authorize({ client, userId, codeVerifier });
  return {
    provider: provider_,
    clientId: client.clientId,
    clientSecret: client.clientSecret,
    authCode,
    redirectUri: client.redirectUri,
    ...(codeVerifier ? { codeVerifier } : {}),
  };
};

describe('HttpOauth2Gateway', () => {
  it('exchanges a code (PKCE, Basic client auth) and reads the X and Discord user ids', async () => {
    const gateway = gatewayFor(provider);
    const x = await gateway.authenticate(await exchangeOf('OAUTH2_PROVIDER_X', '123456789'));
    expect(x.userId).toBe('123456789');
    expect(x.accessToken).toMatch(/^[0-9a-f]{40,}$/);
    const request = provider.tokenRequests.at(-1)!;
    expect(request.basicClientId).toBe(client.clientId);
    expect(request.form).toMatchObject({
      grant_type: 'authorization_code',
      redirect_uri: client.redirectUri,
      client_id: client.clientId,
    });
    expect(request.form.code_verifier).toHaveLength(43);
    const discord = await gateway.authenticate(
      await exchangeOf('OAUTH2_PROVIDER_DISCORD', '80351110224678912', false),
    );
    expect(discord.userId).toBe('80351110224678912');
    expect(provider.tokenRequests.at(-1)!.form.code_verifier).toBeUndefined();
  });

  it('a used code, a wrong verifier, secret or redirect URI is refused with the OAuth error', async () => {
    const gateway = gatewayFor(provider);
    const refusal = (promise: Promise<unknown>) =>
      promise.then(
        () => undefined,
        (e: unknown) => e,
      );
    const used = await exchangeOf('OAUTH2_PROVIDER_X', '1');
    await gateway.authenticate(used);
    const again = await refusal(gateway.authenticate(used));
    expect(again).toBeInstanceOf(Oauth2ExchangeRefusedError);
    expect((again as Oauth2ExchangeRefusedError).error).toBe('invalid_grant');
    const wrongVerifier = await refusal(
      gateway.authenticate({
        ...(await exchangeOf('OAUTH2_PROVIDER_X', '1')),
        codeVerifier: pkceVerifier(),
      }),
    );
    expect((wrongVerifier as Oauth2ExchangeRefusedError).error).toBe('invalid_grant');
    const wrongSecret = await refusal(
      gateway.authenticate({ ...(await exchangeOf('OAUTH2_PROVIDER_X', '1')), clientSecret: 'no' }),
    );
    expect((wrongSecret as Oauth2ExchangeRefusedError).error).toBe('invalid_client');
    const wrongRedirect = await refusal(
      gateway.authenticate({
        ...(await exchangeOf('OAUTH2_PROVIDER_X', '1')),
        redirectUri: 'https://evil.example/cb',
      }),
    );
    expect(wrongRedirect).toBeInstanceOf(Oauth2ExchangeRefusedError);
    // Never the secret or the code in what the error says.
    for (const error of [again, wrongVerifier, wrongSecret, wrongRedirect]) {
      expect(String(error)).not.toContain(client.clientSecret);
      expect(String(error)).not.toContain(used.authCode);
    }
  });

  it('an absent, slow or oversized provider is unavailability', async () => {
    const absent = new HttpOauth2Gateway({
      endpoints: {
        OAUTH2_PROVIDER_X: {
          tokenEndpoint: 'http://127.0.0.1:1/token',
          userInfoEndpoint: 'http://127.0.0.1:1/me',
        },
      },
      allowLoopbackHttp: true,
    });
    const exchange = await exchangeOf('OAUTH2_PROVIDER_X', '1');
    await expect(absent.authenticate(exchange)).rejects.toThrow(Oauth2ProviderUnavailableError);
    provider.mode = { kind: 'slow', delayMs: 1_000 };
    try {
      const started = Date.now();
      await expect(gatewayFor(provider, { timeoutMs: 200 }).authenticate(exchange)).rejects.toThrow(
        /no answer within 200 ms/,
      );
      expect(Date.now() - started).toBeLessThan(900);
    } finally {
      provider.mode = { kind: 'normal' };
    }
    provider.mode = { kind: 'huge' };
    try {
      await expect(
        gatewayFor(provider).authenticate(await exchangeOf('OAUTH2_PROVIDER_X', '1')),
      ).rejects.toThrow(/more than 65536 bytes/);
    } finally {
      provider.mode = { kind: 'normal' };
    }
  });

  it('takes https:// endpoints, and http:// only to loopback when allowed', () => {
    expect(() => parseOauth2EndpointUrl('https://api.x.com/2/oauth2/token')).not.toThrow();
    expect(() => parseOauth2EndpointUrl('http://127.0.0.1:9/token')).toThrow(/development/);
    expect(() =>
      parseOauth2EndpointUrl('http://127.0.0.1:9/token', { allowLoopbackHttp: true }),
    ).not.toThrow();
    expect(() =>
      parseOauth2EndpointUrl('http://10.0.0.1/token', { allowLoopbackHttp: true }),
    ).toThrow(/https/);
    expect(() => parseOauth2EndpointUrl('https://u:p@x.example/token')).toThrow(/credentials/);
    expect(
      () =>
        new HttpOauth2Gateway({ endpoints: { OAUTH2_PROVIDER_X: { tokenEndpoint: 'ftp://x' } } }),
    ).toThrow();
    expect(oauth2ProviderOf('x')).toBe('OAUTH2_PROVIDER_X');
    expect(oauth2ProviderOf('OAUTH2_PROVIDER_DISCORD')).toBe('OAUTH2_PROVIDER_DISCORD');
    expect(() => oauth2ProviderOf('github')).toThrow(/expected x or discord/);
  });
});

/**
 * `keyhold serve --oauth2-token-endpoint x=URL --oauth2-userinfo-endpoint x=URL` as a user
 * runs it, pointed at a real OAuth 2.0 server (`@node-oauth/oauth2-server`) started here: the
 * listening line's `tlsFetcherEncryptPublicKey` is what `encryptOauth2ClientSecret` encrypts
 * the app's secret to, `@turnkey/sdk-server` creates the credential and runs
 * OAUTH2_AUTHENTICATE with a code the provider issued, and the OIDC token names the server as
 * its issuer, whose discovery document is served; neither the secret nor the code reaches the
 * log. A provider name or URL the flags do not accept is a usage error.
 */
import { generateApiKeyPair } from '@keyhold/server';
import { encryptOauth2ClientSecret } from '@turnkey/crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The loopback OAuth 2.0 server of the gateway's tests (test-only code, no package export).
import {
  pkceVerifier,
  startTestOauth2Provider,
  type TestOauth2Provider,
} from '../../../adapters/oauth2-http/src/testing/oauth2-provider.js';
import { sdkClient } from '../../server/src/__fixtures__/turnkey-server.js';
import {
  keyholdProcess,
  keyholdServe,
  killKeyholdProcesses,
  listeningLine,
} from './__fixtures__/keyhold-process.js';

let provider: TestOauth2Provider;
const app = {
  clientId: 'serve-app',
  clientSecret: 'serve-secret-7Yw',
  redirectUri: 'https://app.example/cb',
};

beforeAll(async () => {
  provider = await startTestOauth2Provider();
  provider.register(app);
});
afterAll(async () => {
  killKeyholdProcesses();
  await provider.close();
});

describe('keyhold serve --oauth2-token-endpoint', () => {
  it('exchanges codes at the given provider; the token names this server as issuer', async () => {
    const root = generateApiKeyPair();
    const run = keyholdServe(root, [
      '--oauth2-token-endpoint',
      `x=${provider.tokenEndpoint}`,
      '--oauth2-userinfo-endpoint',
      `x=${provider.xUserInfoEndpoint}`,
    ]);
    const line = await listeningLine(run);
    expect(line.tlsFetcherEncryptPublicKey).toMatch(/^04[0-9a-f]{128}$/);
    const api = sdkClient(line.url, line.organizationId, root);
    const { oauth2CredentialId } = await api.createOauth2Credential({
      provider: 'OAUTH2_PROVIDER_X',
      clientId: app.clientId,
      encryptedClientSecret: await encryptOauth2ClientSecret(
        app.clientSecret,
        line.tlsFetcherEncryptPublicKey,
      ),
    });
    const codeVerifier = pkceVerifier();
    const authCode = await provider.authorize({ client: app, userId: '2244994945', codeVerifier });
    const { oidcToken } = await api.oauth2Authenticate({
      oauth2CredentialId,
      authCode,
      redirectUri: app.redirectUri,
      codeVerifier,
      nonce: 'a'.repeat(64),
    });
    const claims = JSON.parse(Buffer.from(oidcToken.split('.')[1]!, 'base64url').toString());
    expect(claims).toMatchObject({
      iss: `${line.url}/keyhold/v1/oauth2`,
      aud: app.clientId,
      sub: 'x:2244994945',
    });
    const discovery = await (await fetch(`${claims.iss}/.well-known/openid-configuration`)).json();
    expect(discovery).toMatchObject({ issuer: claims.iss, jwks_uri: `${claims.iss}/jwks` });

    run.child.kill('SIGTERM');
    expect(await run.exit()).toBe(0);
    expect(run.stderr()).not.toContain(app.clientSecret);
    expect(run.stderr()).not.toContain(authCode);
  });

  it.concurrent.each([
    [
      ['--oauth2-token-endpoint', 'github=https://github.com/login/oauth/access_token'],
      'unknown OAuth 2.0 provider "github"',
    ],
    [['--oauth2-token-endpoint', 'https://api.x.com/2/oauth2/token'], 'must be PROVIDER=URL'],
    [['--oauth2-userinfo-endpoint', 'x=ftp://x.example/me'], 'must be https://'],
    [
      ['--env', 'production', '--oauth2-token-endpoint', 'x=http://127.0.0.1:9/token'],
      'allowed only in development',
    ],
    [['--oauth2-issuer', 'not a url'], '--oauth2-issuer must be an http(s):// URL'],
  ])('usage error: %j', async (flags, message) => {
    const run = keyholdProcess(['serve', '--memory', '--port', '0', ...flags]);
    expect(await run.exit()).toBe(2);
    expect(run.stderr()).toContain('keyhold serve: ');
    expect(run.stderr()).toContain(message);
  });
});

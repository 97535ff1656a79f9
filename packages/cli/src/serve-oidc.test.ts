/**
 * `keyhold serve --oidc-issuer URL` as a user runs it, with a real OpenID Provider
 * (`oidc-provider`) on loopback: a sub-organization's root user created with an OAuth provider
 * from that issuer logs in through OAUTH_LOGIN sent by the parent's backend
 * (`@turnkey/sdk-server`); a token of another issuer, not on the list, is refused. A bad
 * `--oidc-issuer` is a usage error, and loopback http is refused in production.
 */
import { generateApiKeyPair } from '@keyhold/server';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { generateP256KeyPair, verifySessionJwtSignature } from '@turnkey/crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The loopback OpenID Provider of the server's tests (test-only code, no package export).
import {
  type LocalOidcIssuer,
  startOidcIssuer,
} from '../../server/src/__fixtures__/oidc-issuer.js';
import { sdkClient } from '../../server/src/__fixtures__/turnkey-server.js';
import {
  keyholdProcess,
  keyholdServe,
  killKeyholdProcesses,
  listeningLine,
} from './__fixtures__/keyhold-process.js';

const nonceOf = (publicKeyHex: string) => bytesToHex(sha256(utf8ToBytes(publicKeyHex)));

let trusted: LocalOidcIssuer;
let other: LocalOidcIssuer;

beforeAll(async () => {
  trusted = await startOidcIssuer([{ clientId: 'app' }]);
  other = await startOidcIssuer([{ clientId: 'app' }]);
});
afterAll(async () => {
  killKeyholdProcesses();
  await trusted.close();
  await other.close();
});

describe('keyhold serve --oidc-issuer', () => {
  it('logs in a user of the trusted issuer; refuses another issuer', async () => {
    const root = generateApiKeyPair();
    const run = keyholdServe(root, ['--oidc-issuer', trusted.issuer]);
    const line = await listeningLine(run);
    const api = sdkClient(line.url, line.organizationId, root);
    const { subOrganizationId, rootUserIds } = await api.createSubOrganization({
      subOrganizationName: 'alice',
      rootUsers: [
        {
          userName: 'alice',
          apiKeys: [],
          authenticators: [],
          oauthProviders: [
            {
              providerName: 'OP',
              oidcToken: await trusted.idToken({ clientId: 'app', sub: 'alice' }),
            },
          ],
        },
      ],
      rootQuorumThreshold: 1,
    });
    const client = generateP256KeyPair();
    const nonce = nonceOf(client.publicKey);
    const { session } = await api.oauthLogin({
      organizationId: subOrganizationId,
      oidcToken: await trusted.idToken({ clientId: 'app', sub: 'alice', nonce }),
      publicKey: client.publicKey,
    });
    expect(await verifySessionJwtSignature(session, line.notarizerPublicKey)).toBe(true);
    expect(JSON.parse(atob(session.split('.')[1]!)).user_id).toBe(rootUserIds![0]);

    const refused = await api
      .oauthLogin({
        organizationId: subOrganizationId,
        oidcToken: await other.idToken({ clientId: 'app', sub: 'alice', nonce }),
        publicKey: client.publicKey,
      })
      .catch((error: Error) => error);
    expect(String(refused)).toContain('invalid OIDC token');
    expect(String(refused)).toContain('not trusted');
  }, 60_000);

  it.each([
    [['--oidc-issuer', 'not a url'], '--oidc-issuer must be a URL'],
    [['--oidc-issuer', 'ftp://issuer.example'], '--oidc-issuer must be https://'],
    [['--oidc-issuer', 'http://issuer.example'], '--oidc-issuer must be https://'],
    [
      ['--env', 'production', '--oidc-issuer', 'http://127.0.0.1:9999'],
      '--oidc-issuer must be https://',
    ],
  ])('usage error: %j', async (flags, message) => {
    const run = keyholdProcess(['serve', '--memory', '--port', '0', ...flags]);
    expect(await run.exit()).toBe(2);
    expect(run.stderr()).toContain('keyhold serve: ');
    expect(run.stderr()).toContain(message);
  });
});

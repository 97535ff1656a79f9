/**
 * The jose OIDC verifier against issuers served here on loopback: a real `oidc-provider`
 * (discovery, JWKS, tokens from its token endpoint) for the accepted path and rotation, and
 * small HTTP servers that misbehave (a discovery document naming another issuer, an oversized
 * or never-finished answer, an error status) for the bounds. The trust rule is checked before
 * anything is fetched.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OidcIssuerUnavailableError, OidcTokenInvalidError } from '@keyhold/activities';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import Provider from 'oidc-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { joseOidcVerifier } from './jose-oidc-verifier.js';

const GRANT = 'urn:keyhold:test:id-token';

/** An HTTP server on loopback answering with `handler`; its base URL. */
async function serve(handler: Parameters<typeof createServer>[1]): Promise<{
  url: string;
  server: Server;
}> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

async function close(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** An ES256 token for `iss` signed with a fresh key (kid `kid`). */
async function tokenFor(iss: string, kid = 'k1', claims: Record<string, unknown> = {}) {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const token = await new SignJWT({ iss, aud: 'app', sub: 'alice', ...claims })
    .setProtectedHeader({ alg: 'ES256', kid })
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(privateKey);
  return { token, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' } };
}

describe('joseOidcVerifier against a real oidc-provider', () => {
  let server: Server;
  let issuer: string;
  let provider: Provider;
  let rotate: () => Promise<void>;

  beforeAll(async () => {
    let current: Provider;
    ({ server, url: issuer } = await serve((req, res) => current.callback()(req, res)));
    rotate = async () => {
      const { privateKey } = await generateKeyPair('ES256', { extractable: true });
      const key = { ...(await exportJWK(privateKey)), kid: crypto.randomUUID(), alg: 'ES256' };
      current = new Provider(issuer, {
        clients: [
          {
            client_id: 'app',
            client_secret: 'secret',
            grant_types: [GRANT],
            response_types: [],
            redirect_uris: [],
            id_token_signed_response_alg: 'ES256',
          },
        ],
        jwks: { keys: [key] },
        findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
        features: { devInteractions: { enabled: false } },
      });
      current.registerGrantType(
        GRANT,
        async (ctx) => {
          const token = new ctx.oidc.provider.IdToken({ sub: 'alice' }, { ctx });
          (token as unknown as { scope: string }).scope = 'openid';
          token.set('nonce', 'n-1');
          ctx.body = { id_token: await token.issue({ use: 'idtoken' }) };
        },
        [],
      );
      provider = current;
    };
    await rotate();
  });
  afterAll(() => close(server));

  const idToken = async () => {
    const response = await fetch(`${issuer}/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from('app:secret').toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ grant_type: GRANT }),
    });
    return ((await response.json()) as { id_token: string }).id_token;
  };

  it('verifies a token: claims with every audience, the nonce', async () => {
    const verifier = joseOidcVerifier({ allowLoopbackHttp: true });
    const claims = await verifier.verify(await idToken(), { now: Date.now() });
    expect(claims).toMatchObject({ iss: issuer, sub: 'alice', aud: ['app'], nonce: 'n-1' });
  });

  it('refuses an expired token (at `now`), and an issuer off the trusted list before fetching', async () => {
    const verifier = joseOidcVerifier({ allowLoopbackHttp: true });
    const token = await idToken();
    await expect(verifier.verify(token, { now: Date.now() + 2 * 3600_000 })).rejects.toThrow(
      /expired/,
    );
    const strict = joseOidcVerifier({
      allowLoopbackHttp: true,
      trustedIssuers: ['https://accounts.example.com'],
    });
    await expect(strict.verify(token, { now: Date.now() })).rejects.toThrow(/not trusted/);
  });

  it('refuses http issuers unless loopback http is allowed', async () => {
    const verifier = joseOidcVerifier();
    await expect(verifier.verify(await idToken(), { now: Date.now() })).rejects.toBeInstanceOf(
      OidcTokenInvalidError,
    );
  });

  it('picks up a rotated key once the cooldown has passed', async () => {
    const verifier = joseOidcVerifier({ allowLoopbackHttp: true, jwksCooldownMs: 200 });
    await verifier.verify(await idToken(), { now: Date.now() });
    await rotate();
    const rotated = await idToken();
    // Within the cooldown the JWKS is not fetched again: the new key is unknown.
    await expect(verifier.verify(rotated, { now: Date.now() })).rejects.toThrow(/no key/);
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect((await verifier.verify(rotated, { now: Date.now() })).sub).toBe('alice');
    expect(provider).toBeDefined();
  });
});

describe('joseOidcVerifier bounds its work', () => {
  it('refuses a discovery document that names another issuer', async () => {
    const { url, server } = await serve((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ issuer: 'https://elsewhere.example', jwks_uri: 'x' }));
    });
    try {
      const { token } = await tokenFor(url);
      await expect(
        joseOidcVerifier({ allowLoopbackHttp: true }).verify(token, { now: Date.now() }),
      ).rejects.toThrow(/names another issuer/);
    } finally {
      await close(server);
    }
  });

  it('an oversized answer, a hanging issuer, an error status and a refused connection are "unavailable"', async () => {
    const big = await serve((_req, res) => res.end('x'.repeat(300 * 1024)));
    const hanging = await serve(() => {});
    const failing = await serve((_req, res) => {
      res.statusCode = 500;
      res.end();
    });
    const gone = await serve(() => {});
    await close(gone.server);
    try {
      const verifier = joseOidcVerifier({ allowLoopbackHttp: true, timeoutMs: 300 });
      for (const [name, url] of [
        ['oversized', big.url],
        ['hanging', hanging.url],
        ['500', failing.url],
        ['refused', gone.url],
      ] as const) {
        const { token } = await tokenFor(url);
        const error = await verifier.verify(token, { now: Date.now() }).catch((e) => e);
        expect(error, name).toBeInstanceOf(OidcIssuerUnavailableError);
      }
    } finally {
      await Promise.all([close(big.server), close(hanging.server), close(failing.server)]);
    }
  });

  it('any HTTPS issuer: not on a private or loopback address, unless the operator named it', async () => {
    const anyIssuer = joseOidcVerifier({ timeoutMs: 300 });
    for (const iss of ['https://10.0.0.1', 'https://localhost:1', 'https://[::1]:1']) {
      const { token } = await tokenFor(iss);
      const error = await anyIssuer.verify(token, { now: Date.now() }).catch((e) => e);
      expect(error, iss).toBeInstanceOf(OidcTokenInvalidError);
      expect(String(error.reason), iss).toMatch(/(private|loopback) address/);
    }
    const gone = await serve(() => {});
    await close(gone.server);
    const named = gone.url.replace('http:', 'https:');
    const { token } = await tokenFor(named);
    const error = await joseOidcVerifier({ trustedIssuers: [named], timeoutMs: 300 })
      .verify(token, { now: Date.now() })
      .catch((e) => e);
    expect(error).toBeInstanceOf(OidcIssuerUnavailableError);
  });

  it('refuses an HMAC token whose key would be the issuer’s public JWK', async () => {
    const signed = await tokenFor('http://127.0.0.1:1');
    const { jwk } = signed;
    const { url, server } = await serve((req, res) => {
      res.setHeader('content-type', 'application/json');
      if (req.url?.endsWith('openid-configuration')) {
        res.end(JSON.stringify({ issuer: url, jwks_uri: `${url}/jwks` }));
      } else res.end(JSON.stringify({ keys: [jwk] }));
    });
    try {
      const hmac = await new SignJWT({ iss: url, aud: 'app', sub: 'alice' })
        .setProtectedHeader({ alg: 'HS256', kid: 'k1' })
        .setExpirationTime('1h')
        .sign(new TextEncoder().encode('a shared secret of 32 bytes or more!'));
      await expect(
        joseOidcVerifier({ allowLoopbackHttp: true }).verify(hmac, { now: Date.now() }),
      ).rejects.toBeInstanceOf(OidcTokenInvalidError);
    } finally {
      await close(server);
    }
  });
});

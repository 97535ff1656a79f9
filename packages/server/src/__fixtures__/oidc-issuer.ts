/**
 * A real OpenID Provider on loopback for the OIDC tests: `oidc-provider` with its discovery
 * document and JWKS, and a test-only grant type (`urn:keyhold:test:id-token`) that issues a
 * real, signed id_token for a subject and nonce at the token endpoint, so a test gets tokens
 * without driving a browser through the authorization-code flow. `rotate()` replaces the
 * signing key (same issuer URL, new `kid`), as a provider's key rotation does.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import Provider from 'oidc-provider';

const GRANT = 'urn:keyhold:test:id-token';

/** An OAuth client of the issuer: the `aud` of the tokens issued to it. */
export interface IssuerClient {
  readonly clientId: string;
  /** The id_token lifetime in seconds (default 3600). */
  readonly ttlSeconds?: number;
}

export interface LocalOidcIssuer {
  /** `http://127.0.0.1:<port>`: the `iss` of its tokens. */
  readonly issuer: string;
  /** A signed id_token for `sub`, issued to `clientId`, with `nonce` when given. */
  idToken(request: { clientId: string; sub: string; nonce?: string }): Promise<string>;
  /** Signs from now on with a new key; the JWKS serves only the new key. */
  rotate(): Promise<void>;
  /** The `kid` of the current signing key. */
  readonly kid: string;
  close(): Promise<void>;
}

async function signingKey(): Promise<JWK> {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk = await exportJWK(privateKey);
  return { ...jwk, kid: `key-${crypto.randomUUID()}`, alg: 'ES256', use: 'sig' };
}

/**
 * Starts an issuer with these clients on a free loopback port.
 * @example
 * const op = await startOidcIssuer([{ clientId: 'wallet-app' }]);
 * const token = await op.idToken({ clientId: 'wallet-app', sub: 'alice', nonce });
 */
export async function startOidcIssuer(clients: readonly IssuerClient[]): Promise<LocalOidcIssuer> {
  let current: Provider | undefined;
  let key: JWK | undefined;
  const server: Server = createServer((req, res) => {
    current!.callback()(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const ttl = new Map(clients.map((c) => [c.clientId, c.ttlSeconds ?? 3600]));

  async function build(): Promise<void> {
    key = await signingKey();
    const provider = new Provider(issuer, {
      clients: clients.map((c) => ({
        client_id: c.clientId,
        client_secret: `secret-of-${c.clientId}`,
        grant_types: [GRANT],
        response_types: [],
        redirect_uris: [],
        id_token_signed_response_alg: 'ES256',
      })),
      jwks: { keys: [key] },
      ttl: { IdToken: (_ctx, _token, client) => ttl.get(client.clientId) ?? 3600 },
      findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
      features: { devInteractions: { enabled: false } },
    });
    provider.registerGrantType(
      GRANT,
      async (ctx) => {
        const { sub, nonce } = ctx.oidc.params as { sub?: string; nonce?: string };
        const token = new ctx.oidc.provider.IdToken({ sub: sub! }, { ctx });
        // The scope that masks the claims (the typings omit the member).
        (token as unknown as { scope: string }).scope = 'openid';
        if (nonce) token.set('nonce', nonce);
        ctx.body = { id_token: await token.issue({ use: 'idtoken' }) };
      },
      ['sub', 'nonce'],
    );
    current = provider;
  }
  await build();

  return {
    issuer,
    get kid() {
      return key!.kid!;
    },
    async idToken({ clientId, sub, nonce }) {
      const body = new URLSearchParams({ grant_type: GRANT, sub, ...(nonce ? { nonce } : {}) });
      const response = await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${clientId}:secret-of-${clientId}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body,
      });
      const answer = (await response.json()) as { id_token?: string; error?: string };
      if (!answer.id_token) throw new Error(`the issuer refused: ${JSON.stringify(answer)}`);
      return answer.id_token;
    },
    rotate: build,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

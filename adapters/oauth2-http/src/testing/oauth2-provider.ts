/**
 * Test-only: a real OAuth 2.0 authorization server on loopback, built on
 * `@node-oauth/oauth2-server` (authorization-code grant with PKCE, client authentication,
 * bearer-token checks are the library's), with X's and Discord's who-am-I shapes on top
 * (`GET /2/users/me` → `{data: {id, username}}`, `GET /api/users/@me` → `{id, username}`).
 * The test plays the browser: `authorize()` asks the authorization endpoint for a code as the
 * signed-in user and reads it off the redirect.
 * @module
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import OAuth2Server from '@node-oauth/oauth2-server';

/** An app registered at the provider. */
export interface TestOauth2Client {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly redirectUri: string;
}

/** A running provider. */
export interface TestOauth2Provider {
  /** `http://127.0.0.1:PORT`. */
  readonly url: string;
  readonly tokenEndpoint: string;
  /** X's who-am-I shape. */
  readonly xUserInfoEndpoint: string;
  /** Discord's who-am-I shape. */
  readonly discordUserInfoEndpoint: string;
  /** Registers an app. */
  register(client: TestOauth2Client): void;
  /**
   * A code for `userId` at `client`, as the browser gets it; with a PKCE challenge (S256)
   * when `codeVerifier` is given.
   */
  authorize(input: {
    client: TestOauth2Client;
    userId: string;
    codeVerifier?: string;
  }): Promise<string>;
  /** Token requests received so far (form fields, Basic credentials decoded). */
  readonly tokenRequests: { form: Record<string, string>; basicClientId?: string }[];
  /** `slow`: every answer waits `delayMs`; `huge`: token answers carry 1 MiB of padding. */
  mode: { kind: 'normal' } | { kind: 'slow'; delayMs: number } | { kind: 'huge' };
  close(): Promise<void>;
}

/** A PKCE verifier (RFC 7636: 43 characters of base64url). */
export function pkceVerifier(): string {
  return randomBytes(32).toString('base64url');
}

const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

type Code = OAuth2Server.AuthorizationCode;
type Token = OAuth2Server.Token;

/**
 * Starts a provider on 127.0.0.1 (a free port).
 * @example
 * const provider = await startTestOauth2Provider();
 * provider.register({ clientId: 'app', clientSecret: 's3cret', redirectUri: 'https://app.example/cb' });
 * const code = await provider.authorize({ client, userId: '123456789', codeVerifier });
 */
export async function startTestOauth2Provider(): Promise<TestOauth2Provider> {
  const clients = new Map<string, TestOauth2Client>();
  const codes = new Map<string, Code>();
  const tokens = new Map<string, Token>();
  const tokenRequests: TestOauth2Provider['tokenRequests'] = [];
  const model: OAuth2Server.AuthorizationCodeModel = {
    async getClient(clientId: string, clientSecret: string | null) {
      const client = clients.get(clientId);
      if (!client || (clientSecret !== null && clientSecret !== client.clientSecret)) {
        return false as unknown as OAuth2Server.Client;
      }
      return {
        id: client.clientId,
        grants: ['authorization_code'],
        redirectUris: [client.redirectUri],
      };
    },
    async saveAuthorizationCode(code, client, user) {
      const saved = { ...code, client, user } as Code;
      codes.set(code.authorizationCode, saved);
      return saved;
    },
    async getAuthorizationCode(code) {
      return codes.get(code) as Code;
    },
    async revokeAuthorizationCode(code) {
      return codes.delete(code.authorizationCode);
    },
    async saveToken(token, client, user) {
      const saved = { ...token, client, user } as Token;
      tokens.set(token.accessToken, saved);
      return saved;
    },
    async getAccessToken(accessToken) {
      return tokens.get(accessToken) as Token;
    },
    async validateScope(_user, _client, scope) {
      return scope ?? ['users.read'];
    },
    async verifyScope() {
      return true;
    },
  };
  const oauth = new OAuth2Server({ model, allowEmptyState: true });
  const provider = {
    mode: { kind: 'normal' } as TestOauth2Provider['mode'],
  };

  const readBody = async (request: IncomingMessage) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    return Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
  };
  const send = (response: ServerResponse, out: OAuth2Server.Response) => {
    response.writeHead(out.status ?? 200, out.headers as Record<string, string>);
    response.end(out.body === undefined ? '' : JSON.stringify(out.body));
  };
  const libraryRequest = (request: IncomingMessage, body: Record<string, string>, url: URL) =>
    new OAuth2Server.Request({
      method: request.method ?? 'GET',
      headers: request.headers as Record<string, string>,
      query: Object.fromEntries(url.searchParams),
      body,
    });

  const server: Server = createServer(async (request, response) => {
    try {
      if (provider.mode.kind === 'slow') {
        await new Promise((resolve) =>
          setTimeout(resolve, (provider.mode as { delayMs: number }).delayMs),
        );
      }
      const url = new URL(request.url ?? '/', 'http://127.0.0.1');
      const body = await readBody(request);
      const out = new OAuth2Server.Response();
      if (url.pathname === '/authorize') {
        const userId = url.searchParams.get('test_user') ?? '';
        await oauth
          .authorize(libraryRequest(request, body, url), out, {
            authenticateHandler: { handle: () => ({ id: userId }) },
          })
          .catch(() => {});
        return send(response, out);
      }
      if (url.pathname === '/token') {
        const basic = /^Basic (.+)$/.exec(request.headers.authorization ?? '')?.[1];
        const basicClientId = basic
          ? decodeURIComponent(Buffer.from(basic, 'base64').toString('utf8').split(':')[0]!)
          : undefined;
        tokenRequests.push({ form: body, ...(basicClientId ? { basicClientId } : {}) });
        await oauth.token(libraryRequest(request, body, url), out).catch(() => {});
        if (provider.mode.kind === 'huge' && out.status === 200) {
          out.body = { ...out.body, padding: 'x'.repeat(1024 * 1024) };
        }
        return send(response, out);
      }
      if (url.pathname === '/2/users/me' || url.pathname === '/api/users/@me') {
        const token = await oauth
          .authenticate(libraryRequest(request, body, url), out)
          .catch(() => undefined);
        if (!token) return send(response, out);
        const user = { id: String(token.user.id), username: `user-${token.user.id}` };
        response.writeHead(200, { 'content-type': 'application/json' });
        return response.end(JSON.stringify(url.pathname === '/2/users/me' ? { data: user } : user));
      }
      response.writeHead(404).end();
    } catch (error) {
      response.writeHead(500).end(String(error));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return Object.assign(provider, {
    url,
    tokenEndpoint: `${url}/token`,
    xUserInfoEndpoint: `${url}/2/users/me`,
    discordUserInfoEndpoint: `${url}/api/users/@me`,
    tokenRequests,
    register(client: TestOauth2Client) {
      clients.set(client.clientId, client);
    },
    async authorize(input: { client: TestOauth2Client; userId: string; codeVerifier?: string }) {
      const query = new URLSearchParams({
        response_type: 'code',
        client_id: input.client.clientId,
        redirect_uri: input.client.redirectUri,
        state: randomBytes(8).toString('hex'),
        scope: 'users.read',
        test_user: input.userId,
      });
      if (input.codeVerifier) {
        query.set('code_challenge', s256(input.codeVerifier));
        query.set('code_challenge_method', 'S256');
      }
      const answer = await fetch(`${url}/authorize?${query}`, { redirect: 'manual' });
      const location = answer.headers.get('location');
      const code = location ? new URL(location).searchParams.get('code') : null;
      if (!code) throw new Error(`no code: HTTP ${answer.status} ${await answer.text()}`);
      return code;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

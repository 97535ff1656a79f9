/**
 * The Oauth2Gateway port over HTTPS. For each provider: one `POST` to its token endpoint
 * (RFC 6749 §4.1.3: `grant_type=authorization_code`, `code`, `redirect_uri`, `client_id`, and
 * `code_verifier` when PKCE was used; the client authenticates with HTTP Basic), then
 * one `GET` of its who-am-I endpoint with the bearer token (X: `data.id` of
 * `GET /2/users/me`; Discord: `id` of `GET /api/users/@me`).
 *
 * Bounded: each call has `timeoutMs` (default 10 s) for the whole answer, reads at most
 * `maxResponseBytes` (default 64 KiB) of it, and follows no redirect. Endpoints are `https://`;
 * `http://` only to a loopback host, and only with `allowLoopbackHttp` (development: a local
 * provider in tests or when self-hosting one).
 * @module
 */
import {
  type Oauth2CodeExchange,
  Oauth2ExchangeRefusedError,
  type Oauth2Gateway,
  type Oauth2Identity,
  type Oauth2ProviderName,
  Oauth2ProviderNotConfiguredError,
  Oauth2ProviderUnavailableError,
} from '@keyhold/activities';

/** Where one provider is reached. */
export interface Oauth2ProviderEndpoints {
  /** The token endpoint (authorization-code exchange). */
  readonly tokenEndpoint: string;
  /** The who-am-I endpoint (the user's id, read with the bearer token). */
  readonly userInfoEndpoint: string;
}

/**
 * The providers' public endpoints.
 * @example
 * DEFAULT_OAUTH2_ENDPOINTS.OAUTH2_PROVIDER_X.tokenEndpoint; // 'https://api.x.com/2/oauth2/token'
 */
export const DEFAULT_OAUTH2_ENDPOINTS: Readonly<
  Record<Oauth2ProviderName, Oauth2ProviderEndpoints>
> = {
  OAUTH2_PROVIDER_X: {
    tokenEndpoint: 'https://api.x.com/2/oauth2/token',
    userInfoEndpoint: 'https://api.x.com/2/users/me',
  },
  OAUTH2_PROVIDER_DISCORD: {
    tokenEndpoint: 'https://discord.com/api/oauth2/token',
    userInfoEndpoint: 'https://discord.com/api/users/@me',
  },
};

/** Options of `HttpOauth2Gateway`. */
export interface HttpOauth2GatewayOptions {
  /** Endpoints that replace a provider's defaults (a self-hosted or test provider). */
  readonly endpoints?: Partial<Record<Oauth2ProviderName, Partial<Oauth2ProviderEndpoints>>>;
  /** Accept `http://` endpoints on loopback hosts (development only). Default false. */
  readonly allowLoopbackHttp?: boolean;
  /** How long each call has for its whole answer. Default 10 000 ms. */
  readonly timeoutMs?: number;
  /** The most of an answer that is read; more is a failure. Default 64 KiB. */
  readonly maxResponseBytes?: number;
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Checks an endpoint URL, without connecting: `https://`, or `http://` to a loopback host when
 * `allowLoopbackHttp`; no credentials, no fragment.
 * @throws TypeError naming what is wrong
 * @example
 * parseOauth2EndpointUrl('http://127.0.0.1:9000/token', { allowLoopbackHttp: true });
 */
export function parseOauth2EndpointUrl(
  url: string,
  options: { allowLoopbackHttp?: boolean } = {},
): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError(`not a URL: ${JSON.stringify(url)} (expected https://…)`);
  }
  if (parsed.username || parsed.password || parsed.hash) {
    throw new TypeError('an OAuth 2.0 endpoint URL carries no credentials and no #fragment');
  }
  if (parsed.protocol === 'https:') return parsed;
  if (parsed.protocol === 'http:' && LOOPBACK_HOSTS.has(parsed.hostname)) {
    if (options.allowLoopbackHttp) return parsed;
    throw new TypeError(
      `http:// to ${parsed.hostname} is allowed only in development (use https:// in production)`,
    );
  }
  throw new TypeError(
    `an OAuth 2.0 endpoint must be https:// (http:// only to a loopback host in development), not ${parsed.protocol}//${parsed.host}`,
  );
}

/**
 * The provider a flag names: `x`, `discord`, or the wire name (`OAUTH2_PROVIDER_X`), any case.
 * @throws TypeError for another name
 * @example
 * oauth2ProviderOf('discord'); // 'OAUTH2_PROVIDER_DISCORD'
 */
export function oauth2ProviderOf(name: string): Oauth2ProviderName {
  const upper = name.trim().toUpperCase();
  const wire = upper.startsWith('OAUTH2_PROVIDER_') ? upper : `OAUTH2_PROVIDER_${upper}`;
  if (wire in DEFAULT_OAUTH2_ENDPOINTS) return wire as Oauth2ProviderName;
  throw new TypeError(`unknown OAuth 2.0 provider ${JSON.stringify(name)} (expected x or discord)`);
}

/** An answer read within the bounds. */
interface BoundedAnswer {
  readonly status: number;
  readonly text: string;
}

const jsonOf = (text: string): Record<string, unknown> | undefined => {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
};

/**
 * An Oauth2Gateway that reaches the providers over HTTPS.
 * @example
 * const gateway = new HttpOauth2Gateway({
 *   endpoints: { OAUTH2_PROVIDER_X: { tokenEndpoint: 'http://127.0.0.1:9000/token', userInfoEndpoint: 'http://127.0.0.1:9000/me' } },
 *   allowLoopbackHttp: true,
 * });
 * const { userId } = await gateway.authenticate({ provider: 'OAUTH2_PROVIDER_X', clientId, clientSecret, authCode, redirectUri, codeVerifier });
 */
export class HttpOauth2Gateway implements Oauth2Gateway {
  private readonly endpoints: Readonly<Record<Oauth2ProviderName, { token: URL; userInfo: URL }>>;
  private readonly timeoutMs: number;
  private readonly maxResponseBytes: number;

  constructor(options: HttpOauth2GatewayOptions = {}) {
    const check = (url: string) =>
      parseOauth2EndpointUrl(url, { allowLoopbackHttp: options.allowLoopbackHttp ?? false });
    const endpoints = {} as Record<Oauth2ProviderName, { token: URL; userInfo: URL }>;
    for (const provider of Object.keys(DEFAULT_OAUTH2_ENDPOINTS) as Oauth2ProviderName[]) {
      const chosen = { ...DEFAULT_OAUTH2_ENDPOINTS[provider], ...options.endpoints?.[provider] };
      endpoints[provider] = {
        token: check(chosen.tokenEndpoint),
        userInfo: check(chosen.userInfoEndpoint),
      };
    }
    this.endpoints = endpoints;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.maxResponseBytes = options.maxResponseBytes ?? 64 * 1024;
  }

  async authenticate(exchange: Oauth2CodeExchange): Promise<Oauth2Identity> {
    const endpoints = this.endpoints[exchange.provider];
    if (!endpoints) {
      throw new Oauth2ProviderNotConfiguredError(exchange.provider, 'unknown provider');
    }
    const accessToken = await this.exchangeCode(endpoints.token, exchange);
    return {
      userId: await this.whoAmI(endpoints.userInfo, exchange.provider, accessToken),
      accessToken,
    };
  }

  /** The access token for the code (RFC 6749 §4.1.3, §5.1, §5.2). */
  private async exchangeCode(endpoint: URL, exchange: Oauth2CodeExchange): Promise<string> {
    const form = new URLSearchParams({
      grant_type: 'authorization_code',
      code: exchange.authCode,
      redirect_uri: exchange.redirectUri,
      client_id: exchange.clientId,
    });
    if (exchange.codeVerifier) form.set('code_verifier', exchange.codeVerifier);
    // `id:secret` as the providers and common servers read it (RFC 6749 §2.3.1 would
    // form-encode both first; X's and Discord's ids and secrets are URL-safe, so it is the same).
    const basic = Buffer.from(`${exchange.clientId}:${exchange.clientSecret}`).toString('base64');
    const answer = await this.call(endpoint, 'token endpoint', {
      method: 'POST',
      headers: {
        accept: 'application/json',
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${basic}`,
      },
      body: form.toString(),
    });
    const body = jsonOf(answer.text);
    if (answer.status >= 400) {
      const error = typeof body?.error === 'string' ? body.error.slice(0, 64) : undefined;
      throw new Oauth2ExchangeRefusedError(
        error,
        `the token endpoint answered HTTP ${answer.status}${error ? ` (${error})` : ''}`,
      );
    }
    if (answer.status !== 200) {
      throw new Oauth2ProviderUnavailableError(`the token endpoint answered HTTP ${answer.status}`);
    }
    if (typeof body?.access_token !== 'string' || body.access_token === '') {
      throw new Oauth2ProviderUnavailableError('the token endpoint answered no access_token');
    }
    if (typeof body.token_type === 'string' && body.token_type.toLowerCase() !== 'bearer') {
      throw new Oauth2ProviderUnavailableError(
        `the token endpoint answered a ${body.token_type.slice(0, 32)} token, not a bearer token`,
      );
    }
    return body.access_token;
  }

  /** The provider's id of the token's user. */
  private async whoAmI(
    endpoint: URL,
    provider: Oauth2ProviderName,
    accessToken: string,
  ): Promise<string> {
    const answer = await this.call(endpoint, 'who-am-I endpoint', {
      method: 'GET',
      headers: { accept: 'application/json', authorization: `Bearer ${accessToken}` },
    });
    if (answer.status >= 400) {
      throw new Oauth2ExchangeRefusedError(
        undefined,
        `the who-am-I endpoint answered HTTP ${answer.status} to the issued token`,
      );
    }
    const body = jsonOf(answer.text);
    // X wraps the user in `data`; Discord answers it bare.
    const user = provider === 'OAUTH2_PROVIDER_X' ? body?.data : body;
    const id = (user as { id?: unknown } | undefined)?.id;
    if (answer.status !== 200 || (typeof id !== 'string' && typeof id !== 'number') || id === '') {
      throw new Oauth2ProviderUnavailableError(
        `the who-am-I endpoint answered HTTP ${answer.status} without a user id`,
      );
    }
    return String(id);
  }

  /**
   * One bounded call: `timeoutMs` for the whole answer, at most `maxResponseBytes` read, no
   * redirect followed. Anything that keeps an answer from arriving is unavailability.
   */
  private async call(url: URL, what: string, init: RequestInit): Promise<BoundedAnswer> {
    const signal = AbortSignal.timeout(this.timeoutMs);
    let response: Response;
    try {
      response = await fetch(url, { ...init, redirect: 'manual', signal });
    } catch (error) {
      throw new Oauth2ProviderUnavailableError(`${what}: ${reasonOf(error, this.timeoutMs)}`);
    }
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel().catch(() => {});
      throw new Oauth2ProviderUnavailableError(
        `${what} answered a redirect (HTTP ${response.status}), which is not followed`,
      );
    }
    if (response.status === 429 || response.status >= 500) {
      await response.body?.cancel().catch(() => {});
      throw new Oauth2ProviderUnavailableError(`${what} answered HTTP ${response.status}`);
    }
    const declared = Number(response.headers.get('content-length'));
    if (Number.isFinite(declared) && declared > this.maxResponseBytes) {
      await response.body?.cancel().catch(() => {});
      throw new Oauth2ProviderUnavailableError(
        `${what} answered more than ${this.maxResponseBytes} bytes`,
      );
    }
    const chunks: Uint8Array[] = [];
    let size = 0;
    try {
      const reader = response.body?.getReader();
      while (reader) {
        const { done, value } = await reader.read();
        if (done) break;
        size += value.byteLength;
        if (size > this.maxResponseBytes) {
          await reader.cancel().catch(() => {});
          throw new Oauth2ProviderUnavailableError(
            `${what} answered more than ${this.maxResponseBytes} bytes`,
          );
        }
        chunks.push(value);
      }
    } catch (error) {
      if (error instanceof Oauth2ProviderUnavailableError) throw error;
      throw new Oauth2ProviderUnavailableError(`${what}: ${reasonOf(error, this.timeoutMs)}`);
    }
    return { status: response.status, text: Buffer.concat(chunks).toString('utf8') };
  }
}

/** The transport's reason, without request content. */
function reasonOf(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return `no answer within ${timeoutMs} ms`;
  }
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  if (typeof cause?.code === 'string') return cause.code;
  return error instanceof Error ? error.message : String(error);
}

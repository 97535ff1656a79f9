/**
 * The OAuth 2 gateway port: how OAUTH2_AUTHENTICATE reaches an OAuth 2.0-only provider (X,
 * Discord). The adapter runs the authorization-code exchange at the provider's token endpoint
 * (RFC 6749 §4.1.3, with the PKCE verifier of RFC 7636 when there is one) and asks the
 * provider's who-am-I endpoint for the user's id; the domain turns that id into the OIDC token
 * Keyhold issues. Client secrets, codes and tokens pass through; adapters never log them.
 * @module
 */

/** The OAuth 2.0-only providers of the wire (`v1Oauth2Provider`). */
export type Oauth2ProviderName = 'OAUTH2_PROVIDER_X' | 'OAUTH2_PROVIDER_DISCORD';

/** One authorization-code exchange. */
export interface Oauth2CodeExchange {
  readonly provider: Oauth2ProviderName;
  readonly clientId: string;
  readonly clientSecret: string;
  /** The authorization code the provider gave the end user's browser. */
  readonly authCode: string;
  /** The redirect URI the code was issued for (the provider checks it matches). */
  readonly redirectUri: string;
  /** The PKCE code verifier, when the authorization request carried a challenge. */
  readonly codeVerifier?: string;
}

/** Who the provider says the end user is. */
export interface Oauth2Identity {
  /** The provider's stable id of the user (X's and Discord's numeric id, as a string). */
  readonly userId: string;
  /** The bearer token the provider issued for the code. */
  readonly accessToken: string;
}

/**
 * Exchanges codes. `authenticate` resolves with the user's identity; it rejects with
 * Oauth2ProviderUnavailableError when the provider cannot be reached or answers with a server
 * error or something unreadable (the request answers 503 with Retry-After and stores nothing),
 * with Oauth2ExchangeRefusedError when the provider refuses the exchange (a wrong or used code,
 * a wrong client secret, a redirect URI that does not match), and with
 * Oauth2ProviderNotConfiguredError when this gateway has no endpoint for the provider.
 * @example
 * const { userId } = await gateway.authenticate({ provider: 'OAUTH2_PROVIDER_X', clientId, clientSecret, authCode, redirectUri, codeVerifier });
 */
export interface Oauth2Gateway {
  authenticate(exchange: Oauth2CodeExchange): Promise<Oauth2Identity>;
}

/**
 * The inversify service identifier of the Oauth2Gateway port.
 * @example
 * container.bind(Oauth2Gateway).toConstantValue(new HttpOauth2Gateway());
 */
export const Oauth2Gateway: unique symbol = Symbol.for('keyhold.Oauth2Gateway');

/**
 * The provider could not be reached, timed out, or answered with a server error or an
 * unreadable body. The reason is the transport's, never a secret.
 * @example
 * throw new Oauth2ProviderUnavailableError('connect ECONNREFUSED 127.0.0.1:9000');
 */
export class Oauth2ProviderUnavailableError extends Error {
  constructor(readonly reason: string) {
    super(`OAuth 2.0 provider unavailable: ${reason}`);
    this.name = 'Oauth2ProviderUnavailableError';
  }
}

/**
 * The provider refused: its OAuth 2 `error` code (`invalid_grant`, `invalid_client`, …) when it
 * gave one, and a reason in words.
 * @example
 * throw new Oauth2ExchangeRefusedError('invalid_grant', 'the token endpoint answered 400');
 */
export class Oauth2ExchangeRefusedError extends Error {
  constructor(
    readonly error: string | undefined,
    readonly reason: string,
  ) {
    super(`OAuth 2.0 exchange refused: ${error ?? reason}`);
    this.name = 'Oauth2ExchangeRefusedError';
  }
}

/**
 * No endpoint for this provider (a gateway that serves only some, or none).
 * @example
 * throw new Oauth2ProviderNotConfiguredError('OAUTH2_PROVIDER_X', 'no token endpoint');
 */
export class Oauth2ProviderNotConfiguredError extends Error {
  constructor(
    readonly provider: string,
    readonly reason: string,
  ) {
    super(`OAuth 2.0 provider ${provider} not configured: ${reason}`);
    this.name = 'Oauth2ProviderNotConfiguredError';
  }
}

/**
 * A gateway that reaches no provider: every exchange is refused with
 * Oauth2ProviderNotConfiguredError. What an embedded Keyhold has unless given one.
 * @example
 * await noOauth2Gateway('pass oauth2Gateway to createKeyhold').authenticate(exchange); // rejects
 */
export function noOauth2Gateway(reason: string): Oauth2Gateway {
  return {
    async authenticate(exchange) {
      throw new Oauth2ProviderNotConfiguredError(exchange.provider, reason);
    },
  };
}

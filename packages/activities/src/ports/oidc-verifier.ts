/**
 * The OIDC-verifier port: checks an OpenID Connect id_token the way Turnkey does for OAuth
 * logins (identity-and-payments §B5). The adapter (`@keyhold/oidc-jose`) decides whether the
 * token's issuer is trusted, discovers it (`/.well-known/openid-configuration`), fetches and
 * caches its JWKS, and checks the signature and `exp`. What the claims must match (a stored
 * provider's issuer, audience and subject; the nonce that binds the client's key) is the
 * domain's (`handlers/oidc-token.ts`). The token is never logged nor stored.
 * @module
 */

/** The claims of an id_token whose signature, issuer and expiry the verifier accepted. */
export interface OidcClaims {
  readonly iss: string;
  readonly sub: string;
  /** Every audience the token names (`aud` may be a string or an array). */
  readonly aud: readonly string[];
  /** Epoch seconds. */
  readonly exp: number;
  readonly nonce?: string;
  /** The alternative nonce claim a provider that owns `nonce` may carry (§B5). */
  readonly tknonce?: string;
}

/**
 * Verifies id_tokens. `verify` resolves with the claims of a token whose issuer is trusted,
 * whose signature verifies under a key of the issuer's JWKS and which has not expired at
 * `now` (epoch ms); it rejects with OidcTokenInvalidError for a token that fails any check, and
 * with OidcIssuerUnavailableError when the issuer's discovery document or JWKS cannot be
 * fetched (the request then answers 503 and stores nothing).
 * @example
 * const claims = await verifier.verify(oidcToken, { now: Date.now() });
 * claims.iss; // 'https://accounts.google.com'
 */
export interface OidcVerifier {
  verify(token: string, options: { readonly now: number }): Promise<OidcClaims>;
  /** Releases caches and timers. */
  close?(): Promise<void>;
}

/**
 * The inversify service identifier of the OIDC-verifier port.
 * @example
 * container.bind(OidcVerifier).toConstantValue(joseOidcVerifier({ allowLoopbackHttp: true }));
 */
export const OidcVerifier: unique symbol = Symbol.for('keyhold.OidcVerifier');

/**
 * The token fails a check: not a JWT, an untrusted issuer, a signature no key of the issuer's
 * JWKS verifies, expired. The reason is safe to show the caller; it never quotes the token.
 * @example
 * throw new OidcTokenInvalidError('the token has expired');
 */
export class OidcTokenInvalidError extends Error {
  constructor(readonly reason: string) {
    super(`invalid OIDC token: ${reason}`);
    this.name = 'OidcTokenInvalidError';
  }
}

/**
 * The issuer's discovery document or JWKS could not be fetched (connection refused, timeout,
 * an error status, a response too large).
 * @example
 * throw new OidcIssuerUnavailableError('https://issuer.example', 'connect ECONNREFUSED');
 */
export class OidcIssuerUnavailableError extends Error {
  constructor(
    readonly issuer: string,
    readonly reason: string,
  ) {
    super(`OIDC issuer ${issuer} unavailable: ${reason}`);
    this.name = 'OidcIssuerUnavailableError';
  }
}

/**
 * A verifier that trusts no issuer: every token is refused. What a service has when none was
 * configured.
 * @example
 * await noOidcVerifier().verify(token, { now }); // rejects with OidcTokenInvalidError
 */
export function noOidcVerifier(): OidcVerifier {
  return {
    async verify() {
      throw new OidcTokenInvalidError('this server verifies no OIDC tokens');
    },
  };
}

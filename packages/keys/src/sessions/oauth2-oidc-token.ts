/**
 * The OIDC token OAUTH2_AUTHENTICATE answers (`oauth2AuthenticateResult.oidcToken`): Keyhold,
 * as an "OIDC wrapper" for OAuth 2.0-only providers (X, Discord), issues a short-lived ES256 JWT
 * naming the provider's user — `iss` Keyhold's issuer, `aud` the app's client id, `sub`
 * `<provider>:<provider user id>` (e.g. `x:123456789`), the request's `nonce` echoed, `iat` and
 * `exp` in seconds — signed (standard ES256: P-256 r ‖ s over sha256 of the signing input) by
 * the TLS-fetcher signing key, whose public half is `tlsFetcherSignPublicKey`.
 * @module
 */
import { p256 } from '@noble/curves/nist.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import type { BundleSigner } from '../bundles/signed-envelope.js';

/** The claims of an OAuth 2 OIDC token, camel-cased. */
export interface Oauth2OidcClaims {
  /** The issuer: Keyhold's URL (or the operator's choice). */
  readonly issuer: string;
  /** The OAuth 2 client id of the app (the credential's `clientId`). */
  readonly audience: string;
  /** `<provider>:<id>`, e.g. `x:123456789` or `discord:80351110224678912`. */
  readonly subject: string;
  /** The request's nonce (hex of sha256 of the client's public key), echoed. */
  readonly nonce: string;
  /** Issued at, epoch seconds. */
  readonly issuedAt: number;
  /** Expiry, epoch seconds. */
  readonly expiresAt: number;
  /** The provider's bearer token in a credential bundle, when the request asked for it. */
  readonly encryptedBearerToken?: string;
}

const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');

/**
 * The `kid` of a signing key in the tokens' header and the issuer's JWKS: the first 16 hex
 * digits of sha256 of its uncompressed point.
 * @example
 * oidcKeyIdOf(tlsFetcherSignPublicKey); // 'a1b2c3d4e5f60718'
 */
export function oidcKeyIdOf(publicKeyHex: string): string {
  return bytesToHex(sha256(hexToBytes(publicKeyHex))).slice(0, 16);
}

/**
 * The signed token for `claims`. The header names the key by `kid` (the signer's public key
 * hex is what verifies it).
 * @example
 * const oidcToken = createOauth2OidcToken(claims, tlsFetcher, 'tls-fetcher');
 * await jwtVerify(oidcToken, importJWK(jwkOf(tlsFetcherSignPublicKey)), { issuer, audience }); // jose
 */
export function createOauth2OidcToken(
  claims: Oauth2OidcClaims,
  signer: BundleSigner,
  keyId: string,
): string {
  const header = b64url(utf8ToBytes(JSON.stringify({ alg: 'ES256', typ: 'JWT', kid: keyId })));
  const payload = b64url(
    utf8ToBytes(
      JSON.stringify({
        iss: claims.issuer,
        sub: claims.subject,
        aud: claims.audience,
        nonce: claims.nonce,
        iat: claims.issuedAt,
        exp: claims.expiresAt,
        ...(claims.encryptedBearerToken !== undefined
          ? { encrypted_bearer_token: claims.encryptedBearerToken }
          : {}),
      }),
    ),
  );
  const input = `${header}.${payload}`;
  const signature = p256.sign(sha256(utf8ToBytes(input)), signer.privateKey, { prehash: false });
  return `${input}.${b64url(signature)}`;
}

/**
 * The OIDC-verifier port over `jose`: the token's issuer is checked against the trust rule
 * before anything is fetched, then discovered (`<iss>/.well-known/openid-configuration`, whose
 * `issuer` must be the token's and whose `jwks_uri` obeys the same rule), and the token is
 * verified against the issuer's remote JWKS (`createRemoteJWKSet`): signature (asymmetric
 * algorithms only), `iss`, `exp` and `nbf`.
 *
 * Any HTTPS issuer (no `trustedIssuers`): fetches go to public addresses only (loopback too
 * with `allowLoopbackHttp`), checked when the name is resolved.
 *
 * Bounded work: every fetch has a timeout and a response-size cap and follows no redirect;
 * discovery documents are cached (`discoveryTtlMs`) for at most `maxIssuers` issuers; a JWKS is
 * cached by jose (`jwksCacheMaxAgeMs`) and refetched when a token names a key it does not hold,
 * at most once per `jwksCooldownMs` — how a provider's key rotation is picked up.
 * @module
 */

import { lookup } from 'node:dns/promises';
import {
  type OidcClaims,
  OidcIssuerUnavailableError,
  OidcTokenInvalidError,
  type OidcVerifier,
} from '@keyhold/activities';
import { nonPublicRange } from '@keyhold/webhooks';
import {
  createRemoteJWKSet,
  customFetch,
  decodeJwt,
  errors,
  type JWTPayload,
  jwtVerify,
} from 'jose';

/** How a `joseOidcVerifier` trusts issuers and bounds its work. */
export interface JoseOidcVerifierOptions {
  /**
   * The issuers whose tokens are accepted, exactly as their `iss` claim spells them (a trailing
   * slash is not ignored). Empty or absent: any HTTPS issuer (Turnkey's rule).
   */
  readonly trustedIssuers?: readonly string[];
  /**
   * Accept `http:` issuers and JWKS on loopback hosts (127.0.0.0/8, ::1, localhost): for
   * development and tests, never production. Default false.
   */
  readonly allowLoopbackHttp?: boolean;
  /** Per-fetch timeout. Default 5000 ms. */
  readonly timeoutMs?: number;
  /** Largest discovery document or JWKS read. Default 256 KiB. */
  readonly maxResponseBytes?: number;
  /** How long a discovery document is reused. Default 10 minutes. */
  readonly discoveryTtlMs?: number;
  /** How long a JWKS is reused before it is refetched. Default 10 minutes. */
  readonly jwksCacheMaxAgeMs?: number;
  /**
   * The least time between two JWKS fetches prompted by a key the cache lacks (rotation).
   * Default 30 s.
   */
  readonly jwksCooldownMs?: number;
  /** Issuers whose discovery and JWKS are cached at once. Default 100. */
  readonly maxIssuers?: number;
  /** Leeway for `exp` and `nbf`, in seconds. Default 0. */
  readonly clockToleranceSeconds?: number;
}

/** An issuer discovered: its JWKS resolver, and until when the discovery holds. */
interface IssuerEntry {
  readonly jwks: ReturnType<typeof createRemoteJWKSet>;
  readonly expiresAt: number;
}

/** A fetch that failed for a reason of the network or the server, not of the token. */
class FetchFailure extends Error {}

/** Asymmetric signature algorithms only: an HMAC "signed" by a public JWK would be a forgery. */
const ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
];

const LOOPBACK = /^(127(?:\.\d{1,3}){3}|\[::1\]|localhost)$/i;

/**
 * Whether `url` may be fetched under the trust rule: HTTPS, or HTTP to a loopback host when
 * `allowLoopbackHttp`. No credentials in the URL.
 */
function fetchable(url: URL, allowLoopbackHttp: boolean): boolean {
  if (url.username !== '' || url.password !== '') return false;
  if (url.protocol === 'https:') return true;
  return allowLoopbackHttp && url.protocol === 'http:' && LOOPBACK.test(url.hostname);
}

/**
 * An OidcVerifier over `jose`.
 * @example
 * const verifier = joseOidcVerifier({ trustedIssuers: ['https://accounts.google.com'] });
 * const claims = await verifier.verify(idToken, { now: Date.now() });
 */
export function joseOidcVerifier(options: JoseOidcVerifierOptions = {}): OidcVerifier {
  const trusted = new Set(options.trustedIssuers ?? []);
  const allowLoopbackHttp = options.allowLoopbackHttp ?? false;
  const timeoutMs = options.timeoutMs ?? 5000;
  const maxBytes = options.maxResponseBytes ?? 256 * 1024;
  const discoveryTtlMs = options.discoveryTtlMs ?? 10 * 60 * 1000;
  const maxIssuers = options.maxIssuers ?? 100;
  const issuers = new Map<string, IssuerEntry>();
  const discovering = new Map<string, Promise<IssuerEntry>>();

  /**
   * Where a fetch may go when any HTTPS issuer is trusted: public addresses only (and loopback
   * with `allowLoopbackHttp`), so a token cannot make the server fetch from inside its network.
   * Issuers the operator named are fetched wherever they are. The name is resolved here and
   * again by `fetch`: a name that changes its answer in between is not caught.
   */
  async function checkDestination(url: URL): Promise<void> {
    if (trusted.size > 0) return;
    const host = url.hostname.replace(/^\[|\]$/g, '');
    let addresses = [host];
    if (nonPublicRange(host) === 'not an IP address') {
      try {
        const answers = await Promise.race([
          lookup(host, { all: true }),
          new Promise<never>((_, reject) =>
            setTimeout(() => reject(new Error('timed out')), timeoutMs).unref(),
          ),
        ]);
        addresses = answers.map((a) => a.address);
      } catch (error) {
        throw new FetchFailure(
          `cannot resolve ${host}: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    }
    for (const address of addresses) {
      const range = nonPublicRange(address);
      if (range === undefined || (range === 'loopback' && allowLoopbackHttp)) continue;
      throw new OidcTokenInvalidError(
        `the issuer's ${url.pathname.endsWith('openid-configuration') ? 'discovery document' : 'JWKS'} is on a ${range} address`,
      );
    }
  }

  /** GET `url` with the timeout and the size cap; no redirects. */
  async function boundedFetch(url: string, signal?: AbortSignal): Promise<Response> {
    await checkDestination(new URL(url));
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'GET',
        redirect: 'manual',
        headers: { accept: 'application/json' },
        signal: signal ?? AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      const cause = error instanceof Error ? (error.cause ?? error) : error;
      const reason = cause instanceof Error ? cause.message : String(cause);
      throw new FetchFailure(
        error instanceof Error && error.name === 'TimeoutError' ? 'timed out' : reason,
      );
    }
    const declared = Number(response.headers.get('content-length') ?? '0');
    if (declared > maxBytes) {
      await response.body?.cancel();
      throw new FetchFailure(`response larger than ${maxBytes} bytes`);
    }
    const chunks: Uint8Array[] = [];
    let size = 0;
    if (response.body) {
      const reader = response.body.getReader();
      for (;;) {
        let next: Awaited<ReturnType<typeof reader.read>>;
        try {
          next = await reader.read();
        } catch {
          throw new FetchFailure('the response was cut off or timed out');
        }
        if (next.done) break;
        size += next.value.byteLength;
        if (size > maxBytes) {
          await reader.cancel();
          throw new FetchFailure(`response larger than ${maxBytes} bytes`);
        }
        chunks.push(next.value);
      }
    }
    const body = new Uint8Array(size);
    let offset = 0;
    for (const chunk of chunks) {
      body.set(chunk, offset);
      offset += chunk.byteLength;
    }
    return new Response(body, { status: response.status, headers: response.headers });
  }

  async function discover(issuer: string): Promise<IssuerEntry> {
    const url = `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
    let response: Response;
    try {
      response = await boundedFetch(url);
    } catch (error) {
      if (error instanceof FetchFailure)
        throw new OidcIssuerUnavailableError(issuer, error.message);
      throw error;
    }
    if (response.status !== 200) {
      throw new OidcIssuerUnavailableError(
        issuer,
        `the discovery document answered HTTP ${response.status}`,
      );
    }
    let document: { issuer?: unknown; jwks_uri?: unknown };
    try {
      document = (await response.json()) as typeof document;
    } catch {
      throw new OidcTokenInvalidError('the issuer serves no JSON discovery document');
    }
    if (document?.issuer !== issuer) {
      throw new OidcTokenInvalidError("the issuer's discovery document names another issuer");
    }
    let jwksUri: URL;
    try {
      jwksUri = new URL(String(document.jwks_uri));
    } catch {
      throw new OidcTokenInvalidError("the issuer's discovery document has no jwks_uri");
    }
    if (!fetchable(jwksUri, allowLoopbackHttp)) {
      throw new OidcTokenInvalidError("the issuer's jwks_uri is not HTTPS");
    }
    const jwks = createRemoteJWKSet(jwksUri, {
      timeoutDuration: timeoutMs,
      cacheMaxAge: options.jwksCacheMaxAgeMs ?? 10 * 60 * 1000,
      cooldownDuration: options.jwksCooldownMs ?? 30_000,
      [customFetch]: (href, init) => boundedFetch(href, init.signal),
    });
    return { jwks, expiresAt: Date.now() + discoveryTtlMs };
  }

  /** The issuer's cached entry, discovering it (once, however many ask) when absent or stale. */
  async function entryOf(issuer: string): Promise<IssuerEntry> {
    const cached = issuers.get(issuer);
    if (cached && cached.expiresAt > Date.now()) return cached;
    let pending = discovering.get(issuer);
    if (!pending) {
      pending = discover(issuer).finally(() => discovering.delete(issuer));
      discovering.set(issuer, pending);
    }
    const entry = await pending;
    issuers.delete(issuer);
    if (issuers.size >= maxIssuers) issuers.delete(issuers.keys().next().value!);
    issuers.set(issuer, entry);
    return entry;
  }

  return {
    async verify(token, { now }) {
      let unverified: JWTPayload;
      try {
        unverified = decodeJwt(token);
      } catch {
        throw new OidcTokenInvalidError('not a JWT');
      }
      const issuer = unverified.iss;
      if (typeof issuer !== 'string' || issuer === '') {
        throw new OidcTokenInvalidError('the token names no issuer');
      }
      let issuerUrl: URL;
      try {
        issuerUrl = new URL(issuer);
      } catch {
        throw new OidcTokenInvalidError('the issuer is not a URL');
      }
      if (trusted.size > 0 ? !trusted.has(issuer) : false) {
        throw new OidcTokenInvalidError('the issuer is not trusted by this server');
      }
      if (!fetchable(issuerUrl, allowLoopbackHttp)) {
        throw new OidcTokenInvalidError('the issuer is not an HTTPS URL');
      }
      const { jwks } = await entryOf(issuer);
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, jwks, {
          issuer,
          algorithms: ALGORITHMS,
          currentDate: new Date(now),
          clockTolerance: options.clockToleranceSeconds ?? 0,
          requiredClaims: ['iss', 'sub', 'aud', 'exp'],
        }));
      } catch (error) {
        throw translate(issuer, error);
      }
      return claimsOf(payload);
    },
    async close() {
      issuers.clear();
    },
  };
}

/** A jose or fetch error → the port's errors. */
function translate(issuer: string, error: unknown): Error {
  if (error instanceof FetchFailure) return new OidcIssuerUnavailableError(issuer, error.message);
  if (error instanceof errors.JWKSTimeout) {
    return new OidcIssuerUnavailableError(issuer, 'the JWKS fetch timed out');
  }
  if (error instanceof errors.JWTExpired) return new OidcTokenInvalidError('the token has expired');
  if (error instanceof errors.JWKSNoMatchingKey) {
    return new OidcTokenInvalidError("no key of the issuer's JWKS matches the token");
  }
  if (error instanceof errors.JWKSMultipleMatchingKeys) {
    return new OidcTokenInvalidError("several keys of the issuer's JWKS match the token");
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) {
    return new OidcTokenInvalidError('the signature does not verify');
  }
  if (error instanceof errors.JWTClaimValidationFailed) {
    return new OidcTokenInvalidError(`claim ${error.claim} fails its check (${error.reason})`);
  }
  if (error instanceof errors.JOSEAlgNotAllowed) {
    return new OidcTokenInvalidError('the token is not signed with an asymmetric algorithm');
  }
  if (error instanceof errors.JOSEError) {
    // An unusable JWKS answer (an error status, not JSON) is the issuer's fault.
    if (/JSON Web Key Set/.test(error.message)) {
      return new OidcIssuerUnavailableError(issuer, error.message);
    }
    return new OidcTokenInvalidError(error.message);
  }
  return error instanceof Error ? error : new Error(String(error));
}

/** The port's claims of a verified payload. */
function claimsOf(payload: JWTPayload): OidcClaims {
  const aud = typeof payload.aud === 'string' ? [payload.aud] : [...(payload.aud ?? [])];
  const nonce = typeof payload.nonce === 'string' ? payload.nonce : undefined;
  const tknonce = typeof payload.tknonce === 'string' ? payload.tknonce : undefined;
  return {
    iss: payload.iss!,
    sub: payload.sub!,
    aud,
    exp: payload.exp!,
    ...(nonce !== undefined ? { nonce } : {}),
    ...(tknonce !== undefined ? { tknonce } : {}),
  };
}

/**
 * `handle()`: the transport-agnostic request path. Routes a raw request, meters its client
 * address against the rate limiter (when one is configured) before anything costly, hands it
 * to the activity or query service with a meter that charges its user and organization once
 * the stamp verified (the order is `RequestAdmission`'s), and turns every outcome into a
 * response — a KeyholdError into its Status body and HTTP status, a refusal by the limiter
 * into a 429, anything else into "internal server error (<id>)" with the details only in the
 * log.
 * @module
 */

import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import {
  type ActivityService,
  laneOfRoute,
  type Metrics,
  type MetricsExposition,
  type PolicyExplainer,
  portErrorCodeOf,
  QueryService,
  type RateLimitDecision,
  type RateLimiter,
  RateLimiterUnavailableError,
  type RateLimitRefusal,
  type RateLimitRules,
  RequestAdmission,
  type RequestMeter,
  rateLimitedMessage,
  type Store,
} from '@keyhold/activities';
import { FRAME_PATHS, type FramePage } from '@keyhold/frames';
import { oidcKeyIdOf } from '@keyhold/keys';
import {
  activityDefinitionsAt,
  internalStatus,
  KeyholdError,
  Messages,
  type RawRequest,
  type RawResponse,
  type RequestHandler,
} from '@keyhold/protocol';
import { webhookJwks } from '@keyhold/webhooks';
import { AuthProxy, type AuthProxyDeps } from './auth-proxy/auth-proxy.js';
import {
  EXPLAIN_POLICIES_PATH,
  KEYHOLD_EXTENSION_PREFIX,
  OAUTH2_ISSUER_PATH,
  PUBLIC_KEYS_PATH,
} from './keyhold-extensions.js';
import { KNOWN_QUERY_PATHS, KNOWN_SUBMIT_PATHS } from './known-endpoints.js';
import { OPENAPI_PATH, openApiDocument } from './openapi-document.js';

/** The version of this package, named by the OpenAPI document. */
const SERVER_VERSION = String(
  (createRequire(import.meta.url)('../package.json') as { version?: unknown }).version,
);

import type { Logger } from './logger.js';
import { NOT_AVAILABLE_QUERIES } from './not-available-queries.js';

const SUBMIT = '/public/v1/submit/';
const QUERY = '/public/v1/query/';

const BASE_HEADERS = {
  'content-type': 'application/json',
  'access-control-allow-origin': '*',
  'cache-control': 'no-store',
};

const CORS_PREFLIGHT = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'POST, GET, OPTIONS',
  'access-control-allow-headers':
    'content-type, x-stamp, x-stamp-webauthn, x-stamp-attested, x-session, x-client-version, x-request-id',
  'access-control-max-age': '600',
};

const json = (status: number, body: unknown): RawResponse => ({
  status,
  headers: { ...BASE_HEADERS },
  body: JSON.stringify(body),
});

/** The budget headers a browser client may read (CORS hides non-safelisted headers). */
const EXPOSED_LIMIT_HEADERS = 'retry-after, ratelimit-limit, ratelimit-remaining, ratelimit-reset';

/** A caller's request id is kept when it is short and plain; otherwise one is made. */
const CALLER_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The id of a request: the caller's `X-Request-Id` when acceptable, else a new UUID. */
function requestIdOf(header: string | undefined): string {
  return header !== undefined && CALLER_REQUEST_ID.test(header) ? header : randomUUID();
}

/** Adds `x-request-id`, and exposes it to browsers beside what the response already exposes. */
function withRequestId(response: RawResponse, requestId: string): RawResponse {
  const exposed = response.headers['access-control-expose-headers'];
  return {
    ...response,
    headers: {
      ...response.headers,
      'x-request-id': requestId,
      'access-control-expose-headers': exposed ? `${exposed}, x-request-id` : 'x-request-id',
    },
  };
}

/**
 * What the access line and the metrics learn of a request as it runs: the organization and
 * user once the stamp verified (the meter is charged then), the activity's type and status.
 */
class RequestNote implements RequestMeter {
  organizationId: string | undefined;
  userId: string | undefined;
  activityType: string | undefined;
  activityStatus: string | undefined;
  /** The limiter's admission, once the client was admitted (absent without rate limiting). */
  admission: RequestAdmission | undefined;

  async charge(charge: Parameters<RequestMeter['charge']>[0]): Promise<void> {
    this.organizationId = charge.organizationId;
    this.userId = charge.userId;
    await this.admission?.charge(charge);
  }
}

/** The metrics label of a path: a route Keyhold serves, else `other` (labels stay bounded). */
function routeLabel(path: string): string {
  if (path.startsWith(SUBMIT)) {
    return activityDefinitionsAt(path.slice(SUBMIT.length)).length > 0 ? path : 'other';
  }
  if (path.startsWith(QUERY)) return QueryService.serves(path.slice(QUERY.length)) ? path : 'other';
  return SERVED_PATHS.has(path) ? path : 'other';
}

/** The API route of a path (the public API, or a Keyhold extension), if it is one. */
function apiRouteOf(path: string): ApiRoute | undefined {
  if (path.startsWith(SUBMIT)) return { kind: 'submit', name: path.slice(SUBMIT.length) };
  if (path.startsWith(QUERY)) return { kind: 'query', name: path.slice(QUERY.length) };
  if (path.startsWith(KEYHOLD_EXTENSION_PREFIX)) {
    return { kind: 'extension', name: path.slice(KEYHOLD_EXTENSION_PREFIX.length) };
  }
  return undefined;
}

/** A 503 the client should retry after a second. */
const retryLater = (body: unknown): RawResponse => ({
  ...json(503, body),
  headers: { ...BASE_HEADERS, 'retry-after': '1' },
});

/**
 * Rate limiting as the request handler applies it.
 * @example
 * const rateLimiting: RateLimiting = {
 *   limiter: new MemoryRateLimiter(),
 *   rules: DEFAULT_RATE_LIMITS,
 *   brand: 'Keyhold',
 *   docsUrl: DEFAULT_DOCS_URL,
 * };
 */
export interface RateLimiting {
  limiter: RateLimiter;
  rules: RateLimitRules;
  /** The word in the `X-<Brand>-RateLimit-Lane` / `-Scope` headers, e.g. `Keyhold`. */
  brand: string;
  /** Where problem-details `type` URLs point, e.g. `https://keyhold.dev/docs/errors`. */
  docsUrl: string;
}

export interface KeyholdRequestHandlerDeps {
  store: Store;
  activities: ActivityService;
  queries: QueryService;
  /** Serves `POST /keyhold/v1/explain_policies`, the dry run of a decision. */
  explainer: PolicyExplainer;
  /** Writes one `request` line per request at `info` (never a body, a stamp or a secret). */
  logger: Logger;
  /** Times every request and counts activities. Default: none. */
  metrics?: Metrics | undefined;
  /** Served at `GET /metrics` (no authentication: labels carry no tenant). Absent: 404. */
  metricsExposition?: MetricsExposition | undefined;
  newErrorId: () => string;
  /** Absent: no limiting and no `ratelimit-*` headers (the default for embedded use). */
  rateLimiting?: RateLimiting | undefined;
  /** The public keys of `GET /public/v1/discovery/webhooks/jwks`. */
  webhookKeys?: readonly { readonly publicKey: Uint8Array; readonly keyId: string }[];
  /** The P-256 keys of `GET /keyhold/v1/public_keys` (uncompressed hex), beside `webhookKeys`. */
  publicKeys?: {
    readonly signerPublicKey: string;
    readonly notarizerPublicKey: string;
    readonly tlsFetcherSignPublicKey: string;
    readonly tlsFetcherEncryptPublicKey?: string;
  };
  /**
   * The OIDC issuer of OAUTH2_AUTHENTICATE's tokens and the key that signs them (uncompressed
   * hex). When the issuer's path is `/keyhold/v1/oauth2`, this handler answers its discovery
   * document and JWKS at that path.
   */
  oauth2Issuer?: { readonly issuer: string | (() => string); readonly signPublicKey: string };
  /** Serves the auth proxy at `/auth-proxy/v1/*` (see `AuthProxy`). Absent: 404 there. */
  authProxy?: AuthProxyDeps;
  /** The export and import frames by path (`renderFramePages` of `@keyhold/frames`). Absent: 404. */
  framePages?: ReadonlyMap<string, FramePage> | null | undefined;
}

/** The discovery document of `GET /keyhold/v1/public_keys`. */
export interface PublicKeysDocument {
  /** Signs export and import bundles (their `enclaveQuorumPublic`). */
  signerPublicKey: string;
  /** Signs session JWTs. */
  notarizerPublicKey: string;
  /**
   * Signs OTP target bundles and verification tokens (`@turnkey/crypto`'s OTP overrides) and
   * the OIDC tokens of OAUTH2_AUTHENTICATE.
   */
  tlsFetcherSignPublicKey: string;
  /** What OAuth 2 client secrets are encrypted to (`encryptOauth2ClientSecret`'s override). */
  tlsFetcherEncryptPublicKey?: string;
  /** The JWKS keys that verify webhook deliveries (Ed25519 OKP, with `kid`). */
  webhookKeys: ReturnType<typeof webhookJwks>['keys'];
}

/** Where receivers fetch the keys that verify webhook deliveries (wire-compat §8). */
export const WEBHOOK_JWKS_PATH = '/public/v1/discovery/webhooks/jwks';

/** Paths served outside the API routes: their own metrics label. */
const SERVED_PATHS = new Set([
  OPENAPI_PATH,
  '/health',
  '/ready',
  '/metrics',
  WEBHOOK_JWKS_PATH,
  PUBLIC_KEYS_PATH,
  EXPLAIN_POLICIES_PATH,
  FRAME_PATHS.export,
  FRAME_PATHS.import,
]);

/**
 * An API route: `/public/v1/submit/<name>`, `/public/v1/query/<name>`, or a Keyhold extension
 * `/keyhold/v1/<name>`.
 */
interface ApiRoute {
  kind: 'submit' | 'query' | 'extension';
  name: string;
}

/** Whether the client asked for RFC 9457 problem details (and did not refuse them with q=0). */
function wantsProblemJson(accept: string | undefined): boolean {
  if (!accept) return false;
  return accept.split(',').some((range) => {
    const [type, ...params] = range.split(';').map((part) => part.trim().toLowerCase());
    if (type !== 'application/problem+json') return false;
    const q = params.find((param) => param.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

/** The IETF draft's `ratelimit-*` trio (delta seconds for the reset), as Turnkey sends it. */
const limitHeaders = (decision: RateLimitDecision): Record<string, string> => ({
  'ratelimit-limit': String(decision.limit),
  'ratelimit-remaining': String(decision.remaining),
  'ratelimit-reset': String(Math.ceil(decision.resetMs / 1000)),
});

/** The `ratelimit-*` headers of the tightest bucket the request was admitted by, if any. */
function budgetHeaders(admission: RequestAdmission | undefined): Record<string, string> {
  const budget = admission?.budget;
  if (!budget) return {};
  return {
    ...limitHeaders(budget.decision),
    'access-control-expose-headers': EXPOSED_LIMIT_HEADERS,
  };
}

const withHeaders = (response: RawResponse, headers: Record<string, string>): RawResponse =>
  Object.keys(headers).length
    ? { ...response, headers: { ...response.headers, ...headers } }
    : response;

/** How often an unreachable limiter is logged: every request would flood the log. */
const UNAVAILABLE_LOG_INTERVAL_MS = 10_000;

export class KeyholdRequestHandler implements RequestHandler {
  /** Set when the server begins to drain: readiness answers 503 so balancers stop routing here. */
  draining = false;
  private lastUnavailableLog = Number.NEGATIVE_INFINITY;
  private jwksResponse: RawResponse | undefined;
  private publicKeysResponse: RawResponse | undefined;
  private openApiResponse: RawResponse | undefined;
  private readonly authProxy: AuthProxy | undefined;

  constructor(private readonly deps: KeyholdRequestHandlerDeps) {
    // The proxy submits through this handler, as any client of the public API does.
    this.authProxy = deps.authProxy && new AuthProxy(deps.authProxy, this);
  }

  /**
   * Answers a request, with an `X-Request-Id` (the caller's if acceptable), one access line in
   * the log and its metrics.
   */
  async handle(request: RawRequest): Promise<RawResponse> {
    const note = new RequestNote();
    return this.observed(request, routeLabel(request.path), note, (requestId) =>
      this.answer(request, requestId, note),
    );
  }

  /**
   * Answers with `answer` as `handle` answers Keyhold's own routes — an `X-Request-Id`, one
   * access line, the request metrics under `route` — for routes mounted beside them (the
   * payment gateway at `/pay`).
   * @example
   * requestHandler.observe(request, '/pay', () => gateway.handle(request));
   */
  observe(
    request: RawRequest,
    route: string,
    answer: (requestId: string) => Promise<RawResponse>,
  ): Promise<RawResponse> {
    return this.observed(request, route, new RequestNote(), answer);
  }

  private async observed(
    request: RawRequest,
    route: string,
    note: RequestNote,
    answer: (requestId: string) => Promise<RawResponse>,
  ): Promise<RawResponse> {
    const started = performance.now();
    const requestId = requestIdOf(request.headers['x-request-id']);
    const response = withRequestId(await answer(requestId), requestId);
    const seconds = (performance.now() - started) / 1000;
    const { method, path } = request;
    this.deps.logger.info('request', {
      requestId,
      method,
      path,
      status: response.status,
      durationMs: Math.round(seconds * 1e4) / 10,
      ...(note.organizationId ? { organizationId: note.organizationId } : {}),
      ...(note.userId ? { userId: note.userId } : {}),
      ...(note.activityType ? { activityType: note.activityType } : {}),
      ...(note.activityStatus ? { activityStatus: note.activityStatus } : {}),
      ...(request.remoteAddress ? { clientAddress: request.remoteAddress } : {}),
    });
    const { metrics } = this.deps;
    if (metrics) {
      metrics.requestHandled({ route, method, status: response.status, seconds });
      if (note.activityType && note.activityStatus) {
        metrics.activityFinished(note.activityType, note.activityStatus);
      }
    }
    return response;
  }

  private async answer(
    request: RawRequest,
    requestId: string,
    note: RequestNote,
  ): Promise<RawResponse> {
    // Set once the limiter admits the client: every answer after that reports the budget.
    let admission: RequestAdmission | undefined;
    try {
      const { method, path } = request;
      // The proxy answers its own CORS (its config's origins), preflights included.
      if (this.authProxy && AuthProxy.serves(path)) return await this.authProxy.handle(request);
      if (method === 'OPTIONS') return { status: 204, headers: { ...CORS_PREFLIGHT }, body: '' };
      if (path === '/health' && method === 'GET') return json(200, { status: 'ok' });
      if (path === OPENAPI_PATH && (method === 'GET' || method === 'HEAD')) return this.openApi();
      if (path === '/metrics' && method === 'GET') return await this.metrics();
      if (path === '/ready' && method === 'GET') return await this.readiness();
      if (path === WEBHOOK_JWKS_PATH && (method === 'GET' || method === 'HEAD')) {
        return this.webhookJwks();
      }
      if (path === PUBLIC_KEYS_PATH && (method === 'GET' || method === 'HEAD')) {
        return this.publicKeys();
      }
      const framePage = this.deps.framePages?.get(path);
      if (framePage && (method === 'GET' || method === 'HEAD')) {
        return { status: 200, headers: { ...framePage.headers }, body: framePage.body };
      }
      if (path.startsWith(`${OAUTH2_ISSUER_PATH}/`) && (method === 'GET' || method === 'HEAD')) {
        const document = this.oidcIssuerDocument(path.slice(OAUTH2_ISSUER_PATH.length));
        if (document) return document;
      }
      const route = apiRouteOf(path);
      if (!route) throw new KeyholdError('NOT_FOUND', { path });
      const { rateLimiting } = this.deps;
      if (rateLimiting) {
        admission = new RequestAdmission(
          rateLimiting.limiter,
          rateLimiting.rules,
          // A dry run reads and decides, writing nothing: it costs what a query costs.
          laneOfRoute(route.kind === 'extension' ? 'query' : route.kind, route.name),
        );
        const refusal = await admission.admitClient(request.remoteAddress);
        if (refusal) return this.tooManyRequests(rateLimiting, request, refusal);
      }
      note.admission = admission;
      return withHeaders(await this.route(request, route, note), budgetHeaders(admission));
    } catch (error) {
      const { rateLimiting } = this.deps;
      // The limiter's verdict wins over however the service's transaction reported it.
      if (rateLimiting && admission?.refusal) {
        return this.tooManyRequests(rateLimiting, request, admission.refusal);
      }
      const unavailable =
        admission?.unavailable ?? (RateLimiterUnavailableError.is(error) ? error : undefined);
      if (rateLimiting && unavailable) {
        this.deps.metrics?.portFailed('rate_limiter');
        return this.limiterUnavailable(rateLimiting, request, unavailable);
      }
      return withHeaders(this.failure(error, request, requestId), budgetHeaders(admission));
    }
  }

  /** The public keys receivers verify webhook deliveries with; no authentication, cacheable. */
  private webhookJwks(): RawResponse {
    // The keys are fixed for the handler's life: the document is built once.
    this.jwksResponse ??= {
      ...json(200, webhookJwks(this.deps.webhookKeys ?? [])),
      headers: { ...BASE_HEADERS, 'cache-control': 'public, max-age=300' },
    };
    return this.jwksResponse;
  }

  /**
   * The OIDC discovery document or JWKS of Keyhold's issuer (`/.well-known/openid-configuration`,
   * `/jwks` under OAUTH2_ISSUER_PATH), when the configured issuer is served here; else nothing.
   */
  private oidcIssuerDocument(rest: string): RawResponse | undefined {
    const oidc = this.deps.oauth2Issuer;
    if (!oidc) return undefined;
    const issuer = (typeof oidc.issuer === 'function' ? oidc.issuer() : oidc.issuer).replace(
      /\/$/,
      '',
    );
    if (!URL.canParse(issuer) || !new URL(issuer).pathname.endsWith(OAUTH2_ISSUER_PATH)) {
      return undefined;
    }
    const cacheable = (body: unknown): RawResponse => ({
      ...json(200, body),
      headers: { ...BASE_HEADERS, 'cache-control': 'public, max-age=300' },
    });
    if (rest === '/.well-known/openid-configuration') {
      return cacheable({
        issuer,
        jwks_uri: `${issuer}/jwks`,
        response_types_supported: ['id_token'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['ES256'],
        claims_supported: ['iss', 'sub', 'aud', 'nonce', 'iat', 'exp', 'encrypted_bearer_token'],
      });
    }
    if (rest === '/jwks') {
      const point = Buffer.from(oidc.signPublicKey, 'hex');
      return cacheable({
        keys: [
          {
            kty: 'EC',
            crv: 'P-256',
            x: point.subarray(1, 33).toString('base64url'),
            y: point.subarray(33, 65).toString('base64url'),
            kid: oidcKeyIdOf(oidc.signPublicKey),
            alg: 'ES256',
            use: 'sig',
          },
        ],
      });
    }
    return undefined;
  }

  /** The OpenAPI 3.1 document of what this handler serves; built once, no authentication. */
  private openApi(): RawResponse {
    this.openApiResponse ??= {
      ...json(
        200,
        openApiDocument({
          metrics: this.deps.metricsExposition !== undefined,
          // The issuer's documents are served here only when its URL's path is ours.
          oauth2Issuer: this.oidcIssuerDocument('/jwks') !== undefined,
          frames: this.deps.framePages != null,
          version: SERVER_VERSION,
        }),
      ),
      headers: { ...BASE_HEADERS, 'cache-control': 'public, max-age=300' },
    };
    return this.openApiResponse;
  }

  /** Every public key Keyhold publishes; no authentication, cacheable like the JWKS. */
  private publicKeys(): RawResponse {
    const { publicKeys } = this.deps;
    if (!publicKeys) throw new KeyholdError('NOT_FOUND', { path: PUBLIC_KEYS_PATH });
    const document: PublicKeysDocument = {
      signerPublicKey: publicKeys.signerPublicKey,
      notarizerPublicKey: publicKeys.notarizerPublicKey,
      tlsFetcherSignPublicKey: publicKeys.tlsFetcherSignPublicKey,
      ...(publicKeys.tlsFetcherEncryptPublicKey
        ? { tlsFetcherEncryptPublicKey: publicKeys.tlsFetcherEncryptPublicKey }
        : {}),
      webhookKeys: webhookJwks(this.deps.webhookKeys ?? []).keys,
    };
    this.publicKeysResponse ??= {
      ...json(200, document),
      headers: { ...BASE_HEADERS, 'cache-control': 'public, max-age=300' },
    };
    return this.publicKeysResponse;
  }

  /** The metrics exposition, when one is configured; 404 otherwise. */
  private async metrics(): Promise<RawResponse> {
    const { metricsExposition } = this.deps;
    if (!metricsExposition) throw new KeyholdError('NOT_FOUND', { path: '/metrics' });
    const { contentType, body } = await metricsExposition.render();
    return {
      status: 200,
      headers: { 'content-type': contentType, 'cache-control': 'no-store' },
      body,
    };
  }

  private failure(error: unknown, request: RawRequest, requestId: string): RawResponse {
    if (KeyholdError.is(error)) {
      // A dependency that cannot be reached (a provider, a mail server): the client retries.
      return error.httpStatus === 503
        ? retryLater(error.toStatus())
        : json(error.httpStatus, error.toStatus());
    }
    // Port errors by their code, not their class: an adapter built on another copy of
    // @keyhold/activities throws errors this copy's `instanceof` would not know. A
    // STORE_CONFLICT the services resolve, and RATE_LIMITED / RATE_LIMIT_BACKEND_UNAVAILABLE
    // handle() answers from the admission first: any that gets here is a fault.
    if (portErrorCodeOf(error) === 'STORE_UNAVAILABLE') {
      this.deps.metrics?.portFailed('store');
      const unavailable = new KeyholdError('UNAVAILABLE', { reason: 'store unavailable' });
      return retryLater(unavailable.toStatus());
    }
    const errorId = this.deps.newErrorId();
    this.deps.logger.error('request failed', {
      errorId,
      requestId,
      path: request.path,
      error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
      stack: error instanceof Error ? error.stack : undefined,
    });
    return json(500, internalStatus(errorId));
  }

  /** Runs the route; `meter` charges the verified request (absent: no rate limiting). */
  private async route(
    request: RawRequest,
    { kind, name }: ApiRoute,
    meter: RequestNote,
  ): Promise<RawResponse> {
    const { method, path } = request;
    if (kind === 'extension') {
      if (path !== EXPLAIN_POLICIES_PATH) throw new KeyholdError('NOT_FOUND', { path });
      if (method !== 'POST') throw new KeyholdError('METHOD_NOT_ALLOWED', { allow: 'POST' });
      return json(200, await this.deps.explainer.explain(request, meter));
    }
    if (kind === 'submit') {
      if (activityDefinitionsAt(name).length === 0) {
        if (KNOWN_SUBMIT_PATHS.has(name))
          throw new KeyholdError('UNSUPPORTED_ACTIVITY_TYPE', { path });
        throw new KeyholdError('NOT_FOUND', { path });
      }
      if (method !== 'POST') throw new KeyholdError('METHOD_NOT_ALLOWED', { allow: 'POST' });
      const activity = await this.deps.activities.submit(name, request, meter);
      meter.activityType = activity.type;
      meter.activityStatus = activity.status;
      return json(200, { activity });
    }
    if (!QueryService.serves(name)) {
      const reason = Object.hasOwn(NOT_AVAILABLE_QUERIES, name)
        ? NOT_AVAILABLE_QUERIES[name]
        : undefined;
      if (reason !== undefined) {
        if (method !== 'POST') throw new KeyholdError('METHOD_NOT_ALLOWED', { allow: 'POST' });
        throw new KeyholdError(
          'QUERY_NOT_AVAILABLE',
          { query: name, reason },
          `${Messages.QUERY_NOT_AVAILABLE.message}: ${name} — ${reason}`,
        );
      }
      if (KNOWN_QUERY_PATHS.has(name)) throw new KeyholdError('UNSUPPORTED_QUERY', { path });
      throw new KeyholdError('NOT_FOUND', { path });
    }
    if (method !== 'POST') throw new KeyholdError('METHOD_NOT_ALLOWED', { allow: 'POST' });
    return json(200, await this.deps.queries.query(name, request, meter));
  }

  /** 429: plain text by default, RFC 9457 problem details on request; nothing was done. */
  private tooManyRequests(
    settings: RateLimiting,
    request: RawRequest,
    { lane, scope, decision }: RateLimitRefusal,
  ): RawResponse {
    const message = rateLimitedMessage(lane, scope);
    const brand = settings.brand.toLowerCase();
    const headers = {
      'access-control-allow-origin': '*',
      'access-control-expose-headers': `${EXPOSED_LIMIT_HEADERS}, x-${brand}-ratelimit-lane, x-${brand}-ratelimit-scope`,
      'cache-control': 'no-store',
      'retry-after': String(Math.max(1, Math.ceil(decision.retryAfterMs / 1000))),
      ...limitHeaders(decision),
      [`x-${brand}-ratelimit-lane`]: lane,
      [`x-${brand}-ratelimit-scope`]: scope,
    };
    if (!wantsProblemJson(request.headers.accept)) {
      return {
        status: 429,
        headers: { ...headers, 'content-type': 'text/plain; charset=utf-8' },
        body: message,
      };
    }
    return {
      status: 429,
      headers: { ...headers, 'content-type': 'application/problem+json' },
      body: JSON.stringify({
        type: `${settings.docsUrl}#rate-limited`,
        title: 'Too Many Requests',
        status: 429,
        detail: message,
        code: 'RATE_LIMITED',
        lane,
        scope,
        retryAfterMs: decision.retryAfterMs,
      }),
    };
  }

  /** Fail closed: without a limiter a flood would reach authentication unmetered. */
  private limiterUnavailable(
    settings: RateLimiting,
    request: RawRequest,
    error: RateLimiterUnavailableError,
  ): RawResponse {
    const now = Date.now();
    if (now - this.lastUnavailableLog >= UNAVAILABLE_LOG_INTERVAL_MS) {
      this.lastUnavailableLog = now;
      this.deps.logger.warn('rate limiter unavailable: answering 503', { reason: error.reason });
    }
    if (!wantsProblemJson(request.headers.accept)) {
      return retryLater(new KeyholdError('RATE_LIMIT_BACKEND_UNAVAILABLE').toStatus());
    }
    return {
      status: 503,
      headers: { ...BASE_HEADERS, 'content-type': 'application/problem+json', 'retry-after': '1' },
      body: JSON.stringify({
        type: `${settings.docsUrl}#rate-limit-backend-unavailable`,
        title: 'Service Unavailable',
        status: 503,
        detail: 'the rate limiter is unavailable; retry after a short delay',
        code: 'RATE_LIMIT_BACKEND_UNAVAILABLE',
      }),
    };
  }

  /** Readiness: 200 when the store (and the rate limiter, if any) answer, else 503 with a reason. */
  private async readiness(): Promise<RawResponse> {
    if (this.draining) {
      return retryLater({ status: 'unavailable', errorCode: 'DRAINING', retryable: true });
    }
    const checks: [string, (() => Promise<void>) | undefined][] = [
      ['STORE_UNAVAILABLE', this.deps.store.ping?.bind(this.deps.store)],
      [
        'RATE_LIMIT_BACKEND_UNAVAILABLE',
        this.deps.rateLimiting?.limiter.ping?.bind(this.deps.rateLimiting.limiter),
      ],
    ];
    for (const [errorCode, ping] of checks) {
      try {
        await ping?.();
      } catch (error) {
        this.deps.logger.warn('not ready', {
          errorCode,
          error: error instanceof Error ? error.message : String(error),
        });
        return retryLater({ status: 'unavailable', errorCode, retryable: true });
      }
    }
    return json(200, { status: 'ready' });
  }
}

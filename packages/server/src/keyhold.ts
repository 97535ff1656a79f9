/**
 * `createKeyhold()`: a Keyhold instance in this process. It is a RequestHandler (mount it
 * in any HTTP server, or call `handle()` directly), and it hands out embedded clients that
 * stamp requests in-process, so an embedding host goes through the same authentication,
 * validation and policy path as a remote client.
 * @module
 */
import {
  type ActivityService,
  type ActivityServiceOptions,
  type BootstrapInput,
  type BootstrapResult,
  bootstrapOrganization,
  Clock,
  type GasSponsor,
  Ids,
  Metrics,
  Notifier,
  Oauth2Gateway,
  OidcVerifier,
  type PolicyExplainer,
  type QueryService,
  RateLimiter,
  type RateLimitOverrides,
  rateLimitRules,
  SendTransactionChains,
  SignatureVerifier,
  type SigningQuotas,
  Store,
} from '@keyhold/activities';
import { CryptoWorkPool, KeyVault, type SessionNotarizer } from '@keyhold/keys';
import type { RawRequest, RawResponse, RequestHandler } from '@keyhold/protocol';
import { generateMasterKey } from '@keyhold/vault-software';
import {
  type DispatchSummary,
  type RetrySchedule,
  type WebhookDispatcher,
  type WebhookSigningKey,
  WebhookTransport,
  webhookSigningKey,
} from '@keyhold/webhooks';
import { Container, type ContainerModule } from 'inversify';
import {
  coreModule,
  DEFAULT_DOCS_URL,
  type FrameSettings,
  foundationModule,
  memoryStoreModule,
  type RateLimitSettings,
  ServerTokens,
  signatureVerifierModule,
  softwareVaultModule,
  type WebhookSettings,
} from './container-modules.js';
import { KeyholdClient, type KeyholdClientOptions } from './keyhold-client.js';
import type { KeyholdRequestHandler } from './keyhold-request-handler.js';
import { Logger } from './logger.js';
import {
  deriveNotarizer,
  deriveSignerKey,
  deriveTlsFetcherEncryptKey,
  deriveTlsFetcherKey,
  deriveWebhookKey,
  Notarizer,
  SignerKey,
  signerKeyFrom,
  TlsFetcherEncryptKey,
  TlsFetcherKey,
  WebhookKey,
} from './signer-key.js';

export interface KeyholdOptions {
  /** A Store instance. Default: a new in-memory store. */
  store?: Store;
  /** A KeyVault instance. Default: the software vault under `masterKey`. */
  vault?: KeyVault;
  /** The software vault's 32-byte master key. Default: a random key (secrets die with the process). */
  masterKey?: Uint8Array;
  /**
   * The 32-byte secret the published keys (signer, notarizer, TLS fetcher and its encryption
   * key, webhook key) are derived from when not given. Default: `masterKey`. After
   * `keyhold master-key rotate` it is the key the data was first under (stored sealed), so
   * rotating the master key does not change the keys clients pin.
   */
  derivationRoot?: Uint8Array;
  /**
   * Where CPU-heavy key work runs: derivation, Taproot tweaks, addresses, signatures. Default:
   * inline, on the caller's thread — a wallet of a hundred accounts then holds the event loop
   * for a few hundred milliseconds. Give a worker pool (`new PiscinaCryptoWorkPool()` of
   * `@keyhold/worker-pool-piscina`; `keyhold serve` does) to keep requests answered meanwhile.
   * The default software vault and the handlers use it; a `vault` you pass uses the pool you
   * built it with. Closed by `close()`.
   */
  cryptoWorkPool?: CryptoWorkPool;
  /** Stamp verification. Default: OpenSSL (`@keyhold/crypto-node`). */
  verifier?: SignatureVerifier | 'openssl' | 'noble';
  clock?: Clock;
  ids?: Ids;
  /** Where log lines go. Default: pino JSON lines on stderr at `warn` (no access lines). */
  logger?: Logger;
  /**
   * What Keyhold counts and times (`@keyhold/metrics-prometheus`'s `PrometheusMetrics`; if it
   * can render, `GET /metrics` serves it). Default: none kept.
   */
  metrics?: Metrics;
  /** The P-256 key that signs export/import bundles. Default: derived from the master key. */
  signerKey?: Uint8Array;
  /**
   * What signs session JWTs (STAMP_LOGIN, CREATE_READ_ONLY_SESSION). Default: a P-256 key
   * derived from the master key. `keyhold serve --vault pkcs11` passes the token's notarizer.
   */
  notarizer?: SessionNotarizer;
  /**
   * The P-256 key that signs OTP target bundles and verification tokens (the TLS fetcher's, in
   * Turnkey's terms). Default: derived from the master key.
   */
  tlsFetcherKey?: Uint8Array;
  /**
   * The P-256 key OAuth 2 client secrets are encrypted to (`tlsFetcherEncryptPublicKey`), and
   * under which (through HKDF) they are sealed at rest. Default: derived from the master key.
   */
  tlsFetcherEncryptKey?: Uint8Array;
  /**
   * OAuth 2 credentials and OAUTH2_AUTHENTICATE. `gateway` reaches the providers (default:
   * `HttpOauth2Gateway` of `@keyhold/oauth2-http` with X's and Discord's public endpoints);
   * `issuer` is the `iss` of the OIDC tokens Keyhold issues (default
   * `https://keyhold.invalid/keyhold/v1/oauth2`; give your public URL +
   * `/keyhold/v1/oauth2` so verifiers find its discovery document and JWKS here; a function
   * is asked at each activity).
   */
  oauth2?: { gateway?: Oauth2Gateway; issuer?: string | (() => string) };
  /**
   * The send-transaction activities (ETH_SEND_RAW_TRANSACTION, ETH_SEND_TRANSACTION and their
   * queries): the EVM chains by CAIP-2 id (`sendTransactionChainsOf(new Map([['eip155:84532',
   * createViemEvmSendChain(url)]]))`), and the operator's gas sponsor (a private key of the
   * operator's organization and the USD price of the native coin), or a function that answers
   * it once it exists. Default: no chain (EVM_RPC_NOT_CONFIGURED), no sponsor.
   */
  sendTransaction?: {
    chains?: SendTransactionChains;
    gasSponsor?: GasSponsor | (() => GasSponsor | undefined);
  };
  /**
   * Sends one-time codes by email and SMS (`@keyhold/notifier-smtp`, `@keyhold/notifier-log`
   * in development). Default: none — INIT_OTP answers that no transport is configured.
   * Closed by `close()`.
   */
  notifier?: Notifier;
  /**
   * Verifies OIDC id_tokens for OAuth providers and logins (`@keyhold/oidc-jose`). Default:
   * none — every id_token is refused. Closed by `close()`.
   */
  oidcVerifier?: OidcVerifier;
  /** How far a request's `timestampMs` may be from now. Default 5 minutes. */
  timestampToleranceMs?: number;
  /** How long an activity awaiting consensus accepts votes after its first. Default 24 hours. */
  consensusExpiryMs?: number;
  /** Monthly signing quotas per root organization (`keyhold serve --signing-quota`); default none. */
  quotas?: SigningQuotas;
  /**
   * Meters requests per lane — the client IP before authentication, the user and organization
   * once the stamp verified, weighted by what the request carries — and answers 429 over the
   * limit (`@keyhold/ratelimit-memory` for one instance,
   * `@keyhold/ratelimit-redis` for many). Default: none — nothing is limited and no
   * `ratelimit-*` headers are sent, which suits embedded use. Closed by `close()`.
   */
  rateLimiter?: RateLimiter;
  /** Rules over the defaults (60/s per IP, per user and per organization, in every lane). */
  rateLimits?: RateLimitOverrides;
  /** The word in `X-<Brand>-*` headers, e.g. `X-Keyhold-RateLimit-Lane`. Default `Keyhold`. */
  brand?: string;
  /** Where problem-details `type` URLs point. Default `https://keyhold.dev/docs/errors`. */
  docsUrl?: string;
  /**
   * Webhooks. Deliveries are written to the store's outbox with every activity change and sent
   * by `startWebhookDelivery()` (which `keyhold serve` runs) or `deliverWebhooks()`.
   */
  webhooks?: {
    /** How deliveries are sent. Default: HTTPS to public addresses (`@keyhold/webhook-transport-http`). */
    transport?: WebhookTransport;
    /**
     * Accept endpoint URLs with private, loopback and link-local destinations (and http:// to
     * loopback hosts), and deliver to such addresses. Default false, in every environment:
     * `keyhold serve` sets it only with `--allow-private-webhooks`. URLs that can never
     * deliver (credentials, bad schemes, unspecified or multicast hosts) are refused either way.
     */
    allowPrivateDestinations?: boolean;
    /**
     * Consecutive FAILED deliveries after which an endpoint is disabled (its reason shown by
     * list_webhook_endpoints). Default 10. A 410 Gone or an undeliverable URL disables at once.
     */
    disableAfterFailures?: number;
    /** The retry schedule. Default: 8 attempts over about 27 hours. */
    schedule?: RetrySchedule;
    /** The Ed25519 key that signs deliveries (32 bytes). Default: derived from the master key. */
    signingKey?: Uint8Array;
  };
  /**
   * Serve the self-hosted export and import frames at `/frames/export` and `/frames/import`
   * (`FRAME_PATHS` of `@keyhold/frames`), pinned to this instance's signer key, embeddable by
   * `allowedOrigins` only. Default: not served.
   */
  frames?: FrameSettings;
  /** Extra inversify modules, loaded last: they may `rebind` any port. */
  modules?: ContainerModule[];
}

export class Keyhold implements RequestHandler {
  constructor(readonly container: Container) {}

  get activities(): ActivityService {
    return this.container.get(ServerTokens.ActivityService);
  }

  get queries(): QueryService {
    return this.container.get(ServerTokens.QueryService);
  }

  /** The dry run of decisions behind `POST /keyhold/v1/explain_policies`. */
  get explainer(): PolicyExplainer {
    return this.container.get(ServerTokens.PolicyExplainer);
  }

  /** The signer key's public half, uncompressed hex. */
  get signerPublicKey(): string {
    return this.container.get<SignerKey>(SignerKey).publicKey;
  }

  /**
   * The notarizer's public key, uncompressed hex: what verifies every session JWT this instance
   * issues (`verifySessionJwtSignature(jwt, notarizerPublicKey)` of `@turnkey/crypto`).
   */
  get notarizerPublicKey(): string {
    return this.container.get<SessionNotarizer>(Notarizer).publicKey;
  }

  /**
   * The TLS-fetcher signing key's public half, uncompressed hex: the override of
   * `encryptOtpCodeToBundle` and `verifyOtpVerificationToken` (`@turnkey/crypto`).
   */
  get tlsFetcherSignPublicKey(): string {
    return this.container.get<SignerKey>(TlsFetcherKey).publicKey;
  }

  /**
   * The TLS-fetcher encryption key's public half, uncompressed hex: the override of
   * `encryptOauth2ClientSecret` (`@turnkey/crypto`) for CREATE/UPDATE_OAUTH2_CREDENTIAL.
   */
  get tlsFetcherEncryptPublicKey(): string {
    return this.container.get<SignerKey>(TlsFetcherEncryptKey).publicKey;
  }

  /** The transport-agnostic request path. */
  handle(request: RawRequest): Promise<RawResponse> {
    return this.container.get<RequestHandler>(ServerTokens.RequestHandler).handle(request);
  }

  /** Creates (once) a root organization whose root user holds the given API key. */
  bootstrap(input: BootstrapInput): Promise<BootstrapResult> {
    return bootstrapOrganization(
      {
        store: this.container.get(Store),
        ids: this.container.get(Ids),
        clock: this.container.get(Clock),
      },
      input,
    );
  }

  /** An in-process client that stamps with an API key, as a remote client would. */
  client(options: KeyholdClientOptions): KeyholdClient {
    return new KeyholdClient(this, options, this.container.get<Clock>(Clock));
  }

  /** The webhook signing key's id and public key, as `/public/v1/discovery/webhooks/jwks` lists it. */
  get webhookKey(): { keyId: string; publicKey: Uint8Array } {
    const { keyId, publicKey } = this.container.get<WebhookSigningKey>(WebhookKey);
    return { keyId, publicKey };
  }

  /** The webhook dispatcher, or undefined when the store keeps no outbox. */
  private get dispatcher(): WebhookDispatcher | undefined {
    return this.container.get<WebhookDispatcher | undefined>(ServerTokens.WebhookDispatcher);
  }

  /**
   * One delivery pass: sends the webhook deliveries that are due and records each outcome.
   * @example
   * await client.createWallet({ ... });
   * await keyhold.deliverWebhooks(); // { claimed: 1, delivered: 1, retried: 0, failed: 0, errors: 0 }
   */
  deliverWebhooks(): Promise<DispatchSummary> {
    const dispatcher = this.dispatcher;
    if (!dispatcher) {
      return Promise.resolve({ claimed: 0, delivered: 0, retried: 0, failed: 0, errors: 0 });
    }
    return dispatcher.runOnce();
  }

  /** Delivers webhooks every `intervalMs` (default 1 s) until `close()`. */
  startWebhookDelivery(intervalMs = 1_000): void {
    this.dispatcher?.start(intervalMs);
  }

  /** Marks the instance as draining: `/ready` answers 503 from now on. */
  beginDrain(): void {
    this.container.get<KeyholdRequestHandler>(ServerTokens.RequestHandler).draining = true;
  }

  /**
   * Closes the store, the rate limiter (a Redis connection), the vault when it holds a
   * resource (an HSM session), then the CryptoWorkPool (its threads).
   */
  async close(): Promise<void> {
    this.beginDrain();
    await this.dispatcher?.stop(); // the run in flight finishes before the store closes
    const vault = this.container.get<KeyVault & { close?: () => Promise<void> }>(KeyVault);
    const limiter = this.container.get<RateLimiter>(RateLimiter, { optional: true });
    const pool = this.container.get<CryptoWorkPool>(CryptoWorkPool);
    try {
      try {
        await this.container.get<Store>(Store).close();
      } finally {
        await limiter?.close?.();
        await this.container.get<Notifier>(Notifier).close?.();
        await this.container.get<OidcVerifier>(OidcVerifier).close?.();
      }
      await vault.close?.();
    } finally {
      // Last, and whatever failed before: live worker threads would keep the process running.
      await pool.close();
    }
  }
}

/**
 * @example
 * const keyhold = createKeyhold();
 * const { privateKey, publicKey } = generateApiKeyPair();
 * const { organizationId } = await keyhold.bootstrap({ organizationName: 'Acme', apiPublicKey: publicKey });
 * const client = keyhold.client({ organizationId, apiPrivateKey: privateKey });
 * const { walletId } = await client.createWallet({ walletName: 'treasury', accounts: [...] });
 * @example
 * // Metered: 429 over 60 per second per client IP, per user and per organization.
 * const limited = createKeyhold({ rateLimiter: new MemoryRateLimiter() });
 * @example
 * // Derivation, addresses and signatures on worker threads (closed by keyhold.close()).
 * const pooled = createKeyhold({ cryptoWorkPool: new PiscinaCryptoWorkPool({ threads: 4 }) });
 */
export function createKeyhold(options: KeyholdOptions = {}): Keyhold {
  const container = new Container({ defaultScope: 'Singleton' });
  const masterKey = options.masterKey ?? generateMasterKey();
  const root = options.derivationRoot ?? masterKey;
  container.load(
    foundationModule(
      options.signerKey ? signerKeyFrom(options.signerKey) : deriveSignerKey(root),
      options.webhooks?.signingKey
        ? webhookSigningKey(options.webhooks.signingKey)
        : deriveWebhookKey(root),
      options.notarizer ?? deriveNotarizer(root),
      options.tlsFetcherKey ? signerKeyFrom(options.tlsFetcherKey) : deriveTlsFetcherKey(root),
      options.tlsFetcherEncryptKey
        ? signerKeyFrom(options.tlsFetcherEncryptKey)
        : deriveTlsFetcherEncryptKey(root),
    ),
    memoryStoreModule(),
    softwareVaultModule(masterKey),
    signatureVerifierModule(typeof options.verifier === 'string' ? options.verifier : 'openssl'),
    coreModule(),
  );
  const constant = <T>(id: symbol, value: T | undefined) => {
    if (value !== undefined) container.rebind<T>(id).toConstantValue(value);
  };
  constant(Store, options.store);
  constant(KeyVault, options.vault);
  constant(CryptoWorkPool, options.cryptoWorkPool);
  if (typeof options.verifier === 'object') constant(SignatureVerifier, options.verifier);
  constant(Clock, options.clock);
  constant(Ids, options.ids);
  constant(Logger, options.logger);
  constant(Metrics, options.metrics);
  constant(Notifier, options.notifier);
  constant(Oauth2Gateway, options.oauth2?.gateway);
  constant(ServerTokens.Oauth2Issuer, options.oauth2?.issuer);
  constant(OidcVerifier, options.oidcVerifier);
  constant(ServerTokens.Frames, options.frames);
  constant(SendTransactionChains, options.sendTransaction?.chains);
  const sponsor = options.sendTransaction?.gasSponsor;
  constant(ServerTokens.GasSponsor, typeof sponsor === 'object' ? () => sponsor : sponsor);
  const serviceOptions: ActivityServiceOptions = {};
  if (options.timestampToleranceMs !== undefined)
    serviceOptions.timestampToleranceMs = options.timestampToleranceMs;
  if (options.consensusExpiryMs !== undefined)
    serviceOptions.consensusExpiryMs = options.consensusExpiryMs;
  if (options.webhooks?.allowPrivateDestinations) {
    serviceOptions.allowPrivateWebhookDestinations = true;
  }
  if (options.quotas !== undefined) serviceOptions.quotas = options.quotas;
  constant<WebhookSettings>(ServerTokens.WebhookSettings, {
    brand: options.brand ?? 'Keyhold',
    allowPrivateDestinations: options.webhooks?.allowPrivateDestinations ?? false,
    ...(options.webhooks?.schedule ? { schedule: options.webhooks.schedule } : {}),
    ...(options.webhooks?.disableAfterFailures !== undefined
      ? { disableAfterFailures: options.webhooks.disableAfterFailures }
      : {}),
  });
  constant(WebhookTransport, options.webhooks?.transport);
  constant(ServerTokens.ActivityServiceOptions, serviceOptions);
  constant(RateLimiter, options.rateLimiter);
  constant<RateLimitSettings>(ServerTokens.RateLimitSettings, {
    rules: rateLimitRules(options.rateLimits),
    brand: options.brand ?? 'Keyhold',
    docsUrl: options.docsUrl ?? DEFAULT_DOCS_URL,
  });
  if (options.modules?.length) container.load(...options.modules);
  return new Keyhold(container);
}

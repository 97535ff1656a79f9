/**
 * The composition root's inversify modules: which adapter serves which port. `server` is
 * the only package that imports adapters; a host swaps one by loading its own module after
 * these (with `rebind`), or by passing instances to `createKeyhold`.
 * @module
 */
import {
  ActivityService,
  Clock,
  DEFAULT_RATE_LIMITS,
  type GasSponsor,
  Ids,
  Metrics,
  type MetricsExposition,
  Notifier,
  nobleSignatureVerifier,
  noMetrics,
  noNotifier,
  noOidcVerifier,
  noSendTransactionChains,
  Oauth2Gateway,
  OidcVerifier,
  PolicyExplainer,
  QueryService,
  RateLimiter,
  randomIds,
  SendTransactionChains,
  SignatureVerifier,
  Store,
  systemClock,
} from '@keyhold/activities';
import { createOpenSslSignatureVerifier } from '@keyhold/crypto-node';
import { type FrameScripts, renderFramePages } from '@keyhold/frames';
import {
  CryptoWorkPool,
  inlineCryptoWorkPool,
  KeyVault,
  type SessionNotarizer,
} from '@keyhold/keys';
import { HttpOauth2Gateway } from '@keyhold/oauth2-http';
import { MemoryRateLimiter } from '@keyhold/ratelimit-memory';
import { MemoryStore } from '@keyhold/store-memory';
import { SoftwareKeyVault } from '@keyhold/vault-software';
import { HttpWebhookTransport } from '@keyhold/webhook-transport-http';
import {
  type Outbox,
  type RetrySchedule,
  WebhookDispatcher,
  type WebhookSigningKey,
  WebhookTransport,
  webhookSigningKey,
} from '@keyhold/webhooks';
import { ContainerModule } from 'inversify';
import { softwareBootProof } from './boot-proof.js';
import { KeyholdRequestHandler, type RateLimiting } from './keyhold-request-handler.js';
import { Logger, stderrLogger } from './logger.js';
import { observedKeyVault } from './observed-key-vault.js';
import {
  Notarizer,
  randomNotarizer,
  SignerKey,
  signerKeyFrom,
  TlsFetcherEncryptKey,
  TlsFetcherKey,
  WebhookKey,
} from './signer-key.js';

/** How webhooks are signed and sent (see `KeyholdOptions.webhooks`). */
export interface WebhookSettings {
  /** The word in `X-<Brand>-*` delivery headers. */
  brand: string;
  /** Private and loopback destinations (and http:// to loopback) are accepted and delivered to. */
  allowPrivateDestinations: boolean;
  schedule?: RetrySchedule;
  /** Consecutive FAILED deliveries that disable an endpoint (the dispatcher's default: 10). */
  disableAfterFailures?: number;
}

/** True when a Store also serves as the webhook Outbox (the memory and SQL stores do). */
export function isOutbox(store: object): store is Store & Outbox {
  const candidate = store as Partial<Outbox>;
  return (
    typeof candidate.claimDue === 'function' &&
    typeof candidate.markDelivered === 'function' &&
    typeof candidate.reschedule === 'function' &&
    typeof candidate.markFailed === 'function' &&
    typeof candidate.endpointDelivered === 'function' &&
    typeof candidate.endpointFailed === 'function' &&
    typeof candidate.disableEndpoint === 'function'
  );
}

/** The vault, timed for the metrics when any are kept. */
function observedVault(vault: KeyVault, metrics: Metrics): KeyVault {
  return metrics === noMetrics ? vault : observedKeyVault(vault, metrics);
}

/** The Metrics, when they can also be read (`GET /metrics`). */
function exposition(metrics: Metrics): MetricsExposition | undefined {
  const candidate = metrics as Partial<MetricsExposition>;
  return typeof candidate.render === 'function'
    ? (metrics as Metrics & MetricsExposition)
    : undefined;
}

/** Service identifiers the server adds to the domain's ports. */
export const ServerTokens = {
  ActivityService: Symbol.for('keyhold.ActivityService'),
  QueryService: Symbol.for('keyhold.QueryService'),
  PolicyExplainer: Symbol.for('keyhold.PolicyExplainer'),
  RequestHandler: Symbol.for('keyhold.RequestHandler'),
  ActivityServiceOptions: Symbol.for('keyhold.ActivityServiceOptions'),
  WebhookSettings: Symbol.for('keyhold.WebhookSettings'),
  WebhookDispatcher: Symbol.for('keyhold.WebhookDispatcher'),
  /** Rules, brand and docs URL of rate limiting; the limiter itself is the RateLimiter port. */
  RateLimitSettings: Symbol.for('keyhold.RateLimitSettings'),
  /**
   * The `iss` of the OIDC tokens OAUTH2_AUTHENTICATE issues: a string, or a function that
   * answers it (`startServer` learns its URL once it listens). When its path is
   * `/keyhold/v1/oauth2`, this server answers its discovery document and JWKS.
   */
  Oauth2Issuer: Symbol.for('keyhold.Oauth2Issuer'),
  /** The operator's gas sponsor of ETH_SEND_TRANSACTION (a GasSponsor, or a function of none). */
  GasSponsor: Symbol.for('keyhold.GasSponsor'),
  /** The export and import frames (`FrameSettings`), or `null`: not served. */
  Frames: Symbol.for('keyhold.Frames'),
} as const;

/**
 * The self-hosted export and import frames: their bundled scripts (`bundleFrameScripts()` of
 * `@keyhold/frames`) and the parent origins that may embed them. The pages pin this server's
 * signer key.
 * @example
 * const frames: FrameSettings = {
 *   scripts: await bundleFrameScripts(),
 *   allowedOrigins: parseFrameOrigins('https://app.example.com'),
 * };
 */
export interface FrameSettings {
  readonly scripts: FrameScripts;
  readonly allowedOrigins: readonly string[];
}

/**
 * The OIDC issuer an embedded Keyhold names until told its URL (`createKeyhold({ oauth2:
 * { issuer } })`; `keyhold serve` uses its own URL).
 * @example
 * `${DEFAULT_OAUTH2_ISSUER}/.well-known/openid-configuration`;
 */
export const DEFAULT_OAUTH2_ISSUER = 'https://keyhold.invalid/keyhold/v1/oauth2';

/**
 * Where problem-details `type` URLs point unless `createKeyhold({ docsUrl })` says otherwise.
 * @example
 * `${DEFAULT_DOCS_URL}#rate-limit-backend-unavailable`;
 */
export const DEFAULT_DOCS_URL = 'https://keyhold.dev/docs/errors';

/**
 * Rate limiting without its limiter: applied only when the RateLimiter port is bound.
 * @example
 * container.rebind(ServerTokens.RateLimitSettings).toConstantValue({
 *   rules: rateLimitRules({ query: { ip: false } }), brand: 'Acme', docsUrl: DEFAULT_DOCS_URL,
 * } satisfies RateLimitSettings);
 */
export type RateLimitSettings = Omit<RateLimiting, 'limiter'>;

/**
 * Clock, Ids, Logger, the signer key, the webhook signing key, the session notarizer, the
 * TLS-fetcher signing and encryption keys, no Notifier (a refusal), the HTTPS OAuth 2 gateway
 * (X's and Discord's public endpoints) and the inline CryptoWorkPool.
 */
export const foundationModule = (
  signerKey: SignerKey = signerKeyFrom(),
  webhookKey: WebhookSigningKey = webhookSigningKey(crypto.getRandomValues(new Uint8Array(32))),
  notarizer: SessionNotarizer = randomNotarizer(),
  tlsFetcherKey: SignerKey = signerKeyFrom(),
  tlsFetcherEncryptKey: SignerKey = signerKeyFrom(),
) =>
  new ContainerModule(({ bind }) => {
    bind(Clock).toConstantValue(systemClock);
    bind(Ids)
      .toDynamicValue((ctx) => randomIds(ctx.get<Clock>(Clock)))
      .inSingletonScope();
    bind(Logger).toConstantValue(stderrLogger());
    bind(Metrics).toConstantValue(noMetrics);
    bind(SignerKey).toConstantValue(signerKey);
    bind(WebhookKey).toConstantValue(webhookKey);
    bind(Notarizer).toConstantValue(notarizer);
    bind(TlsFetcherKey).toConstantValue(tlsFetcherKey);
    bind(TlsFetcherEncryptKey).toConstantValue(tlsFetcherEncryptKey);
    bind(Oauth2Gateway)
      .toDynamicValue(() => new HttpOauth2Gateway())
      .inSingletonScope();
    // No transport until one is given: INIT_OTP answers that none is configured.
    bind(Notifier).toConstantValue(noNotifier('no email or SMS transport configured'));
    // No OIDC issuer is trusted until a verifier is given: every id_token is refused.
    bind(OidcVerifier).toConstantValue(noOidcVerifier());
    // Embedded use computes on the caller's thread; `keyhold serve` rebinds a worker pool.
    bind(CryptoWorkPool).toConstantValue(inlineCryptoWorkPool());
  });

/** The in-memory Store. */
export const memoryStoreModule = () =>
  new ContainerModule(({ bind }) => {
    bind(Store).toConstantValue(new MemoryStore());
  });

/** The software KeyVault under `masterKey` (32 bytes), deriving and signing in the CryptoWorkPool. */
export const softwareVaultModule = (masterKey: Uint8Array) =>
  new ContainerModule(({ bind }) => {
    bind(KeyVault)
      .toDynamicValue(
        (ctx) =>
          new SoftwareKeyVault({ masterKey, workPool: ctx.get<CryptoWorkPool>(CryptoWorkPool) }),
      )
      .inSingletonScope();
  });

/** Stamp verification: OpenSSL on Node (default), or the portable noble implementation. */
export const signatureVerifierModule = (kind: 'openssl' | 'noble' = 'openssl') =>
  new ContainerModule(({ bind }) => {
    bind(SignatureVerifier).toConstantValue(
      kind === 'openssl' ? createOpenSslSignatureVerifier() : nobleSignatureVerifier,
    );
  });

/**
 * A RateLimiter: requests are metered from then on (see `createKeyhold({ rateLimiter })`).
 * Unbound, nothing is limited and no `ratelimit-*` headers are sent.
 * @example
 * container.load(rateLimiterModule(new MemoryRateLimiter()));
 */
export const rateLimiterModule = (limiter: RateLimiter) =>
  new ContainerModule(({ bind }) => {
    bind(RateLimiter).toConstantValue(limiter);
  });

/** The domain services and the request handler, wired from the ports above. */
export const coreModule = () =>
  new ContainerModule(({ bind }) => {
    bind(ServerTokens.ActivityServiceOptions).toConstantValue({});
    bind(ServerTokens.Oauth2Issuer).toConstantValue(DEFAULT_OAUTH2_ISSUER);
    bind(ServerTokens.GasSponsor).toConstantValue(() => undefined);
    bind(ServerTokens.Frames).toConstantValue(null);
    bind(SendTransactionChains).toConstantValue(noSendTransactionChains);
    bind(ServerTokens.RateLimitSettings).toConstantValue({
      rules: DEFAULT_RATE_LIMITS,
      brand: 'Keyhold',
      docsUrl: DEFAULT_DOCS_URL,
    } satisfies RateLimitSettings);
    bind(ServerTokens.ActivityService)
      .toDynamicValue(
        (ctx) =>
          new ActivityService({
            store: ctx.get(Store),
            vault: observedVault(ctx.get<KeyVault>(KeyVault), ctx.get<Metrics>(Metrics)),
            metrics: ctx.get<Metrics>(Metrics),
            workPool: ctx.get<CryptoWorkPool>(CryptoWorkPool),
            signer: ctx.get<SignerKey>(SignerKey),
            notarizer: ctx.get<SessionNotarizer>(Notarizer),
            tlsFetcher: ctx.get<SignerKey>(TlsFetcherKey),
            notifier: ctx.get<Notifier>(Notifier),
            tlsFetcherEncrypt: ctx.get<SignerKey>(TlsFetcherEncryptKey),
            oauth2Gateway: ctx.get<Oauth2Gateway>(Oauth2Gateway),
            oauth2Issuer: ctx.get<string | (() => string)>(ServerTokens.Oauth2Issuer),
            oidcVerifier: ctx.get<OidcVerifier>(OidcVerifier),
            chains: ctx.get<SendTransactionChains>(SendTransactionChains),
            gasSponsor: ctx.get<() => GasSponsor | undefined>(ServerTokens.GasSponsor),
            verifier: ctx.get(SignatureVerifier),
            clock: ctx.get(Clock),
            ids: ctx.get(Ids),
            options: ctx.get(ServerTokens.ActivityServiceOptions),
            onEffectError: (description, error) =>
              ctx.get<Logger>(Logger).warn('after-commit effect failed', {
                effect: description,
                error: error instanceof Error ? error.message : String(error),
              }),
          }),
      )
      .inSingletonScope();
    bind(ServerTokens.QueryService)
      .toDynamicValue(
        (ctx) =>
          new QueryService({
            store: ctx.get(Store),
            notarizerPublicKey: ctx.get<SessionNotarizer>(Notarizer).publicKey,
            chains: ctx.get<SendTransactionChains>(SendTransactionChains),
            verifier: ctx.get(SignatureVerifier),
            clock: ctx.get(Clock),
            options: ctx.get(ServerTokens.ActivityServiceOptions),
            bootProof: softwareBootProof(
              ctx.get<SignerKey>(SignerKey),
              {
                signerPublicKey: ctx.get<SignerKey>(SignerKey).publicKey,
                notarizerPublicKey: ctx.get<SessionNotarizer>(Notarizer).publicKey,
                tlsFetcherSignPublicKey: ctx.get<SignerKey>(TlsFetcherKey).publicKey,
                tlsFetcherEncryptPublicKey: ctx.get<SignerKey>(TlsFetcherEncryptKey).publicKey,
              },
              ctx.get<{ now(): number }>(Clock).now(),
            ),
          }),
      )
      .inSingletonScope();
    bind(ServerTokens.PolicyExplainer)
      .toDynamicValue(
        (ctx) =>
          new PolicyExplainer({
            store: ctx.get(Store),
            verifier: ctx.get(SignatureVerifier),
            clock: ctx.get(Clock),
            ids: ctx.get(Ids),
            options: ctx.get(ServerTokens.ActivityServiceOptions),
          }),
      )
      .inSingletonScope();
    bind(ServerTokens.WebhookSettings).toConstantValue({
      brand: 'Keyhold',
      allowPrivateDestinations: false,
    } satisfies WebhookSettings);
    bind(WebhookTransport)
      .toDynamicValue((ctx) => {
        const settings = ctx.get<WebhookSettings>(ServerTokens.WebhookSettings);
        return new HttpWebhookTransport({
          allowPrivateAddresses: settings.allowPrivateDestinations,
        });
      })
      .inSingletonScope();
    bind(ServerTokens.WebhookDispatcher)
      .toDynamicValue((ctx) => {
        const store = ctx.get<Store>(Store);
        if (!isOutbox(store)) return undefined;
        const settings = ctx.get<WebhookSettings>(ServerTokens.WebhookSettings);
        const clock = ctx.get<Clock>(Clock);
        const logger = ctx.get<Logger>(Logger);
        return new WebhookDispatcher({
          outbox: store,
          transport: ctx.get<WebhookTransport>(WebhookTransport),
          clock: () => clock.now(),
          signingKey: ctx.get<WebhookSigningKey>(WebhookKey),
          brand: settings.brand,
          ...(settings.schedule ? { schedule: settings.schedule } : {}),
          ...(settings.disableAfterFailures !== undefined
            ? { disableAfterFailures: settings.disableAfterFailures }
            : {}),
          onError: (error) =>
            logger.warn('webhook delivery error', {
              error: error instanceof Error ? error.message : String(error),
            }),
          onEndpointDisabled: (endpoint) =>
            logger.warn('webhook endpoint disabled', { ...endpoint }),
          onRun: (summary) => {
            const metrics = ctx.get<Metrics>(Metrics);
            if (metrics === noMetrics) return;
            metrics.webhookAttempted('delivered', summary.delivered);
            metrics.webhookAttempted('retried', summary.retried);
            metrics.webhookAttempted('failed', summary.failed);
            metrics.webhookAttempted('error', summary.errors);
            // One count per run, only when metrics are kept; a failed count is just skipped.
            store.countPending?.().then(
              (depth) => metrics.webhookQueueDepth(depth),
              () => {},
            );
          },
        });
      })
      .inSingletonScope();
    bind(ServerTokens.RequestHandler)
      .toDynamicValue((ctx) => {
        const ids = ctx.get<Ids>(Ids);
        const limiter = ctx.get<RateLimiter>(RateLimiter, { optional: true });
        const frames = ctx.get<FrameSettings | null>(ServerTokens.Frames);
        return new KeyholdRequestHandler({
          store: ctx.get(Store),
          activities: ctx.get(ServerTokens.ActivityService),
          queries: ctx.get(ServerTokens.QueryService),
          explainer: ctx.get(ServerTokens.PolicyExplainer),
          logger: ctx.get(Logger),
          metrics: ctx.get<Metrics>(Metrics),
          metricsExposition: exposition(ctx.get<Metrics>(Metrics)),
          newErrorId: () => ids.uuid(),
          rateLimiting: limiter && {
            limiter,
            ...ctx.get<RateLimitSettings>(ServerTokens.RateLimitSettings),
          },
          webhookKeys: [ctx.get<WebhookSigningKey>(WebhookKey)],
          publicKeys: {
            signerPublicKey: ctx.get<SignerKey>(SignerKey).publicKey,
            notarizerPublicKey: ctx.get<SessionNotarizer>(Notarizer).publicKey,
            tlsFetcherSignPublicKey: ctx.get<SignerKey>(TlsFetcherKey).publicKey,
            tlsFetcherEncryptPublicKey: ctx.get<SignerKey>(TlsFetcherEncryptKey).publicKey,
          },
          oauth2Issuer: {
            issuer: ctx.get<string | (() => string)>(ServerTokens.Oauth2Issuer),
            signPublicKey: ctx.get<SignerKey>(TlsFetcherKey).publicKey,
          },
          authProxy: {
            store: ctx.get(Store),
            clock: ctx.get<Clock>(Clock),
            encryptionKey: ctx.get<SignerKey>(TlsFetcherEncryptKey),
            tlsFetcher: ctx.get<SignerKey>(TlsFetcherKey),
            oidc: ctx.get<OidcVerifier>(OidcVerifier),
            // The proxy's send limits need a limiter even when the API runs without one.
            limiter: limiter ?? new MemoryRateLimiter(),
          },
          framePages:
            frames &&
            renderFramePages({
              ...frames,
              signerPublicKey: ctx.get<SignerKey>(SignerKey).publicKey,
            }),
        });
      })
      .inSingletonScope();
  });

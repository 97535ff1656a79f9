/**
 * `keyhold serve`.
 * @module
 */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { createSecureContext } from 'node:tls';
import {
  BootstrapConflictError,
  FREE_TIER_MONTHLY_SIGNATURES,
  LOG_LEVELS,
  type LogLevel,
  type Notifier,
  normalizeApiPublicKey,
  notifierByChannel,
  type RateLimiter,
} from '@keyhold/activities';
import { bundleFrameScripts, FRAME_PATHS, parseFrameOrigins } from '@keyhold/frames';
import { PrometheusMetrics } from '@keyhold/metrics-prometheus';
import { logNotifier } from '@keyhold/notifier-log';
import { httpSmsNotifier, parseSmsGatewayUrl } from '@keyhold/notifier-sms-http';
import { parseSmtpUrl, smtpNotifier } from '@keyhold/notifier-smtp';
import {
  HttpOauth2Gateway,
  type Oauth2ProviderEndpoints,
  oauth2ProviderOf,
  parseOauth2EndpointUrl,
} from '@keyhold/oauth2-http';
import { joseOidcVerifier } from '@keyhold/oidc-jose';
import type { PayNetwork } from '@keyhold/payments';
import { MemoryRateLimiter } from '@keyhold/ratelimit-memory';
import { RedisRateLimiter } from '@keyhold/ratelimit-redis';
import { generateApiKeyPair, type KeyholdOptions, stderrLogger } from '@keyhold/server';
import { StoreOpenError } from '@keyhold/store-postgres';
import { openPkcs11KeyVault, type Pkcs11KeyVault } from '@keyhold/vault-pkcs11';
import { PiscinaCryptoWorkPool } from '@keyhold/worker-pool-piscina';
import { type OptionSpec, redactSettings, resolveSettings } from './configuration.js';
import { DataDirectoryError } from './data-directory.js';
import { parseEvmRpcFlags } from './evm-rpc-flags.js';
import { HTTP_LIMIT_HELP, HTTP_LIMIT_OPTIONS, httpLimitsFromFlags } from './http-limit-flags.js';
import type { HttpServerLimits, TlsCredentials } from './http-server.js';
import { type RunningServer, startServer } from './start-server.js';
import {
  DEFAULT_DATA_DIR,
  type OpenedStore,
  openStore,
  StoreConfigurationError,
} from './store-selection.js';

const HELP = `usage: keyhold serve [options]

  --host HOST                       address to listen on (default 127.0.0.1)
  --port PORT                       port; 0 picks a free one (default 8080)
  --dev                             try Keyhold out: in memory (unless --data or --postgres),
                                    a root organization bootstrapped with a fresh API key
                                    whose private key the listening line prints, once
  --memory | --data DIR | --postgres URL
                                    store: in memory, embedded PGlite in DIR (default
                                    ./.keyhold/data), or a Postgres server shared by instances
  --http express|koa                HTTP adapter: @keyhold/http-express (default) or
                                    @keyhold/http-koa; both answer alike
  --vault software|pkcs11           key vault (default software); pkcs11 reads
                                    KEYHOLD_PKCS11_MODULE, KEYHOLD_PKCS11_TOKEN_LABEL and
                                    KEYHOLD_PKCS11_PIN
  --crypto-threads N                worker threads for key derivation, addresses and
                                    signatures, so heavy requests do not stall the others
                                    (default: one per core); 0 runs them on the event loop
  --rate-limit memory|redis://…     meter requests per client IP, and once the stamp verified
                                    per user and organization (60/s each, per lane), and
                                    answer 429 over it: in this process, or in a Redis
                                    shared by instances (redis[s]://host:port)
  --bootstrap-api-public-key HEX    create (once) a root organization holding this P-256 key
  --bootstrap-org-name NAME         its name (default Keyhold)
  --brand NAME                      the word in X-<Brand>-* headers: webhooks, rate limits
                                    (default Keyhold)
  --env development|production      (default development)
  --tls-cert FILE --tls-key FILE    serve HTTPS with this PEM certificate chain and key
  --trust-proxy N                   N reverse proxies in front append to X-Forwarded-For:
                                    read the client's address N hops back (default 0: the
                                    socket's peer; a client can write the header)
  --log-level debug|info|warn|error|silent
                                    the least severe log line written on stderr (default
                                    info: one access line per request)
  --metrics on|off                  serve Prometheus metrics at GET /metrics (default on;
                                    labels are routes, types and statuses, never a tenant)
  --signing-quota N|free-tier       at most N signatures a month (UTC) per root organization
                                    and its sub-organizations, counted in the store across
                                    instances (free-tier: 25, like the hosted free tier);
                                    default none
  --quota-contact TEXT              who to reach out to, in the over-quota message
  --allow-private-webhooks          accept and deliver to webhook endpoints on private,
                                    loopback and link-local addresses (and http:// to
                                    loopback), in any --env; without it they are refused
  --smtp smtp[s]://user:pass@host:port
                                    send one-time codes by email through this SMTP server
  --email-from ADDRESS              the sender address of those emails (required with --smtp)
  --sms-url https://user:pass@host/path
                                    send one-time codes by SMS: POST {"to","text"} to this
                                    HTTP gateway (URL credentials as Basic auth)
                                    Without --smtp (--sms-url), email (SMS) codes are printed on
                                    stderr as JSON lines in development; in production INIT_OTP
                                    answers that no transport is configured.
  --oauth2-token-endpoint PROVIDER=URL
                                    OAUTH2_AUTHENTICATE exchanges codes of PROVIDER (x or
                                    discord) at URL instead of its public token endpoint
                                    (repeatable; a self-hosted or test provider)
  --oauth2-userinfo-endpoint PROVIDER=URL
                                    and reads the user's id at URL (X's {data:{id}} or
                                    Discord's {id}) instead of its public who-am-I endpoint.
                                    https:// only; http:// to a loopback host in development
  --oauth2-issuer URL               the iss of the OIDC tokens OAUTH2_AUTHENTICATE issues
                                    (default: this server's URL + /keyhold/v1/oauth2, where
                                    its discovery document and JWKS are served)
  --evm-rpc NETWORK=URL             serve the payment gateway (an x402 facilitator) at <url>/pay
                                    on this chain; NETWORK is base-sepolia or base-mainnet;
                                    repeatable. Needs --bootstrap-api-public-key: the settlement
                                    key is a private key of that organization. The same
                                    endpoints serve ETH_SEND_TRANSACTION and
                                    ETH_SEND_RAW_TRANSACTION (caip2 eip155:84532, eip155:8453)
  --gas-sponsor-usd-per-eth USD     sponsor gas of ETH_SEND_TRANSACTION (sponsor: true) from
                                    the settlement account, within each organization's
                                    UPSERT_GAS_USAGE_CONFIG limits counted at this ETH price
  --frame-origins ORIGIN,…          serve the export and import frames at /frames/export and
                                    /frames/import (their URLs on the listening line) to
                                    these parent origins (scheme://host[:port|:*], or * for
                                    any): CSP frame-ancestors and the frames' own check of who
                                    opens their channel. Default in development: loopback on
                                    any port; in production: none, and "none" turns them off
  --oidc-issuer URL                 trust OIDC id_tokens (OAuth providers, OAUTH_LOGIN, OAUTH)
                                    of this issuer only, exactly as its "iss" spells it;
                                    repeatable. Without it any HTTPS issuer is trusted; in
                                    development http:// issuers on loopback are too
${HTTP_LIMIT_HELP}  --config FILE                     read settings from a JSON object keyed by flag names
                                    ({"port": "9000", "memory": true}); also KEYHOLD_CONFIG
  --print-config                    print the resolved settings (secrets redacted) and where
                                    each came from, then exit

Every flag is also an environment variable, KEYHOLD_ and the flag in capitals with _ for -
(KEYHOLD_PORT, KEYHOLD_BOOTSTRAP_ORG_NAME, KEYHOLD_ALLOW_PRIVATE_WEBHOOKS=true; KEYHOLD_DATA,
KEYHOLD_POSTGRES_URL, KEYHOLD_RATE_LIMIT_URL), and a key of the --config file. A flag wins
over the environment, the environment over the file, the file over the default.

Environment: KEYHOLD_MASTER_KEY (64 hex chars) — the software vault's master key. With
--data it defaults to DIR/master.key (generated on first start in development); with
--postgres it is required, so every instance shares it.
`;

/**
 * The PEM files of `--tls-cert` and `--tls-key`, checked to be a certificate and its key now,
 * so a wrong file fails the start naming the flag instead of every handshake later.
 */
function readTlsCredentials(certFile: string, keyFile: string): TlsCredentials {
  const read = (flag: string, file: string) => {
    try {
      return readFileSync(file);
    } catch (error) {
      throw new Error(`${flag} ${file}: ${messageOf(error)}`);
    }
  };
  const credentials = { cert: read('--tls-cert', certFile), key: read('--tls-key', keyFile) };
  try {
    createSecureContext(credentials);
  } catch (error) {
    throw new Error(
      `--tls-cert ${certFile} --tls-key ${keyFile}: not a PEM certificate and its private key (${messageOf(error)})`,
    );
  }
  return credentials;
}

/** The OAuth 2 endpoints the flags replace, by provider. */
type Oauth2EndpointFlags = Partial<
  Record<ReturnType<typeof oauth2ProviderOf>, Partial<Oauth2ProviderEndpoints>>
>;

/**
 * `--oauth2-token-endpoint` and `--oauth2-userinfo-endpoint`, each `PROVIDER=URL` and
 * repeatable; `http://` only to a loopback host and only in development. Throws a usage error
 * naming the flag.
 */
function oauth2EndpointsFromFlags(
  values: { 'oauth2-token-endpoint'?: string[]; 'oauth2-userinfo-endpoint'?: string[] },
  development: boolean,
): Oauth2EndpointFlags {
  const endpoints: Oauth2EndpointFlags = {};
  const flags = [
    ['oauth2-token-endpoint', 'tokenEndpoint'],
    ['oauth2-userinfo-endpoint', 'userInfoEndpoint'],
  ] as const;
  for (const [flag, member] of flags) {
    for (const value of values[flag] ?? []) {
      const at = value.indexOf('=');
      if (at <= 0) throw new Error(`--${flag} must be PROVIDER=URL (x or discord), got "${value}"`);
      try {
        const provider = oauth2ProviderOf(value.slice(0, at));
        const url = parseOauth2EndpointUrl(value.slice(at + 1), { allowLoopbackHttp: development });
        endpoints[provider] = { ...endpoints[provider], [member]: url.toString() };
      } catch (error) {
        throw new Error(`--${flag}: ${messageOf(error)}`);
      }
    }
  }
  return endpoints;
}

/** A URL without its password, for messages and logs. */
function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'the --rate-limit URL';
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Why `startServer` failed, naming the flag to change. */
function startFailure(
  error: unknown,
  values: { host: string; 'bootstrap-org-name': string; data?: string },
  port: number,
): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'EADDRINUSE') {
    return `--port ${port}: ${values.host}:${port} is already in use; stop what listens there or choose another --port (0 picks a free one)`;
  }
  if (code === 'EACCES' || code === 'EADDRNOTAVAIL') {
    return `--host ${values.host} --port ${port}: cannot listen there (${code}); choose another --host or a --port above 1023`;
  }
  if (error instanceof BootstrapConflictError) {
    return `--bootstrap-api-public-key: ${error.message} in this store; start without --bootstrap-api-public-key (the organization is kept), with the key it was created with, with another --bootstrap-org-name, or on another --data directory`;
  }
  return messageOf(error);
}

/** The options of `keyhold serve`: each also `KEYHOLD_<FLAG>` and a `--config` file key. */
const SERVE_OPTIONS = {
  host: { type: 'string', default: '127.0.0.1' },
  port: { type: 'string', default: '8080' },
  dev: { type: 'boolean' },
  memory: { type: 'boolean' },
  data: { type: 'string' },
  postgres: { type: 'string' },
  http: { type: 'string', default: 'express' },
  vault: { type: 'string', default: 'software' },
  'rate-limit': { type: 'string' },
  'crypto-threads': { type: 'string' },
  'bootstrap-api-public-key': { type: 'string' },
  'bootstrap-org-name': { type: 'string', default: 'Keyhold' },
  brand: { type: 'string', default: 'Keyhold' },
  env: { type: 'string', default: 'development' },
  'tls-cert': { type: 'string' },
  'tls-key': { type: 'string' },
  'trust-proxy': { type: 'string', default: '0' },
  'oauth2-token-endpoint': { type: 'string', multiple: true },
  'oauth2-userinfo-endpoint': { type: 'string', multiple: true },
  'oauth2-issuer': { type: 'string' },
  'evm-rpc': { type: 'string', multiple: true },
  'oidc-issuer': { type: 'string', multiple: true },
  'gas-sponsor-usd-per-eth': { type: 'string' },
  'log-level': { type: 'string', default: 'info' },
  metrics: { type: 'string', default: 'on' },
  'allow-private-webhooks': { type: 'boolean', default: false },
  'signing-quota': { type: 'string' },
  'quota-contact': { type: 'string' },
  smtp: { type: 'string' },
  'email-from': { type: 'string' },
  'sms-url': { type: 'string' },
  'frame-origins': { type: 'string' },
  ...HTTP_LIMIT_OPTIONS,
} as const satisfies Record<string, OptionSpec>;

/** Where the frames are served from when --frame-origins is not given: loopback pages. */
const DEVELOPMENT_FRAME_ORIGINS = 'http://localhost:*,http://127.0.0.1:*,http://[::1]:*';

/**
 * The parent origins of `--frame-origins` (none: the frames are not served). Development
 * defaults to loopback pages on any port; production serves no frame unless told to whom.
 */
function frameOriginsOf(flag: string | undefined, env: string): string[] {
  if (flag?.trim().toLowerCase() === 'none') return [];
  const list = flag ?? (env === 'development' ? DEVELOPMENT_FRAME_ORIGINS : '');
  try {
    return parseFrameOrigins(list);
  } catch (error) {
    throw new Error(`--frame-origins: ${messageOf(error)}`);
  }
}

export async function runServeCommand(args: string[]): Promise<number> {
  const { values, sources, help, printConfig } = resolveSettings(args, SERVE_OPTIONS, process.env, [
    ['memory', 'data', 'postgres'],
  ]);
  if (help) {
    process.stdout.write(HELP);
    return 0;
  }
  if (printConfig) {
    // What the flags, the environment and the file resolve to, secrets redacted; nothing starts.
    process.stdout.write(
      `${JSON.stringify({ settings: redactSettings(values), sources }, null, 2)}\n`,
    );
    return 0;
  }
  if (!LOG_LEVELS.includes(values['log-level'] as LogLevel)) {
    process.stderr.write(
      `keyhold serve: --log-level must be one of ${LOG_LEVELS.join(', ')}, got "${values['log-level']}"\n  (keyhold serve --help)\n`,
    );
    return 2;
  }
  const logger = stderrLogger(values['log-level'] as LogLevel);
  let httpLimits: HttpServerLimits;
  let tls: TlsCredentials | undefined;
  let oauth2Endpoints: Oauth2EndpointFlags;
  let evmRpc: Map<PayNetwork, string>;
  let frameOrigins: string[];
  try {
    frameOrigins = frameOriginsOf(values['frame-origins'], values.env);
    evmRpc = parseEvmRpcFlags(values['evm-rpc'] ?? []);
    if (evmRpc.size > 0 && values['bootstrap-api-public-key'] === undefined && !values.dev) {
      throw new Error(
        '--evm-rpc needs --bootstrap-api-public-key: the settlement key is a private key of that organization',
      );
    }
    const usdPerEth = values['gas-sponsor-usd-per-eth'];
    if (usdPerEth !== undefined && !/^[0-9]{1,12}(\.[0-9]{1,6})?$/.test(usdPerEth)) {
      throw new Error(
        `--gas-sponsor-usd-per-eth must be a USD amount such as 3000, got "${usdPerEth}"`,
      );
    }
    if (usdPerEth !== undefined && evmRpc.size === 0) {
      throw new Error(
        '--gas-sponsor-usd-per-eth needs --evm-rpc: the sponsor is the settlement account',
      );
    }
    httpLimits = httpLimitsFromFlags(values);
    const stores = [values.memory, values.data, values.postgres].filter((v) => v !== undefined);
    if (stores.length > 1) throw new Error('choose one of --memory, --data and --postgres');
    if (values.http !== 'express' && values.http !== 'koa') {
      throw new Error(`--http must be express or koa, got "${values.http}"`);
    }
    if (values.vault !== 'software' && values.vault !== 'pkcs11') {
      throw new Error(`--vault must be software or pkcs11, got "${values.vault}"`);
    }
    const rateLimit = values['rate-limit'];
    if (rateLimit !== undefined && rateLimit !== 'memory' && !/^rediss?:\/\//.test(rateLimit)) {
      throw new Error(`--rate-limit must be memory or a redis:// URL, got "${rateLimit}"`);
    }
    if (!/^\d{1,2}$/.test(values['trust-proxy'])) {
      throw new Error(
        `--trust-proxy must be a number of proxies (0–99), got "${values['trust-proxy']}"`,
      );
    }
    const quota = values['signing-quota'];
    if (quota !== undefined && quota !== 'free-tier' && !/^\d{1,12}$/.test(quota)) {
      throw new Error(
        `--signing-quota must be a number of signatures a month or free-tier, got "${quota}"`,
      );
    }
    if ((values['tls-cert'] === undefined) !== (values['tls-key'] === undefined)) {
      throw new Error('--tls-cert and --tls-key go together: give both, or neither for plain HTTP');
    }
    if (values['tls-cert'] !== undefined && values['tls-key'] !== undefined) {
      tls = readTlsCredentials(values['tls-cert'], values['tls-key']);
    }
    if (values.metrics !== 'on' && values.metrics !== 'off') {
      throw new Error(`--metrics must be on or off, got "${values.metrics}"`);
    }
    if (values.env !== 'development' && values.env !== 'production') {
      throw new Error(`--env must be development or production, got "${values.env}"`);
    }
    if (values.dev && values.env === 'production') {
      throw new Error(
        '--dev prints a root credential: it is for development, not --env production',
      );
    }
    if (values.smtp !== undefined) {
      parseSmtpUrl(values.smtp);
      if (!values['email-from'] || !/^[^\s@]+@[^\s@]+$/.test(values['email-from'])) {
        throw new Error('--smtp needs --email-from ADDRESS, the sender of the emails');
      }
    } else if (values['email-from'] !== undefined) {
      throw new Error('--email-from is the sender of --smtp emails: give --smtp too');
    }
    if (values['sms-url'] !== undefined) {
      try {
        parseSmsGatewayUrl(values['sms-url']);
      } catch (error) {
        throw new Error(`--sms-url: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    oauth2Endpoints = oauth2EndpointsFromFlags(values, values.env === 'development');
    if (values['oauth2-issuer'] !== undefined) {
      const issuer = values['oauth2-issuer'];
      if (!URL.canParse(issuer) || !/^https?:$/.test(new URL(issuer).protocol)) {
        throw new Error(`--oauth2-issuer must be an http(s):// URL, got "${issuer}"`);
      }
    }
    for (const issuer of values['oidc-issuer'] ?? []) {
      let url: URL;
      try {
        url = new URL(issuer);
      } catch {
        throw new Error(`--oidc-issuer must be a URL, got "${issuer}"`);
      }
      const loopback = /^(127(?:\.\d{1,3}){3}|\[::1\]|localhost)$/i.test(url.hostname);
      if (
        url.protocol !== 'https:' &&
        !(values.env === 'development' && url.protocol === 'http:' && loopback)
      ) {
        throw new Error(
          `--oidc-issuer must be https:// (or http:// on loopback in development), got "${issuer}"`,
        );
      }
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`keyhold serve: ${message}\n${HELP}`);
    return 2;
  }

  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write(`keyhold serve: --port must be 0–65535, got "${values.port}"\n`);
    return 2;
  }
  const threadsFlag = values['crypto-threads'];
  const threads = threadsFlag === undefined ? availableParallelism() : Number(threadsFlag);
  if (threadsFlag !== undefined && (!/^\d{1,3}$/.test(threadsFlag) || threads > 256)) {
    process.stderr.write(`keyhold serve: --crypto-threads must be 0–256, got "${threadsFlag}"\n`);
    return 2;
  }
  const masterKeyHex = process.env.KEYHOLD_MASTER_KEY;
  if (masterKeyHex !== undefined && !/^[0-9a-fA-F]{64}$/.test(masterKeyHex)) {
    process.stderr.write('keyhold serve: KEYHOLD_MASTER_KEY must be 64 hex characters\n');
    return 2;
  }
  // --dev: a root credential made here, printed once on the listening line.
  const devKey =
    values.dev && values['bootstrap-api-public-key'] === undefined
      ? generateApiKeyPair()
      : undefined;
  const bootstrapKey = values['bootstrap-api-public-key'] ?? devKey?.publicKey;
  if (bootstrapKey !== undefined) {
    // Before anything is opened: a bad key is a usage error, not a start-up failure.
    try {
      normalizeApiPublicKey('API_KEY_CURVE_P256', bootstrapKey);
    } catch {
      process.stderr.write(
        `keyhold serve: --bootstrap-api-public-key must be a compressed P-256 public key (66 hex characters, 02… or 03…), got "${bootstrapKey}"; \`keyhold keygen\` makes one\n`,
      );
      return 2;
    }
  }
  const env = values.env as 'development' | 'production';
  // Development prints codes on stderr; production refuses a channel without a transport.
  const devNotifier = logNotifier({ production: env === 'production' });
  const notifier: Notifier = notifierByChannel({
    email: values.smtp
      ? smtpNotifier({ url: values.smtp, from: values['email-from']! })
      : devNotifier,
    sms: values['sms-url'] ? httpSmsNotifier({ url: values['sms-url'] }) : devNotifier,
  });
  // Any HTTPS issuer unless --oidc-issuer names some; loopback http only in development.
  const oidcVerifier = joseOidcVerifier({
    trustedIssuers: values['oidc-issuer'] ?? [],
    allowLoopbackHttp: env === 'development',
  });
  // Whatever Keyhold creates from here on (the embedded database's files among them) is
  // readable by this user only.
  process.umask(0o077);

  // Everything opened so far, closed in reverse when a later step fails, so a failed start
  // exits at once and releases the data directory's lock instead of idling while it is held.
  const opened: Array<() => Promise<unknown>> = [];
  const fail = async (message: string): Promise<number> => {
    for (const close of opened.reverse()) await close().catch(() => {});
    process.stderr.write(`keyhold serve: ${message}\n`);
    return 2;
  };

  // First, so that the workers start while the store opens. Closed by server.close()
  // (Keyhold.close closes it last), or by fail() if the start fails.
  const cryptoWorkPool = threads > 0 ? new PiscinaCryptoWorkPool({ threads }) : undefined;
  if (cryptoWorkPool) opened.push(() => cryptoWorkPool.close());
  logger.info('crypto work pool', { kind: cryptoWorkPool?.kind ?? 'inline', threads });

  let store: OpenedStore;
  try {
    store = await openStore(
      values.memory || (values.dev && values.data === undefined && values.postgres === undefined)
        ? { kind: 'memory' }
        : values.postgres
          ? { kind: 'postgres', url: values.postgres }
          : { kind: 'data', dir: values.data ?? DEFAULT_DATA_DIR },
      { env, ...(masterKeyHex ? { masterKeyHex } : {}) },
    );
  } catch (error) {
    if (
      error instanceof DataDirectoryError ||
      error instanceof StoreOpenError ||
      error instanceof StoreConfigurationError
    ) {
      return fail(error.message);
    }
    throw error;
  }
  opened.push(() => store.store.close());
  if (store.kind === 'memory')
    logger.warn('state is kept in memory: it is lost when the server stops');

  let vault: Pkcs11KeyVault | undefined;
  let notarizer: KeyholdOptions['notarizer'];
  if (values.vault === 'pkcs11') {
    try {
      vault = await openPkcs11KeyVault(cryptoWorkPool ? { workPool: cryptoWorkPool } : {});
    } catch (error) {
      return fail(`--vault pkcs11: ${messageOf(error)}`);
    }
    const openedVault = vault;
    opened.push(() => openedVault.close());
    logger.info('key vault', { kind: 'pkcs11', token: vault.tokenLabel });
    // With an HSM, session JWTs are signed by a key held in the token too.
    try {
      notarizer = await vault.notarizer();
    } catch (error) {
      return fail(`--vault pkcs11: the notarizer key: ${messageOf(error)}`);
    }
  }

  let rateLimiter: RateLimiter | undefined;
  const rateLimit = values['rate-limit'];
  if (rateLimit === 'memory') {
    rateLimiter = new MemoryRateLimiter();
    logger.info('rate limiter', { kind: 'memory' });
  } else if (rateLimit !== undefined) {
    const shown = redactedUrl(rateLimit);
    const redis = new RedisRateLimiter({ url: rateLimit });
    opened.push(() => redis.close());
    try {
      // Fail at start, as an unreachable database does, rather than answer 503 to everything.
      await redis.ping();
    } catch (error) {
      return fail(`--rate-limit: Redis at ${shown} is unreachable: ${messageOf(error)}`);
    }
    rateLimiter = redis;
    logger.info('rate limiter', { kind: 'redis', url: shown });
  }

  // The workers started with the pool, beside the steps above (usually done by now); a worker
  // that cannot load its code fails the start here rather than every request later.
  try {
    await cryptoWorkPool?.ready();
  } catch (error) {
    return fail(`--crypto-threads: ${messageOf(error)}; --crypto-threads 0 runs the work inline`);
  }

  let server: RunningServer;
  try {
    server = await startServer({
      host: values.host,
      port,
      http: values.http as 'express' | 'koa',
      ...httpLimits,
      logger,
      ...(tls ? { tls } : {}),
      trustProxyHops: Number(values['trust-proxy']),
      ...(values.metrics === 'on' ? { metrics: new PrometheusMetrics() } : {}),
      store: store.store,
      masterKey: store.masterKey,
      derivationRoot: store.derivationRoot,
      ...(vault ? { vault } : {}),
      ...(notarizer ? { notarizer } : {}),
      ...(cryptoWorkPool ? { cryptoWorkPool } : {}),
      ...(bootstrapKey ? { bootstrapApiPublicKey: bootstrapKey } : {}),
      bootstrapOrganizationName: values['bootstrap-org-name'],
      ...(rateLimiter ? { rateLimiter } : {}),
      notifier,
      oauth2: {
        gateway: new HttpOauth2Gateway({
          endpoints: oauth2Endpoints,
          allowLoopbackHttp: env === 'development',
        }),
        ...(values['oauth2-issuer'] ? { issuer: values['oauth2-issuer'] } : {}),
      },
      oidcVerifier,
      brand: values.brand,
      // Private and loopback webhook destinations only when asked for, whatever --env says.
      webhooks: { allowPrivateDestinations: values['allow-private-webhooks'] },
      ...(values['signing-quota'] !== undefined
        ? {
            quotas: {
              monthlySignatures:
                values['signing-quota'] === 'free-tier'
                  ? FREE_TIER_MONTHLY_SIGNATURES
                  : Number(values['signing-quota']),
              ...(values['quota-contact'] ? { supportContact: values['quota-contact'] } : {}),
            },
          }
        : {}),
      ...(evmRpc.size > 0 ? { pay: { chains: evmRpc } } : {}),
      ...(frameOrigins.length > 0
        ? { frames: { scripts: await bundleFrameScripts(), allowedOrigins: frameOrigins } }
        : {}),
      ...(values['gas-sponsor-usd-per-eth'] !== undefined
        ? { gasSponsorUsdPerEth: values['gas-sponsor-usd-per-eth'] }
        : {}),
    });
  } catch (error) {
    return fail(startFailure(error, values, port));
  }
  // Handlers first, then the listening line: a supervisor may signal as soon as it reads it.
  const stopped = new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      logger.info('draining', { signal });
      server.close().then(resolve, resolve);
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  });
  process.stdout.write(
    `${JSON.stringify({
      event: 'listening',
      url: server.url,
      ...(server.organizationId
        ? { organizationId: server.organizationId, userId: server.userId }
        : {}),
      ...(devKey ? { apiPublicKey: devKey.publicKey, apiPrivateKey: devKey.privateKey } : {}),
      signerPublicKey: server.keyhold.signerPublicKey,
      notarizerPublicKey: server.keyhold.notarizerPublicKey,
      tlsFetcherSignPublicKey: server.keyhold.tlsFetcherSignPublicKey,
      tlsFetcherEncryptPublicKey: server.keyhold.tlsFetcherEncryptPublicKey,
      authProxyUrl: server.authProxyUrl,
      ...(server.payUrl
        ? { payUrl: server.payUrl, paySignerAddress: server.paySignerAddress }
        : {}),
      ...(frameOrigins.length > 0
        ? {
            exportFrameUrl: `${server.url}${FRAME_PATHS.export}`,
            importFrameUrl: `${server.url}${FRAME_PATHS.import}`,
          }
        : {}),
    })}\n`,
  );
  logger.info('listening', { url: server.url, http: values.http });
  if (devKey) {
    logger.warn(
      'development mode: the listening line holds the root API private key; never use --dev for real keys',
    );
  }

  await stopped;
  logger.info('stopped');
  return 0;
}

/**
 * `keyhold serve`.
 * @module
 */
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import {
  BootstrapConflictError,
  type Notifier,
  normalizeApiPublicKey,
  notifierByChannel,
  type RateLimiter,
} from '@keyhold/activities';
import { logNotifier } from '@keyhold/notifier-log';
import { httpSmsNotifier, parseSmsGatewayUrl } from '@keyhold/notifier-sms-http';
import { parseSmtpUrl, smtpNotifier } from '@keyhold/notifier-smtp';
import { joseOidcVerifier } from '@keyhold/oidc-jose';
import { MemoryRateLimiter } from '@keyhold/ratelimit-memory';
import { RedisRateLimiter } from '@keyhold/ratelimit-redis';
import { type KeyholdOptions, stderrLogger } from '@keyhold/server';
import { StoreOpenError } from '@keyhold/store-postgres';
import { openPkcs11KeyVault, type Pkcs11KeyVault } from '@keyhold/vault-pkcs11';
import { PiscinaCryptoWorkPool } from '@keyhold/worker-pool-piscina';
import { DataDirectoryError } from './data-directory.js';
import { HTTP_LIMIT_HELP, HTTP_LIMIT_OPTIONS, httpLimitsFromFlags } from './http-limit-flags.js';
import type { HttpServerLimits } from './http-server.js';
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
  --oidc-issuer URL                 trust OIDC id_tokens (OAuth providers, OAUTH_LOGIN, OAUTH)
                                    of this issuer only, exactly as its "iss" spells it;
                                    repeatable. Without it any HTTPS issuer is trusted; in
                                    development http:// issuers on loopback are too
${HTTP_LIMIT_HELP}
Environment: KEYHOLD_MASTER_KEY (64 hex chars) — the software vault's master key. With
--data it defaults to DIR/master.key (generated on first start in development); with
--postgres it is required, so every instance shares it.
`;

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

export async function runServeCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    strict: true,
    options: {
      host: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string', default: '8080' },
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
      'allow-private-webhooks': { type: 'boolean', default: false },
      smtp: { type: 'string' },
      'email-from': { type: 'string' },
      'sms-url': { type: 'string' },
      'oidc-issuer': { type: 'string', multiple: true },
      ...HTTP_LIMIT_OPTIONS,
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  const logger = stderrLogger();
  let httpLimits: HttpServerLimits;
  try {
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
    if (values.env !== 'development' && values.env !== 'production') {
      throw new Error(`--env must be development or production, got "${values.env}"`);
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
  const bootstrapKey = values['bootstrap-api-public-key'];
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
      values.memory
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
      store: store.store,
      masterKey: store.masterKey,
      ...(vault ? { vault } : {}),
      ...(notarizer ? { notarizer } : {}),
      ...(cryptoWorkPool ? { cryptoWorkPool } : {}),
      ...(bootstrapKey ? { bootstrapApiPublicKey: bootstrapKey } : {}),
      bootstrapOrganizationName: values['bootstrap-org-name'],
      ...(rateLimiter ? { rateLimiter } : {}),
      notifier,
      oidcVerifier,
      brand: values.brand,
      // Private and loopback webhook destinations only when asked for, whatever --env says.
      webhooks: { allowPrivateDestinations: values['allow-private-webhooks'] },
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
      signerPublicKey: server.keyhold.signerPublicKey,
      notarizerPublicKey: server.keyhold.notarizerPublicKey,
      tlsFetcherSignPublicKey: server.keyhold.tlsFetcherSignPublicKey,
    })}\n`,
  );
  logger.info('listening', { url: server.url, http: values.http });

  await stopped;
  logger.info('stopped');
  return 0;
}

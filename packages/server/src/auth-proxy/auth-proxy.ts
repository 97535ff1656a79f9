/**
 * The auth proxy: the public, unstamped endpoints `@turnkey/core` (2.8.1) and
 * `@turnkey/react-wallet-kit` call for OTP, OAuth and sign-up (`authProxyUrl`, header
 * `X-Auth-Proxy-Config-ID`), with the shapes of `auth_proxy.swagger.json`, served under
 * `/auth-proxy/v1/<name>` beside the public API.
 *
 * As Turnkey's proxy does, it acts as a user of the organization that enabled it: ENABLE_AUTH_PROXY
 * made that user, its API key (sealed for this server) and a policy letting it submit only
 * the login and sign-up activities. The proxy stamps each activity with that key and hands it
 * to the same request handler the HTTP adapters use, so authentication, policies, rate limits,
 * the audit chain and the refusals are the public API's. What a public endpoint needs on top
 * is here: the config id, the config's allowed origins (CORS), the enabled methods, rate limits
 * on sending codes (per contact, per client address), and lookups that reveal an account only
 * to whoever proved the contact (a verification token) or the identity (a verified OIDC token).
 *
 * Refusals are the Status body `{code, message, details}` of the public API.
 * @module
 */
import {
  authProxyOrganizationOf,
  authProxySettingOf,
  type Clock,
  type OidcVerifier,
  openAuthProxyApiKey,
  portErrorCodeOf,
  type RateLimiter,
  type Store,
} from '@keyhold/activities';
import { readOtpVerificationToken } from '@keyhold/keys';
import {
  type ActivityType,
  activityDefinitionOf,
  KeyholdError,
  type RawRequest,
  type RawResponse,
  type RequestHandler,
} from '@keyhold/protocol';
import { KeyholdClient, KeyholdRequestError } from '../keyhold-client.js';
import {
  type AuthProxyLimits,
  DEFAULT_AUTH_PROXY_LIMITS,
  meterOtpSend,
  meterRequest,
  meterSignup,
} from './auth-proxy-limits.js';

/** Where the proxy is served: `authProxyUrl` is the server's URL with this path. */
export const AUTH_PROXY_PATH = '/auth-proxy';

const ROUTE_PREFIX = `${AUTH_PROXY_PATH}/v1/`;

/** The session length when the config names none (Turnkey's default). */
const DEFAULT_SESSION_SECONDS = 900;

/** What the proxy needs of the server. */
export interface AuthProxyDeps {
  store: Store;
  clock: Clock;
  /** The TLS-fetcher encryption key: opens the proxy user's sealed API key. */
  encryptionKey: { readonly privateKey: Uint8Array };
  /** The TLS-fetcher signing key: verification tokens are checked against it. */
  tlsFetcher: { readonly privateKey: Uint8Array };
  /** Verifies OIDC tokens before an account is looked up by one. */
  oidc: OidcVerifier;
  limiter: RateLimiter;
  limits?: AuthProxyLimits;
}

type Body = Record<string, unknown>;
type Config = NonNullable<Awaited<ReturnType<typeof authProxySettingOf>>['config']>;

/** One request's organization, configuration and the proxy user's client there. */
interface ProxyCall {
  readonly organizationId: string;
  readonly config: Config;
  readonly client: KeyholdClient;
  readonly body: Body;
  readonly address: string | undefined;
}

const invalid = (field: string, reason: string) =>
  new KeyholdError('REQUEST_INVALID', { field, reason });

const str = (body: Body, field: string, required = true): string | undefined => {
  const value = body[field];
  if (value === undefined && !required) return undefined;
  if (typeof value !== 'string' || value.length === 0 || value.length > 16_384) {
    throw invalid(`/${field}`, 'must be a non-empty string');
  }
  return value;
};

const JSON_HEADERS = { 'content-type': 'application/json', 'cache-control': 'no-store' };

/** The kit's provider names (`enabledProviders`) that OTP types need. */
const OTP_PROVIDER = { OTP_TYPE_EMAIL: 'email', OTP_TYPE_SMS: 'sms' } as const;

type Route = (call: ProxyCall) => Promise<object> | object;

export class AuthProxy {
  private readonly limits: AuthProxyLimits;

  /** The paths of `@turnkey/core`'s proxy client (`/v1/<name>`) and what answers each. */
  private readonly routes: Readonly<Record<string, Route>> = {
    wallet_kit_config: (c) => this.walletKitConfig(c),
    wallet_kit_client_params: () => this.walletKitClientParams(),
    otp_init: (c) => this.initOtpV1(c),
    otp_init_v2: (c) => this.initOtp(c),
    otp_verify: (c) => this.verifyOtpV1(c),
    otp_verify_v2: (c) => this.verifyOtpV2(c),
    otp_login: (c) => this.otpLogin(c),
    otp_login_v2: (c) => this.otpLogin(c),
    account: (c) => this.account(c),
    signup: (c) => this.signup(c),
    signup_v2: (c) => this.signup(c),
    oauth_login: (c) => this.oauthLogin(c),
    oauth2_authenticate: (c) => this.oauth2Authenticate(c),
  };

  constructor(
    private readonly deps: AuthProxyDeps,
    /** The public API's handler: the proxy's activities go through it, stamped. */
    private readonly api: RequestHandler,
  ) {
    this.limits = deps.limits ?? DEFAULT_AUTH_PROXY_LIMITS;
  }

  /** True for the paths this proxy answers. */
  static serves(path: string): boolean {
    return path === AUTH_PROXY_PATH || path.startsWith(`${AUTH_PROXY_PATH}/`);
  }

  /**
   * Answers a proxy request. Refusals are Status bodies; an error that is not a refusal is
   * thrown for the caller's 500 (with its log line and error id).
   */
  async handle(request: RawRequest): Promise<RawResponse> {
    const origin = request.headers.origin;
    if (request.method === 'OPTIONS') return this.preflight(origin);
    let allowedOrigin: string | undefined;
    try {
      const name = request.path.startsWith(ROUTE_PREFIX)
        ? request.path.slice(ROUTE_PREFIX.length)
        : '';
      const route = Object.hasOwn(this.routes, name) ? this.routes[name] : undefined;
      if (!route) throw new KeyholdError('NOT_FOUND', { path: request.path });
      if (request.method !== 'POST') {
        throw new KeyholdError('METHOD_NOT_ALLOWED', { allow: 'POST' });
      }
      await meterRequest(this.deps.limiter, this.limits, request.remoteAddress);
      const { organizationId, config, apiPrivateKey } = await this.configOf(
        request.headers['x-auth-proxy-config-id'],
      );
      if (origin !== undefined) {
        if (!(config.allowedOrigins ?? []).includes(origin)) {
          throw new KeyholdError('AUTH_PROXY_ORIGIN_NOT_ALLOWED', { origin });
        }
        allowedOrigin = origin;
      }
      const call: ProxyCall = {
        organizationId,
        config,
        client: new KeyholdClient(this.api, { organizationId, apiPrivateKey }, this.deps.clock),
        body: bodyOf(request.rawBody),
        address: request.remoteAddress,
      };
      return this.reply(200, await route(call), allowedOrigin);
    } catch (error) {
      if (KeyholdError.is(error))
        return this.reply(error.httpStatus, error.toStatus(), allowedOrigin);
      if (error instanceof KeyholdRequestError) {
        return this.reply(error.httpStatus, error.status, allowedOrigin);
      }
      // A store or limiter that cannot answer: the caller retries (refusing beats an unmetered send).
      const port = portErrorCodeOf(error);
      if (port === 'RATE_LIMIT_BACKEND_UNAVAILABLE') {
        const unavailable = new KeyholdError('RATE_LIMIT_BACKEND_UNAVAILABLE');
        return this.reply(503, unavailable.toStatus(), allowedOrigin);
      }
      if (port === 'STORE_UNAVAILABLE') {
        const unavailable = new KeyholdError('UNAVAILABLE', { reason: 'store unavailable' });
        return this.reply(503, unavailable.toStatus(), allowedOrigin);
      }
      throw error;
    }
  }

  private reply(status: number, body: unknown, origin: string | undefined): RawResponse {
    return {
      status,
      headers: {
        ...JSON_HEADERS,
        vary: 'origin',
        ...(origin !== undefined ? { 'access-control-allow-origin': origin } : {}),
        ...(status === 503 ? { 'retry-after': '1' } : {}),
      },
      body: JSON.stringify(body),
    };
  }

  /**
   * A preflight carries no header values, so the config (and its origins) is unknown here: the
   * request that follows is refused, without `access-control-allow-origin`, when its origin is
   * not one of its config's.
   */
  private preflight(origin: string | undefined): RawResponse {
    return {
      status: 204,
      headers: {
        vary: 'origin',
        ...(origin !== undefined ? { 'access-control-allow-origin': origin } : {}),
        'access-control-allow-methods': 'POST, OPTIONS',
        'access-control-allow-headers': 'content-type, x-auth-proxy-config-id, x-captcha-token',
        'access-control-max-age': '600',
      },
      body: '',
    };
  }

  /** The enabled proxy of a config id, or AUTH_PROXY_CONFIG_NOT_FOUND (one answer for all). */
  private async configOf(configId: string | undefined) {
    const notFound = () => new KeyholdError('AUTH_PROXY_CONFIG_NOT_FOUND');
    if (configId === undefined || !/^[0-9a-fA-F-]{36}$/.test(configId)) throw notFound();
    const found = await this.deps.store.transaction(async (tx) => {
      const organizationId = await authProxyOrganizationOf(tx, configId);
      if (!organizationId) return undefined;
      return { organizationId, setting: await authProxySettingOf(tx, organizationId) };
    });
    if (!found?.setting.enabled) throw notFound();
    const apiPrivateKey = openAuthProxyApiKey(
      this.deps.encryptionKey,
      found.organizationId,
      found.setting,
    );
    if (!apiPrivateKey) throw notFound();
    return {
      organizationId: found.organizationId,
      config: found.setting.config ?? {},
      apiPrivateKey,
    };
  }

  // Routes ------------------------------------------------------------------------------------

  private walletKitConfig({ config, organizationId }: ProxyCall) {
    const kit = config.walletKitSettings ?? {};
    return {
      enabledProviders: enabledProvidersOf(config),
      sessionExpirationSeconds: String(config.sessionExpirationSeconds ?? DEFAULT_SESSION_SECONDS),
      organizationId,
      ...(kit.oauthClientIds ? { oauthClientIds: kit.oauthClientIds } : {}),
      ...(kit.oauthRedirectUrl ? { oauthRedirectUrl: kit.oauthRedirectUrl } : {}),
      ...(config.otpAlphanumeric !== undefined ? { otpAlphanumeric: config.otpAlphanumeric } : {}),
      ...(config.otpLength !== undefined ? { otpLength: String(config.otpLength) } : {}),
    };
  }

  /** No captcha provider: the kit reads an absent `turnstileSiteKey` as "no captcha". */
  private walletKitClientParams() {
    return {};
  }

  /** INIT_OTP V3 in the organization, with the config's length, alphabet, sender and template. */
  private async initOtp(
    call: ProxyCall,
  ): Promise<{ otpId: string; otpEncryptionTargetBundle: string }> {
    const { body, config } = call;
    const otpType = str(body, 'otpType')!;
    if (otpType !== 'OTP_TYPE_EMAIL' && otpType !== 'OTP_TYPE_SMS') {
      throw invalid('/otpType', 'must be OTP_TYPE_EMAIL or OTP_TYPE_SMS');
    }
    requireEnabled(config, OTP_PROVIDER[otpType]);
    const contact = str(body, 'contact')!;
    await meterOtpSend(
      this.deps.limiter,
      this.limits,
      call.organizationId,
      contact.trim().toLowerCase(),
      call.address,
    );
    const email = config.emailCustomizationParams ?? {};
    const requested = body.emailCustomization as Body | undefined;
    const templateId =
      (typeof requested?.templateId === 'string' ? requested.templateId : undefined) ??
      config.otpTemplateId ??
      email.templateId;
    const emailCustomization = {
      ...(email.logoUrl ? { logoUrl: email.logoUrl } : {}),
      ...(email.magicLinkTemplate ? { magicLinkTemplate: email.magicLinkTemplate } : {}),
      ...(email.templateVariables ? { templateVariables: email.templateVariables } : {}),
      ...(templateId ? { templateId } : {}),
    };
    return this.run(call, 'ACTIVITY_TYPE_INIT_OTP_V3', {
      otpType,
      contact,
      appName: email.appName || 'Keyhold',
      ...(config.otpLength !== undefined ? { otpLength: config.otpLength } : {}),
      ...(config.otpAlphanumeric !== undefined ? { alphanumeric: config.otpAlphanumeric } : {}),
      ...(config.otpExpirationSeconds
        ? { expirationSeconds: String(config.otpExpirationSeconds) }
        : {}),
      ...(config.sendFromEmailAddress ? { sendFromEmailAddress: config.sendFromEmailAddress } : {}),
      ...(config.sendFromEmailSenderName
        ? { sendFromEmailSenderName: config.sendFromEmailSenderName }
        : {}),
      ...(config.replyToEmailAddress ? { replyToEmailAddress: config.replyToEmailAddress } : {}),
      ...(Object.keys(emailCustomization).length ? { emailCustomization } : {}),
      ...(config.smsCustomizationParams?.template
        ? { smsCustomization: { template: config.smsCustomizationParams.template } }
        : {}),
    });
  }

  private async initOtpV1(call: ProxyCall) {
    const { otpId } = await this.initOtp(call);
    return { otpId };
  }

  private verifyOtpV2(call: ProxyCall) {
    return this.run<{ verificationToken: string }>(call, 'ACTIVITY_TYPE_VERIFY_OTP_V2', {
      otpId: str(call.body, 'otpId'),
      encryptedOtpBundle: str(call.body, 'encryptedOtpBundle'),
      ...this.tokenSeconds(call.config),
    });
  }

  private verifyOtpV1(call: ProxyCall) {
    const publicKey = str(call.body, 'publicKey', false);
    return this.run<{ verificationToken: string }>(call, 'ACTIVITY_TYPE_VERIFY_OTP', {
      otpId: str(call.body, 'otpId'),
      otpCode: str(call.body, 'otpCode'),
      ...(publicKey ? { publicKey } : {}),
      ...this.tokenSeconds(call.config),
    });
  }

  private tokenSeconds(config: Config) {
    return config.verificationTokenExpirationSeconds
      ? { expirationSeconds: String(config.verificationTokenExpirationSeconds) }
      : {};
  }

  /**
   * OTP_LOGIN V2 in the account of the token's contact (or the `organizationId` given, which
   * must be a sub-organization of the proxy's: the pipeline refuses any other).
   */
  private async otpLogin(call: ProxyCall) {
    const { body } = call;
    const verificationToken = str(body, 'verificationToken')!;
    const claims = this.verifiedToken(call, verificationToken);
    const organizationId =
      str(body, 'organizationId', false) ??
      (await this.accountOf(
        call,
        claims.verificationType === 'OTP_TYPE_SMS' ? 'PHONE_NUMBER' : 'EMAIL',
        claims.contact,
      ));
    if (!organizationId)
      throw new KeyholdError('INVALID_VERIFICATION_TOKEN', {
        reason: 'no account has this contact',
      });
    // V1 of the route leaves the client signature out; OTP_LOGIN V1 takes it as optional.
    const withSignature = body.clientSignature !== undefined;
    return this.runIn(
      call,
      organizationId,
      withSignature ? 'ACTIVITY_TYPE_OTP_LOGIN_V2' : 'ACTIVITY_TYPE_OTP_LOGIN',
      {
        verificationToken,
        publicKey: str(body, 'publicKey'),
        ...(withSignature ? { clientSignature: body.clientSignature } : {}),
        expirationSeconds: this.sessionSeconds(call.config),
        ...(typeof body.invalidateExisting === 'boolean'
          ? { invalidateExisting: body.invalidateExisting }
          : {}),
      },
    );
  }

  /** OAUTH_LOGIN in the account of the token's identity (or the `organizationId` given). */
  private async oauthLogin(call: ProxyCall) {
    const { body } = call;
    const oidcToken = str(body, 'oidcToken')!;
    const organizationId =
      str(body, 'organizationId', false) ?? (await this.accountByOidcToken(call, oidcToken));
    if (!organizationId) {
      throw new KeyholdError('OAUTH_PROVIDER_NOT_FOUND', {
        reason: 'no account has this identity',
      });
    }
    return this.runIn(call, organizationId, 'ACTIVITY_TYPE_OAUTH_LOGIN', {
      oidcToken,
      publicKey: str(body, 'publicKey'),
      expirationSeconds: this.sessionSeconds(call.config),
      ...(typeof body.invalidateExisting === 'boolean'
        ? { invalidateExisting: body.invalidateExisting }
        : {}),
    });
  }

  private sessionSeconds(config: Config): string {
    return String(config.sessionExpirationSeconds || DEFAULT_SESSION_SECONDS);
  }

  /**
   * `{organizationId}` of the account, or `{}`. By EMAIL or PHONE_NUMBER only with a
   * verification token proving that contact; by OIDC_TOKEN only with a token that verifies; by
   * PUBLIC_KEY (not personal data) as asked.
   */
  private async account(call: ProxyCall) {
    const { body } = call;
    const filterType = str(body, 'filterType')!;
    const filterValue = str(body, 'filterValue')!;
    let organizationId: string | undefined;
    if (filterType === 'EMAIL' || filterType === 'PHONE_NUMBER') {
      const token = str(body, 'verificationToken', false);
      if (!token) {
        throw new KeyholdError('INVALID_VERIFICATION_TOKEN', {
          reason: 'a lookup by contact needs the verification token of that contact',
        });
      }
      const claims = this.verifiedToken(call, token);
      const wanted = filterType === 'EMAIL' ? 'OTP_TYPE_EMAIL' : 'OTP_TYPE_SMS';
      if (
        claims.verificationType !== wanted ||
        normalized(claims.contact) !== normalized(filterValue)
      ) {
        throw new KeyholdError('INVALID_VERIFICATION_TOKEN', {
          reason: 'the token proves another contact',
        });
      }
      organizationId = await this.accountOf(call, filterType, filterValue);
    } else if (filterType === 'OIDC_TOKEN') {
      organizationId = await this.accountByOidcToken(call, filterValue);
    } else if (filterType === 'PUBLIC_KEY') {
      organizationId = await this.accountOf(call, 'PUBLIC_KEY', filterValue);
    } else if (filterType === 'OIDC_CLAIMS') {
      organizationId = await this.accountByOidcClaims(call, filterValue);
    } else {
      throw invalid(
        '/filterType',
        'must be EMAIL, PHONE_NUMBER, OIDC_TOKEN, OIDC_CLAIMS or PUBLIC_KEY',
      );
    }
    return organizationId ? { organizationId } : {};
  }

  /** The token's claims, if this server signed it for the proxy's organization and it is live. */
  private verifiedToken(call: ProxyCall, token: string) {
    const claims = readOtpVerificationToken(token, this.deps.tlsFetcher, this.deps.clock.now());
    if (claims.organizationId !== call.organizationId) {
      throw new KeyholdError('INVALID_VERIFICATION_TOKEN', {
        reason: 'issued for another organization',
      });
    }
    return claims;
  }

  private async accountByOidcToken(call: ProxyCall, oidcToken: string) {
    try {
      await this.deps.oidc.verify(oidcToken, { now: this.deps.clock.now() });
    } catch (error) {
      const reason = error instanceof Error && 'reason' in error ? String(error.reason) : 'invalid';
      throw new KeyholdError('INVALID_OIDC_TOKEN', { reason });
    }
    return this.accountOf(call, 'OIDC_TOKEN', oidcToken);
  }

  /**
   * The sub-organization with a user holding the OAuth provider `{iss, sub, aud}` (JSON): what
   * core asks before it links a provider to a logged-in user (`addOauthProvider`), so that one
   * identity is not linked to two accounts. Read from the store: `list_suborgs` has no such
   * filter.
   */
  private async accountByOidcClaims(call: ProxyCall, filterValue: string) {
    let claims: unknown;
    try {
      claims = JSON.parse(filterValue);
    } catch {
      claims = undefined;
    }
    const { iss, sub, aud } = (claims ?? {}) as Record<string, unknown>;
    if (typeof iss !== 'string' || typeof sub !== 'string' || typeof aud !== 'string') {
      throw invalid('/filterValue', 'must be the JSON of {iss, sub, aud}');
    }
    return this.deps.store.transaction(async (tx) => {
      for (const child of await tx.organizations.listChildren(call.organizationId)) {
        if (await tx.oauthProviders.findByIdentity(child.organizationId, iss, aud, sub)) {
          return child.organizationId;
        }
      }
      return undefined;
    });
  }

  /** The first sub-organization of the proxy's organization matching the filter. */
  private async accountOf(call: ProxyCall, filterType: string, filterValue: string) {
    const { organizationIds } = await call.client.query<{ organizationIds: string[] }>(
      'list_suborgs',
      { filterType, filterValue, paginationOptions: { limit: '1' } },
    );
    return organizationIds[0];
  }

  /** CREATE_SUB_ORGANIZATION V8 for one root user: the kit's sign-up. */
  private async signup(call: ProxyCall) {
    const { body } = call;
    const email = str(body, 'userEmail', false);
    const phone = str(body, 'userPhoneNumber', false);
    const verificationToken = str(body, 'verificationToken', false);
    for (const method of [...(email ? ['email'] : []), ...(phone ? ['sms'] : [])]) {
      if (verificationToken) requireEnabled(call.config, method);
    }
    await meterSignup(this.deps.limiter, this.limits, call.address);
    const list = (field: string) => {
      const value = body[field] ?? [];
      if (!Array.isArray(value)) throw invalid(`/${field}`, 'must be an array');
      return value;
    };
    const result = await this.run<{
      subOrganizationId: string;
      rootUserIds: string[];
      wallet?: { walletId: string; addresses: string[] };
    }>(call, 'ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8', {
      subOrganizationName:
        str(body, 'organizationName', false) ??
        `${email ?? phone ?? 'user'} ${this.deps.clock.now()}`,
      rootUsers: [
        {
          userName: str(body, 'userName', false) ?? email ?? phone ?? 'user',
          ...(email ? { userEmail: email } : {}),
          ...(phone ? { userPhoneNumber: phone } : {}),
          apiKeys: list('apiKeys'),
          authenticators: list('authenticators'),
          oauthProviders: list('oauthProviders'),
        },
      ],
      rootQuorumThreshold: 1,
      ...(body.wallet !== undefined ? { wallet: body.wallet } : {}),
      ...(verificationToken ? { verificationToken } : {}),
      ...(body.clientSignature !== undefined ? { clientSignature: body.clientSignature } : {}),
    });
    return {
      organizationId: result.subOrganizationId,
      userId: result.rootUserIds[0],
      ...(result.wallet ? { wallet: result.wallet } : {}),
    };
  }

  /** OAUTH2_AUTHENTICATE with the organization's credential for that provider and client id. */
  private async oauth2Authenticate(call: ProxyCall) {
    const { body } = call;
    const provider = str(body, 'provider')!;
    const clientId = str(body, 'clientId')!;
    const { oauth2Credentials } = await call.client.query<{
      oauth2Credentials: { oauth2CredentialId: string; provider: string; clientId: string }[];
    }>('list_oauth2_credentials');
    const credential = oauth2Credentials.find(
      (c) => c.provider === provider && c.clientId === clientId,
    );
    if (!credential) {
      throw new KeyholdError('OAUTH2_CREDENTIAL_NOT_FOUND', { provider, clientId });
    }
    const { oidcToken } = await this.run<{ oidcToken: string }>(
      call,
      'ACTIVITY_TYPE_OAUTH2_AUTHENTICATE',
      {
        oauth2CredentialId: credential.oauth2CredentialId,
        authCode: str(body, 'authCode'),
        redirectUri: str(body, 'redirectUri'),
        codeVerifier: typeof body.codeVerifier === 'string' ? body.codeVerifier : '',
        nonce: str(body, 'nonce'),
      },
    );
    return { oidcToken };
  }

  // Submitting ----------------------------------------------------------------------------------

  private run<R>(call: ProxyCall, type: ActivityType, parameters: object): Promise<R> {
    return this.runIn(call, call.organizationId, type, parameters);
  }

  /**
   * Submits as the proxy's user, in `organizationId`, and answers the result; an activity that
   * did not complete (a policy wants consensus) is refused, never answered half done.
   */
  private async runIn<R>(
    call: ProxyCall,
    organizationId: string,
    type: ActivityType,
    parameters: object,
  ): Promise<R> {
    const activity = await call.client.submit(type, parameters, organizationId);
    if (activity.status !== 'ACTIVITY_STATUS_COMPLETED') {
      throw new KeyholdError('REQUEST_NOT_AUTHORIZED', { activityStatus: activity.status });
    }
    return activity.result[activityDefinitionOf(type)!.resultKey] as R;
  }
}

/** The kit's provider names the config enables: its auth methods and its social providers. */
function enabledProvidersOf(config: Config): string[] {
  const methods = config.allowedAuthMethods ?? [];
  const social = config.walletKitSettings?.enabledSocialProviders ?? [];
  return [...new Set([...methods, ...social])];
}

/**
 * Refuses a method the config does not enable. A config that names no methods enables every
 * one (the configuration came before the proxy: it stays usable as it was).
 */
function requireEnabled(config: Config, provider: string): void {
  const enabled = enabledProvidersOf(config);
  if (enabled.length > 0 && !enabled.includes(provider)) {
    throw new KeyholdError('AUTH_PROXY_METHOD_NOT_ENABLED', { method: provider });
  }
}

const normalized = (contact: string) =>
  contact
    .trim()
    .toLowerCase()
    .replace(/[\s()-]/g, '');

function bodyOf(raw: Uint8Array): Body {
  // `getAuthProxyConfig` and `getClientParams` of core POST no body at all.
  if (raw.length === 0) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(raw));
  } catch {
    throw new KeyholdError('REQUEST_INVALID', { reason: 'the body is not JSON' });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new KeyholdError('REQUEST_INVALID', { reason: 'the body is not a JSON object' });
  }
  return parsed as Body;
}

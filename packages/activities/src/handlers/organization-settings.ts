/**
 * Organization settings: SET_ORGANIZATION_FEATURE and REMOVE_ORGANIZATION_FEATURE (root quorum
 * only; the answer is every feature the organization has), and the auth proxy's setting —
 * ENABLE_AUTH_PROXY, DISABLE_AUTH_PROXY, UPDATE_AUTH_PROXY_CONFIG — stored for the auth proxy
 * (`@keyhold/server`'s `auth-proxy/`) to read. As Turnkey's does, ENABLE makes the proxy a user
 * of the organization with its own API key, and a policy that lets that user submit only the
 * activities the proxy runs; the key's private half is sealed for the server (never stored in
 * the clear, never answered in the clear) and the proxy stamps with it. Keyhold keeps features
 * as configuration; it does not change its behaviour by them yet.
 * @module
 */
import { type BundleSigner, openSealedSecret, sealSecret } from '@keyhold/keys';
import type { IntentOf, OrganizationFeature } from '@keyhold/protocol';
import { p256 } from '@noble/curves/nist.js';
import { hkdf } from '@noble/hashes/hkdf.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import type { StoreTransaction } from '../ports/store.js';
import { checkAllowedOrigin } from '../webauthn-origins.js';
import type { ActivityContext, HandlerOf } from './activity-handler.js';
import { addApiKeys } from './api-key-creation.js';
import { refusingHandler } from './execution-refusal.js';
import { documentsOf, putDocument } from './organization-documents.js';

/** The document id of the auth proxy's setting and configuration. */
export const AUTH_PROXY_DOCUMENT = 'auth_proxy';

/**
 * Where a config id is looked up: one document per config id (its body names the
 * organization), under this reserved organization id. The documents table has no foreign key
 * on the organization, and no organization has this id (ids are UUIDs), so the index lives
 * in the same store and transaction as the setting it points at.
 */
export const AUTH_PROXY_CONFIG_INDEX = 'auth-proxy-config-index';

/**
 * The activity types the proxy's user may submit: its policy's condition. Everything the
 * proxy runs, nothing else (no signing, no export, no user or policy change).
 */
export const AUTH_PROXY_ACTIVITY_TYPES = [
  'ACTIVITY_TYPE_INIT_OTP',
  'ACTIVITY_TYPE_INIT_OTP_V2',
  'ACTIVITY_TYPE_INIT_OTP_V3',
  'ACTIVITY_TYPE_VERIFY_OTP',
  'ACTIVITY_TYPE_VERIFY_OTP_V2',
  'ACTIVITY_TYPE_OTP_LOGIN',
  'ACTIVITY_TYPE_OTP_LOGIN_V2',
  'ACTIVITY_TYPE_OAUTH_LOGIN',
  'ACTIVITY_TYPE_OAUTH2_AUTHENTICATE',
  'ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7',
  'ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8',
] as const;

/** The name of the proxy's user and of its policy in the organization. */
export const AUTH_PROXY_USER_NAME = 'Auth Proxy';

/**
 * The organization's features, in the order they were first set.
 * @example
 * const features = await featuresOf(tx, organizationId); // [{ name: 'FEATURE_NAME_WEBHOOK', value: '…' }]
 */
export async function featuresOf(
  tx: StoreTransaction,
  organizationId: string,
): Promise<OrganizationFeature[]> {
  return (await documentsOf(tx, organizationId, 'feature')).map((d) => ({
    name: d.documentId,
    value: typeof d.body.value === 'string' ? d.body.value : '',
  }));
}

const setFeature = (ctx: ActivityContext, name: string, value: string) =>
  putDocument(
    ctx.tx,
    {
      organizationId: ctx.organization.organizationId,
      kind: 'feature',
      documentId: name,
      body: { value },
    },
    ctx.now,
  );

export const setOrganizationFeatureHandler: HandlerOf<'SET_ORGANIZATION_FEATURE'> = {
  async execute(ctx, p) {
    await setFeature(ctx, p.name, p.value ?? '');
    return { features: await featuresOf(ctx.tx, ctx.organization.organizationId) };
  },
};

export const removeOrganizationFeatureHandler: HandlerOf<'REMOVE_ORGANIZATION_FEATURE'> = {
  async execute(ctx, p) {
    const { organizationId } = ctx.organization;
    await ctx.tx.organizationDocuments.delete(organizationId, 'feature', p.name);
    return { features: await featuresOf(ctx.tx, organizationId) };
  },
};

/**
 * The auth proxy's stored setting of an organization, as the proxy reads it: whether it is
 * enabled, and the last UPDATE_AUTH_PROXY_CONFIG's parameters with their `configId`.
 * @example
 * const { enabled, config } = await authProxySettingOf(tx, organizationId);
 */
export async function authProxySettingOf(
  tx: StoreTransaction,
  organizationId: string,
): Promise<AuthProxySetting> {
  const found = await tx.organizationDocuments.get(
    organizationId,
    'auth_proxy',
    AUTH_PROXY_DOCUMENT,
  );
  return (found?.body as AuthProxySetting | undefined) ?? { enabled: false };
}

/**
 * What ENABLE/DISABLE_AUTH_PROXY and UPDATE_AUTH_PROXY_CONFIG store.
 * @example
 * const setting: AuthProxySetting = { enabled: true, configId: '…', config: { allowedOrigins: ['https://app.example.com'] } };
 */
export interface AuthProxySetting {
  enabled: boolean;
  configId?: string;
  /** The proxy's user in the organization (made by the first ENABLE). */
  proxyUserId?: string;
  /** Its API key's private scalar, sealed (see `openAuthProxyApiKey`). */
  sealedApiKey?: string;
  /** The `updateAuthProxyConfigIntent` as given. */
  config?: IntentOf<'ACTIVITY_TYPE_UPDATE_AUTH_PROXY_CONFIG'>;
}

async function authProxyOf(ctx: ActivityContext): Promise<Record<string, unknown>> {
  return { ...(await authProxySettingOf(ctx.tx, ctx.organization.organizationId)) };
}

const putAuthProxy = (ctx: ActivityContext, body: Record<string, unknown>) =>
  putDocument(
    ctx.tx,
    {
      organizationId: ctx.organization.organizationId,
      kind: 'auth_proxy',
      documentId: AUTH_PROXY_DOCUMENT,
      body,
    },
    ctx.now,
  );

/** The AES-256-GCM key the proxy's API key is sealed under, derived from the encryption key. */
function proxyKeySealingKey(encryptionKey: BundleSigner): Uint8Array {
  return hkdf(
    sha256,
    encryptionKey.privateKey,
    utf8ToBytes('keyhold'),
    utf8ToBytes('keyhold/auth-proxy-api-key/aes-256-gcm/v1'),
    32,
  );
}

const sealedFor = (organizationId: string, userId: string) =>
  `auth-proxy-api-key/${organizationId}/${userId}`;

/**
 * The private scalar (hex) of the proxy's API key in `organizationId`, opened with the server's
 * TLS-fetcher encryption key; undefined when the proxy has no key there.
 * @example
 * const apiPrivateKey = openAuthProxyApiKey(encryptionKey, organizationId, setting);
 */
export function openAuthProxyApiKey(
  encryptionKey: BundleSigner,
  organizationId: string,
  setting: AuthProxySetting,
): string | undefined {
  if (!setting.proxyUserId || !setting.sealedApiKey) return undefined;
  const key = proxyKeySealingKey(encryptionKey);
  try {
    return bytesToHex(
      openSealedSecret({
        key,
        sealed: setting.sealedApiKey,
        aad: sealedFor(organizationId, setting.proxyUserId),
      }),
    );
  } finally {
    key.fill(0);
  }
}

/**
 * The organization whose auth proxy answers to `configId`, if any.
 * @example
 * const organizationId = await authProxyOrganizationOf(tx, request.headers['x-auth-proxy-config-id']);
 */
export async function authProxyOrganizationOf(
  tx: StoreTransaction,
  configId: string,
): Promise<string | undefined> {
  const found = await tx.organizationDocuments.get(
    AUTH_PROXY_CONFIG_INDEX,
    'auth_proxy',
    configId.toLowerCase(),
  );
  const organizationId = found?.body.organizationId;
  return typeof organizationId === 'string' ? organizationId : undefined;
}

/** A config id for the organization, indexed, unless it has one. */
async function withConfigId(
  ctx: ActivityContext,
  current: Record<string, unknown>,
): Promise<Record<string, unknown> & { configId: string }> {
  if (typeof current.configId === 'string') return { ...current, configId: current.configId };
  const configId = ctx.ids.uuid().toLowerCase();
  await putDocument(
    ctx.tx,
    {
      organizationId: AUTH_PROXY_CONFIG_INDEX,
      kind: 'auth_proxy',
      documentId: configId,
      body: { organizationId: ctx.organization.organizationId },
    },
    ctx.now,
  );
  return { ...current, configId };
}

/**
 * The proxy's user, API key and policy, made once: a user named "Auth Proxy" with one P-256
 * API key, and an ALLOW policy whose consensus is that user and whose condition is
 * AUTH_PROXY_ACTIVITY_TYPES. Answers what the setting stores of them.
 */
async function proxyUserOf(
  ctx: ActivityContext,
  current: Record<string, unknown>,
): Promise<{ proxyUserId: string; sealedApiKey: string }> {
  const orgId = ctx.organization.organizationId;
  const { proxyUserId, sealedApiKey } = current;
  if (
    typeof proxyUserId === 'string' &&
    typeof sealedApiKey === 'string' &&
    (await ctx.tx.users.get(orgId, proxyUserId))
  ) {
    return { proxyUserId, sealedApiKey };
  }
  const userId = ctx.ids.uuid();
  await ctx.tx.users.insert({
    organizationId: orgId,
    userId,
    userName: AUTH_PROXY_USER_NAME,
    userTags: [],
    createdAt: ctx.now,
    updatedAt: ctx.now,
  });
  const secret = p256.utils.randomSecretKey();
  const key = proxyKeySealingKey(ctx.oauth2.encryptionKey);
  let sealed: string;
  try {
    await addApiKeys(ctx, userId, [
      {
        apiKeyName: AUTH_PROXY_USER_NAME,
        publicKey: bytesToHex(p256.getPublicKey(secret, true)),
        curveType: 'API_KEY_CURVE_P256',
      },
    ]);
    sealed = sealSecret({ key, plaintext: secret, aad: sealedFor(orgId, userId) });
  } finally {
    secret.fill(0);
    key.fill(0);
  }
  const policyName = `${AUTH_PROXY_USER_NAME} ${userId}`;
  await ctx.tx.policies.insert({
    organizationId: orgId,
    policyId: ctx.ids.uuid(),
    policyName,
    effect: 'EFFECT_ALLOW',
    notes: 'Lets the auth proxy run the login and sign-up activities it serves, nothing else.',
    consensus: `approvers.any(user, user.id == '${userId}')`,
    condition: `activity.type in [${AUTH_PROXY_ACTIVITY_TYPES.map((t) => `'${t}'`).join(', ')}]`,
    createdAt: ctx.now,
    updatedAt: ctx.now,
  });
  return { proxyUserId: userId, sealedApiKey: sealed };
}

export const enableAuthProxyHandler: HandlerOf<'ENABLE_AUTH_PROXY'> = {
  async execute(ctx) {
    const current = await withConfigId(ctx, await authProxyOf(ctx));
    const proxy = await proxyUserOf(ctx, current);
    await putAuthProxy(ctx, { ...current, ...proxy, enabled: true });
    await setFeature(ctx, 'FEATURE_NAME_AUTH_PROXY', 'true');
    // Turnkey answers the key encrypted to its proxy; Keyhold's proxy is this server, and the
    // sealed key opens only with this server's encryption key.
    return { userId: proxy.proxyUserId, encryptedApiKey: proxy.sealedApiKey };
  },
};

export const disableAuthProxyHandler: HandlerOf<'DISABLE_AUTH_PROXY'> = {
  async execute(ctx) {
    await putAuthProxy(ctx, { ...(await authProxyOf(ctx)), enabled: false });
    await ctx.tx.organizationDocuments.delete(
      ctx.organization.organizationId,
      'feature',
      'FEATURE_NAME_AUTH_PROXY',
    );
    return {};
  },
};

export const updateAuthProxyConfigHandler: HandlerOf<'UPDATE_AUTH_PROXY_CONFIG'> = refusingHandler({
  precheck(p) {
    for (const origin of p.allowedOrigins ?? []) checkAllowedOrigin(origin);
  },
  async execute(ctx, p) {
    const current = await withConfigId(ctx, await authProxyOf(ctx));
    await putAuthProxy(ctx, { ...current, config: p });
    return { configId: current.configId };
  },
});

/**
 * Organization settings: SET_ORGANIZATION_FEATURE and REMOVE_ORGANIZATION_FEATURE (root quorum
 * only; the answer is every feature the organization has), and the auth proxy's setting —
 * ENABLE_AUTH_PROXY, DISABLE_AUTH_PROXY, UPDATE_AUTH_PROXY_CONFIG — stored for the proxy to
 * read (the proxy itself is another issue: ENABLE answers an empty `userId` and
 * `encryptedApiKey` until it exists). Keyhold keeps features as configuration; it does not
 * change its behaviour by them yet.
 * @module
 */
import type { IntentOf, OrganizationFeature } from '@keyhold/protocol';
import type { StoreTransaction } from '../ports/store.js';
import { checkAllowedOrigin } from '../webauthn-origins.js';
import type { ActivityContext, HandlerOf } from './activity-handler.js';
import { refusingHandler } from './execution-refusal.js';
import { documentsOf, putDocument } from './organization-documents.js';

/** The document id of the auth proxy's setting and configuration. */
export const AUTH_PROXY_DOCUMENT = 'auth_proxy';

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

export const enableAuthProxyHandler: HandlerOf<'ENABLE_AUTH_PROXY'> = {
  async execute(ctx) {
    await putAuthProxy(ctx, { ...(await authProxyOf(ctx)), enabled: true });
    await setFeature(ctx, 'FEATURE_NAME_AUTH_PROXY', 'true');
    // The proxy's own user and API key come with the proxy (its own issue).
    return { userId: '', encryptedApiKey: '' };
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
    const current = await authProxyOf(ctx);
    const configId = typeof current.configId === 'string' ? current.configId : ctx.ids.uuid();
    await putAuthProxy(ctx, { ...current, configId, config: p });
    return { configId };
  },
});

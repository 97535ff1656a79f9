/**
 * What Turnkey's dashboard does when you switch the auth proxy on, done against Keyhold with
 * its root API key: ENABLE_AUTH_PROXY (the proxy's user, key and policy in the parent
 * organization), then UPDATE_AUTH_PROXY_CONFIG (who may call it, which sign-in methods, the
 * mail's app name), whose result is the `authProxyConfigId` the kit sends on every call.
 * `@turnkey/sdk-server` has no method for these two activities, so they go through its
 * generic stamped `request`.
 */
import { Turnkey } from '@turnkey/sdk-server';

/** The root credential `keyhold serve --dev` prints on its listening line. */
export interface RootCredential {
  url: string;
  organizationId: string;
  apiPublicKey: string;
  apiPrivateKey: string;
}

/** The settings of the proxy this example asks for. */
export interface AuthProxySettings {
  /** The app's origins (CORS on the proxy). */
  allowedOrigins: string[];
  /** The name in the sign-in mails' subject ("Sign in to …"). */
  appName: string;
}

interface ActivityResponse {
  activity: { status: string; result: Record<string, Record<string, unknown> | undefined> };
}

/**
 * Enables the auth proxy of the root organization and configures it for email codes and
 * passkeys; returns its config id.
 * @example
 * const configId = await enableAuthProxy(line, { allowedOrigins: ['http://localhost:3000'], appName: 'Demo' });
 */
export async function enableAuthProxy(
  root: RootCredential,
  settings: AuthProxySettings,
): Promise<string> {
  const api = new Turnkey({
    apiBaseUrl: root.url,
    defaultOrganizationId: root.organizationId,
    apiPublicKey: root.apiPublicKey,
    apiPrivateKey: root.apiPrivateKey,
  }).apiClient();
  const submit = async (path: string, type: string, parameters: object, resultKey: string) => {
    const { activity } = await api.request<object, ActivityResponse>(`/public/v1/submit/${path}`, {
      type,
      timestampMs: String(Date.now()),
      organizationId: root.organizationId,
      parameters,
    });
    // sdk-server does not throw on FAILED or CONSENSUS_NEEDED.
    if (activity.status !== 'ACTIVITY_STATUS_COMPLETED') {
      throw new Error(`${type} ended ${activity.status}`);
    }
    return activity.result[resultKey] ?? {};
  };
  await submit('enable_auth_proxy', 'ACTIVITY_TYPE_ENABLE_AUTH_PROXY', {}, 'enableAuthProxyResult');
  const { configId } = await submit(
    'update_auth_proxy_config',
    'ACTIVITY_TYPE_UPDATE_AUTH_PROXY_CONFIG',
    {
      allowedOrigins: settings.allowedOrigins,
      allowedAuthMethods: ['email', 'passkey'],
      emailCustomizationParams: { appName: settings.appName },
      // Six digits: what the kit's code boxes show by default.
      otpLength: 6,
      otpAlphanumeric: false,
      sessionExpirationSeconds: 900,
    },
    'updateAuthProxyConfigResult',
  );
  if (typeof configId !== 'string') throw new Error('UPDATE_AUTH_PROXY_CONFIG gave no configId');
  return configId;
}

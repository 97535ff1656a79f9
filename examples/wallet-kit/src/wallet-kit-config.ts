/**
 * What the app needs to know about one Keyhold, and how to read it from the JSON line that
 * `keyhold serve` prints when it is listening. The app fetches it as `/config.json` from the
 * server that serves it, so one build runs against any Keyhold.
 */

/** The part of `keyhold serve`'s listening line the app reads. */
export interface KeyholdListeningLine {
  url: string;
  organizationId?: string;
  authProxyUrl?: string;
  authProxyConfigId?: string;
  exportIframeUrl?: string;
  importIframeUrl?: string;
}

/** The Wallet Kit settings that point `@turnkey/react-wallet-kit` at one Keyhold. */
export interface WalletKitConfig {
  /** Keyhold's public API (`/public/v1/…`): the listening line's `url`. */
  apiBaseUrl: string;
  /** The auth proxy `@turnkey/core` calls for OTP, sign-up and the kit's settings. */
  authProxyUrl: string;
  /** Sent as `X-Auth-Proxy-Config-ID`; it makes the kit fetch `/v1/wallet_kit_config`. */
  authProxyConfigId: string;
  /** The parent organization the users' sub-organizations are made under. */
  organizationId: string;
  /** The self-hosted export frame (it verifies bundles with Keyhold's signer key). */
  exportIframeUrl: string;
  /** The self-hosted import frame. */
  importIframeUrl: string;
}

/**
 * The kit's settings for the Keyhold that printed `line`; throws naming what is missing
 * (a Keyhold without the auth proxy or the frames cannot host the kit).
 * @example
 * walletKitConfigFrom(JSON.parse(firstLineOf('keyhold serve --dev')));
 */
export function walletKitConfigFrom(line: KeyholdListeningLine): WalletKitConfig {
  const need = (name: keyof KeyholdListeningLine): string => {
    const value = line[name];
    if (typeof value !== 'string' || value === '') {
      throw new Error(`keyhold serve's listening line has no ${name}: is it \`serve --dev\`?`);
    }
    return value;
  };
  return {
    apiBaseUrl: need('url'),
    authProxyUrl: need('authProxyUrl'),
    authProxyConfigId: need('authProxyConfigId'),
    organizationId: need('organizationId'),
    exportIframeUrl: need('exportIframeUrl'),
    importIframeUrl: need('importIframeUrl'),
  };
}

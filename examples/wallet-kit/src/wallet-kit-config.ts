/**
 * What the app needs to know about one Keyhold, and how to read it from the JSON line that
 * `keyhold serve` prints when it is listening. The app fetches it as `/config.json` from the
 * server that serves it, so one build runs against any Keyhold.
 */

/** The part of `keyhold serve --dev`'s listening line this example reads. */
export interface KeyholdListeningLine {
  url: string;
  organizationId?: string;
  apiPublicKey?: string;
  apiPrivateKey?: string;
  signerPublicKey?: string;
  notarizerPublicKey?: string;
  tlsFetcherSignPublicKey?: string;
  authProxyUrl?: string;
  exportFrameUrl?: string;
  importFrameUrl?: string;
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

/** The value of `name` on the line; throws naming it when it is missing. */
export function required(line: KeyholdListeningLine, name: keyof KeyholdListeningLine): string {
  const value = line[name];
  if (typeof value !== 'string' || value === '') {
    throw new Error(`keyhold serve's listening line has no ${name}: is it \`serve --dev\`?`);
  }
  return value;
}

/**
 * The kit's settings for the Keyhold that printed `line`, whose auth proxy configuration is
 * `authProxyConfigId` (see `enableAuthProxy`).
 * @example
 * walletKitConfigFrom(JSON.parse(listeningLine), configId);
 */
export function walletKitConfigFrom(
  line: KeyholdListeningLine,
  authProxyConfigId: string,
): WalletKitConfig {
  return {
    apiBaseUrl: required(line, 'url'),
    authProxyUrl: required(line, 'authProxyUrl'),
    authProxyConfigId,
    organizationId: required(line, 'organizationId'),
    exportIframeUrl: required(line, 'exportFrameUrl'),
    importIframeUrl: required(line, 'importFrameUrl'),
  };
}

/** The root credential of a `--dev` line (it signs the proxy's set-up). */
export function rootCredentialOf(line: KeyholdListeningLine) {
  return {
    url: required(line, 'url'),
    organizationId: required(line, 'organizationId'),
    apiPublicKey: required(line, 'apiPublicKey'),
    apiPrivateKey: required(line, 'apiPrivateKey'),
  };
}

/** The keys the app pins in place of Turnkey's (see `pinKeyholdKeys`). */
export function pinnedKeysOf(line: KeyholdListeningLine) {
  return {
    tlsFetcherSignPublicKey: required(line, 'tlsFetcherSignPublicKey'),
    signerPublicKey: required(line, 'signerPublicKey'),
    notarizerPublicKey: required(line, 'notarizerPublicKey'),
  };
}

/**
 * The on-ramp provider port: how INIT_FIAT_ON_RAMP builds a provider's buy-widget URL, signed
 * the way that provider documents, and how get_onramp_transaction_status learns what became of
 * a purchase. One adapter per provider (`@keyhold/onramp-moonpay` for MoonPay); a provider
 * without an adapter is refused with FIAT_ON_RAMP_PROVIDER_NOT_SERVED. Secrets pass through an
 * adapter; it never logs or returns them.
 * @module
 */
import type {
  FiatOnRampCryptoCurrency,
  FiatOnRampCurrency,
  FiatOnRampNetwork,
  FiatOnRampPaymentMethod,
  FiatOnRampProvider,
} from '@keyhold/protocol';

/** An organization's credential at the provider, its secrets opened for this one call. */
export interface OnRampCredentialSecrets {
  readonly publishableApiKey: string;
  /** The provider's secret API key (MoonPay's `sk_…`, which signs widget URLs). */
  readonly secretApiKey: string;
  readonly projectId?: string;
  readonly privateApiKey?: string;
  /** Sandbox credential: the provider's sandbox widget. */
  readonly sandboxMode: boolean;
}

/** One purchase, as INIT_FIAT_ON_RAMP's intent describes it. */
export interface OnRampPurchase {
  /** Keyhold's id of the purchase (`onRampTransactionId`), passed to the provider. */
  readonly transactionId: string;
  readonly walletAddress: string;
  readonly network: FiatOnRampNetwork;
  readonly cryptoCurrencyCode: FiatOnRampCryptoCurrency;
  readonly fiatCurrencyCode?: FiatOnRampCurrency;
  readonly fiatCurrencyAmount?: string;
  readonly paymentMethod?: FiatOnRampPaymentMethod;
  readonly countryCode?: string;
  readonly countrySubdivisionCode?: string;
}

/** A purchase Keyhold initiated, as the status query asks about it. */
export interface OnRampTransactionRef {
  readonly transactionId: string;
  readonly sandboxMode: boolean;
  /** What Keyhold last recorded (`INITIATED` after INIT_FIAT_ON_RAMP). */
  readonly status: string;
}

/**
 * One provider's adapter. `widgetUrl` and `signUrl` are pure (no I/O) for URL-signing
 * providers; `widgetUrl` throws OnRampPurchaseUnsupportedError for a purchase the provider does
 * not offer (say, SOL on Bitcoin) and `signUrl` OnRampUrlRefusedError for a URL it will not sign.
 * `transactionStatus` answers the status of a purchase; with `refresh` it must ask the
 * provider, and throws OnRampStatusUnavailableError when it cannot.
 * @example
 * const { url } = provider.widgetUrl(credential, purchase);
 */
export interface OnRampProvider {
  readonly provider: FiatOnRampProvider;
  widgetUrl(credential: OnRampCredentialSecrets, purchase: OnRampPurchase): { url: string };
  signUrl(credential: OnRampCredentialSecrets, url: string): string;
  transactionStatus(
    transaction: OnRampTransactionRef,
    options: { refresh: boolean },
  ): Promise<{ status: string }>;
}

/**
 * The inversify service identifier of the on-ramp providers (an `OnRampProvider[]`).
 * @example
 * container.bind(OnRampProvider).toConstantValue([moonPayOnRampProvider()]);
 */
export const OnRampProvider: unique symbol = Symbol.for('keyhold.OnRampProvider');

/**
 * The provider does not offer this purchase (a currency on a network it does not serve, a
 * payment method it does not take). The reason names what, never a secret.
 * @example
 * throw new OnRampPurchaseUnsupportedError('MoonPay sells no SOL on Bitcoin');
 */
export class OnRampPurchaseUnsupportedError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'OnRampPurchaseUnsupportedError';
  }
}

/**
 * The provider's URL signing refuses this URL (not https, no query string).
 * @example
 * throw new OnRampUrlRefusedError('the URL has no query string to sign');
 */
export class OnRampUrlRefusedError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'OnRampUrlRefusedError';
  }
}

/**
 * The adapter cannot ask the provider for a status (no network, no API for it).
 * @example
 * throw new OnRampStatusUnavailableError('this adapter does not call MoonPay's API');
 */
export class OnRampStatusUnavailableError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'OnRampStatusUnavailableError';
  }
}

/** The status INIT_FIAT_ON_RAMP records: Keyhold made the widget URL; nothing after is known. */
export const ON_RAMP_INITIATED = 'INITIATED';

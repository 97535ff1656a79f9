/**
 * The OnRampProvider port for MoonPay: INIT_FIAT_ON_RAMP's purchase as the URL of MoonPay's buy
 * widget (`buy.moonpay.com`, `buy-sandbox.moonpay.com` for a sandbox credential) with its
 * documented parameters — `apiKey` (the publishable key), `currencyCode` (MoonPay's code of the
 * currency on its network: `usdc_base` is USDC on Base), `walletAddress`, `baseCurrencyCode`,
 * `baseCurrencyAmount`, `paymentMethod`, `externalTransactionId` (Keyhold's
 * `onRampTransactionId`) — signed as MoonPay documents (see `moonpay-url-signature.ts`).
 * `countryCode` and `countrySubdivisionCode` are Coinbase's: MoonPay asks the buyer itself.
 *
 * It makes no network call: `transactionStatus` answers the status Keyhold recorded, and with
 * `refresh` it refuses (OnRampStatusUnavailableError), since asking MoonPay's API for a
 * transaction by its external id needs network access a self-hosted instance may not have.
 * @module
 */
import {
  type OnRampCredentialSecrets,
  type OnRampProvider,
  type OnRampPurchase,
  OnRampPurchaseUnsupportedError,
  OnRampStatusUnavailableError,
  type OnRampTransactionRef,
  OnRampUrlRefusedError,
} from '@keyhold/activities';
import { moonPayUrlSignature, signMoonPayUrl } from './moonpay-url-signature.js';

/** The widget's origin in each mode (MoonPay's SDKs use the same). */
export const MOONPAY_BUY_ORIGINS = {
  live: 'https://buy.moonpay.com',
  sandbox: 'https://buy-sandbox.moonpay.com',
} as const;

/** MoonPay's currency code of each (network, crypto currency) pair it sells. */
const CURRENCY_CODES: Readonly<Record<string, string>> = {
  'FIAT_ON_RAMP_BLOCKCHAIN_NETWORK_BITCOIN/FIAT_ON_RAMP_CRYPTO_CURRENCY_BTC': 'btc',
  'FIAT_ON_RAMP_BLOCKCHAIN_NETWORK_ETHEREUM/FIAT_ON_RAMP_CRYPTO_CURRENCY_ETH': 'eth',
  'FIAT_ON_RAMP_BLOCKCHAIN_NETWORK_ETHEREUM/FIAT_ON_RAMP_CRYPTO_CURRENCY_USDC': 'usdc',
  'FIAT_ON_RAMP_BLOCKCHAIN_NETWORK_SOLANA/FIAT_ON_RAMP_CRYPTO_CURRENCY_SOL': 'sol',
  'FIAT_ON_RAMP_BLOCKCHAIN_NETWORK_SOLANA/FIAT_ON_RAMP_CRYPTO_CURRENCY_USDC': 'usdc_sol',
  'FIAT_ON_RAMP_BLOCKCHAIN_NETWORK_BASE/FIAT_ON_RAMP_CRYPTO_CURRENCY_ETH': 'eth_base',
  'FIAT_ON_RAMP_BLOCKCHAIN_NETWORK_BASE/FIAT_ON_RAMP_CRYPTO_CURRENCY_USDC': 'usdc_base',
};

/** The payment methods MoonPay's widget pre-selects, by MoonPay's name. */
const PAYMENT_METHODS: Readonly<Record<string, string>> = {
  FIAT_ON_RAMP_PAYMENT_METHOD_CREDIT_DEBIT_CARD: 'credit_debit_card',
  FIAT_ON_RAMP_PAYMENT_METHOD_APPLE_PAY: 'apple_pay',
  FIAT_ON_RAMP_PAYMENT_METHOD_GOOGLE_PAY: 'google_pay',
  FIAT_ON_RAMP_PAYMENT_METHOD_SEPA_BANK_TRANSFER: 'sepa_bank_transfer',
  FIAT_ON_RAMP_PAYMENT_METHOD_GBP_BANK_TRANSFER: 'gbp_bank_transfer',
  FIAT_ON_RAMP_PAYMENT_METHOD_GBP_OPEN_BANKING_PAYMENT: 'gbp_open_banking_payment',
  FIAT_ON_RAMP_PAYMENT_METHOD_PIX_INSTANT_PAYMENT: 'pix_instant_payment',
  FIAT_ON_RAMP_PAYMENT_METHOD_PAYPAL: 'paypal',
  FIAT_ON_RAMP_PAYMENT_METHOD_VENMO: 'venmo',
  FIAT_ON_RAMP_PAYMENT_METHOD_MOONPAY_BALANCE: 'moonpay_balance',
  FIAT_ON_RAMP_PAYMENT_METHOD_ACH_BANK_ACCOUNT: 'ach_bank_transfer',
};

const short = (value: string) => value.replace(/^FIAT_ON_RAMP_[A-Z_]*?_(?=[A-Z0-9]+$)/, '');

/** The buy-widget URL of `purchase`, unsigned (its parameters in MoonPay's names). */
export function moonPayWidgetUrl(
  credential: Pick<OnRampCredentialSecrets, 'publishableApiKey' | 'sandboxMode'>,
  purchase: OnRampPurchase,
): URL {
  const currencyCode = CURRENCY_CODES[`${purchase.network}/${purchase.cryptoCurrencyCode}`];
  if (!currencyCode) {
    throw new OnRampPurchaseUnsupportedError(
      `MoonPay sells no ${short(purchase.cryptoCurrencyCode)} on ${purchase.network}`,
    );
  }
  const url = new URL(MOONPAY_BUY_ORIGINS[credential.sandboxMode ? 'sandbox' : 'live']);
  const params = url.searchParams;
  params.append('apiKey', credential.publishableApiKey);
  params.append('currencyCode', currencyCode);
  params.append('walletAddress', purchase.walletAddress);
  if (purchase.fiatCurrencyCode !== undefined) {
    params.append('baseCurrencyCode', short(purchase.fiatCurrencyCode).toLowerCase());
  }
  if (purchase.fiatCurrencyAmount !== undefined) {
    params.append('baseCurrencyAmount', purchase.fiatCurrencyAmount);
  }
  if (purchase.paymentMethod !== undefined) {
    const method = PAYMENT_METHODS[purchase.paymentMethod];
    if (!method) {
      throw new OnRampPurchaseUnsupportedError(
        `MoonPay takes no payment method ${purchase.paymentMethod}`,
      );
    }
    params.append('paymentMethod', method);
  }
  params.append('externalTransactionId', purchase.transactionId);
  return url;
}

/**
 * The MoonPay adapter of the OnRampProvider port.
 * @example
 * createKeyhold({ onRamp: { providers: [moonPayOnRampProvider()] } });
 */
export function moonPayOnRampProvider(): OnRampProvider {
  return {
    provider: 'FIAT_ON_RAMP_PROVIDER_MOONPAY',
    widgetUrl(credential: OnRampCredentialSecrets, purchase: OnRampPurchase) {
      // Signed over the query as URLSearchParams serializes it, which is also what MoonPay's
      // verifier re-serializes after taking `signature` off.
      const url = moonPayWidgetUrl(credential, purchase).toString();
      return { url: signMoonPayUrl(url, credential.secretApiKey) };
    },
    signUrl(credential: OnRampCredentialSecrets, url: string) {
      let parsed: URL;
      try {
        parsed = new URL(url);
      } catch {
        throw new OnRampUrlRefusedError('not a URL');
      }
      if (parsed.search.length <= 1) throw new OnRampUrlRefusedError('no query string to sign');
      if (parsed.searchParams.has('signature')) {
        throw new OnRampUrlRefusedError('the URL is already signed (it has a signature parameter)');
      }
      return moonPayUrlSignature(url, credential.secretApiKey);
    },
    async transactionStatus(transaction: OnRampTransactionRef, options: { refresh: boolean }) {
      if (options.refresh) {
        throw new OnRampStatusUnavailableError(
          "this adapter makes no call to MoonPay's API; the status Keyhold recorded is all it knows",
        );
      }
      return { status: transaction.status };
    },
  };
}

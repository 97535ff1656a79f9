import {
  OnRampPurchaseUnsupportedError,
  OnRampStatusUnavailableError,
  OnRampUrlRefusedError,
} from '@keyhold/activities';
import {
  FIAT_ON_RAMP_CURRENCIES,
  FIAT_ON_RAMP_PAYMENT_METHODS,
  type FiatOnRampPaymentMethod,
} from '@keyhold/protocol';
import { MoonPay } from '@moonpay/moonpay-node';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { moonPayOnRampProvider } from './moonpay-on-ramp-provider.js';

const provider = moonPayOnRampProvider();
const credential = (sandboxMode: boolean) => ({
  publishableApiKey: sandboxMode ? 'pk_test_123' : 'pk_live_123',
  secretApiKey: sandboxMode ? 'sk_test_456' : 'sk_live_456',
  sandboxMode,
});
const purchase = {
  transactionId: '7a0e3b1c-3f6a-4a3e-9c1e-1f2d3c4b5a69',
  walletAddress: '0xde0b295669a9fd93d5f28d9ec85e40f4cb697bae',
  network: 'FIAT_ON_RAMP_BLOCKCHAIN_NETWORK_BASE',
  cryptoCurrencyCode: 'FIAT_ON_RAMP_CRYPTO_CURRENCY_USDC',
} as const;

describe('moonPayOnRampProvider', () => {
  it("builds the buy widget's URL with MoonPay's parameters, signed so MoonPay's SDK verifies it", () => {
    const { url } = provider.widgetUrl(credential(true), {
      ...purchase,
      fiatCurrencyCode: 'FIAT_ON_RAMP_CURRENCY_EUR',
      fiatCurrencyAmount: '25.50',
      paymentMethod: 'FIAT_ON_RAMP_PAYMENT_METHOD_SEPA_BANK_TRANSFER',
      countryCode: 'DE',
    });
    const parsed = new URL(url);
    expect(parsed.origin).toBe('https://buy-sandbox.moonpay.com');
    expect([...parsed.searchParams.keys()]).toEqual([
      'apiKey',
      'currencyCode',
      'walletAddress',
      'baseCurrencyCode',
      'baseCurrencyAmount',
      'paymentMethod',
      'externalTransactionId',
      'signature',
    ]);
    expect(Object.fromEntries(parsed.searchParams)).toMatchObject({
      apiKey: 'pk_test_123',
      currencyCode: 'usdc_base',
      walletAddress: purchase.walletAddress,
      baseCurrencyCode: 'eur',
      baseCurrencyAmount: '25.50',
      paymentMethod: 'sepa_bank_transfer',
      externalTransactionId: purchase.transactionId,
    });
    expect(new MoonPay('sk_test_456', { debug: false }).url.isSignatureValid(url)).toBe(true);
    expect(new MoonPay('sk_test_other', { debug: false }).url.isSignatureValid(url)).toBe(false);
    const live = provider.widgetUrl(credential(false), purchase).url;
    expect(new URL(live).origin).toBe('https://buy.moonpay.com');
    expect(new MoonPay('sk_live_456', { debug: false }).url.isSignatureValid(live)).toBe(true);
  });

  it('every URL it builds verifies, for any currency, amount, method MoonPay takes and address', () => {
    const methods = FIAT_ON_RAMP_PAYMENT_METHODS.filter(
      (m) => !m.endsWith('CRYPTO_ACCOUNT') && !m.endsWith('FIAT_WALLET'),
    );
    fc.assert(
      fc.property(
        fc.constantFrom(...FIAT_ON_RAMP_CURRENCIES),
        fc.stringMatching(/^[0-9]{1,6}(\.[0-9]{2})?$/),
        fc.constantFrom<FiatOnRampPaymentMethod>(...methods),
        fc.stringMatching(/^[A-Za-z0-9]{20,60}$/),
        (fiatCurrencyCode, fiatCurrencyAmount, paymentMethod, walletAddress) => {
          const { url } = provider.widgetUrl(credential(true), {
            ...purchase,
            walletAddress,
            fiatCurrencyCode,
            fiatCurrencyAmount,
            paymentMethod,
          });
          expect(new MoonPay('sk_test_456', { debug: false }).url.isSignatureValid(url)).toBe(true);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('refuses what MoonPay does not sell or take, and URLs it cannot sign', () => {
    expect(() =>
      provider.widgetUrl(credential(true), {
        ...purchase,
        network: 'FIAT_ON_RAMP_BLOCKCHAIN_NETWORK_BITCOIN',
        cryptoCurrencyCode: 'FIAT_ON_RAMP_CRYPTO_CURRENCY_SOL',
      }),
    ).toThrow(OnRampPurchaseUnsupportedError);
    expect(() =>
      provider.widgetUrl(credential(true), {
        ...purchase,
        paymentMethod: 'FIAT_ON_RAMP_PAYMENT_METHOD_CRYPTO_ACCOUNT',
      }),
    ).toThrow(OnRampPurchaseUnsupportedError);
    for (const url of [
      'not a url',
      'https://buy.moonpay.com',
      'https://buy.moonpay.com?a=1&signature=x',
    ]) {
      expect(() => provider.signUrl(credential(true), url)).toThrow(OnRampUrlRefusedError);
    }
    const url = 'https://buy-sandbox.moonpay.com?apiKey=pk_test_123&currencyCode=eth';
    const signature = provider.signUrl(credential(true), url);
    expect(
      new MoonPay('sk_test_456', { debug: false }).url.isSignatureValid(
        `${url}&signature=${encodeURIComponent(signature)}`,
      ),
    ).toBe(true);
  });

  it('answers the recorded status, and refuses to claim a refreshed one', async () => {
    const transaction = {
      transactionId: purchase.transactionId,
      sandboxMode: true,
      status: 'INITIATED',
    };
    expect(await provider.transactionStatus(transaction, { refresh: false })).toEqual({
      status: 'INITIATED',
    });
    await expect(provider.transactionStatus(transaction, { refresh: true })).rejects.toBeInstanceOf(
      OnRampStatusUnavailableError,
    );
  });
});

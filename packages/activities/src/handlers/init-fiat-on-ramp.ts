/**
 * INIT_FIAT_ON_RAMP: the provider's buy-widget URL for one purchase, built and signed by the
 * provider's adapter (OnRampProvider port) with the organization's credential for that
 * provider and mode; with `urlForSignature`, also the provider's signature of that URL (what
 * MoonPay's client SDKs take in `updateSignature`). Keyhold records the purchase
 * (`onRampTransactionId`, status INITIATED) for get_onramp_transaction_status. Every refusal
 * refuses the request and stores nothing.
 * @module
 */
import { KeyholdError } from '@keyhold/protocol';
import {
  ON_RAMP_INITIATED,
  type OnRampCredentialSecrets,
  type OnRampProvider,
  OnRampPurchaseUnsupportedError,
  OnRampUrlRefusedError,
} from '../ports/on-ramp-provider.js';
import type { ActivityContext, HandlerOf } from './activity-handler.js';
import { refusingHandler } from './execution-refusal.js';
import { openOnRampCredential } from './on-ramp-secrets.js';

type InitParameters = Parameters<HandlerOf<'INIT_FIAT_ON_RAMP'>['execute']>[1];

/** `urlForSignature` as a URL the adapter may sign: https, with a query string. */
function urlForSignatureOf(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new KeyholdError('INVALID_URL_FOR_SIGNATURE', { reason: 'not a URL' });
  }
  if (url.protocol !== 'https:') {
    throw new KeyholdError('INVALID_URL_FOR_SIGNATURE', { reason: 'not an https URL' });
  }
  if (url.search.length <= 1) {
    throw new KeyholdError('INVALID_URL_FOR_SIGNATURE', { reason: 'no query string to sign' });
  }
  return value;
}

/** The adapter's signature of `url`, its refusal mapped to INVALID_URL_FOR_SIGNATURE. */
function signature(adapter: OnRampProvider, credential: OnRampCredentialSecrets, url: string) {
  try {
    return adapter.signUrl(credential, url);
  } catch (error) {
    if (error instanceof OnRampUrlRefusedError) {
      throw new KeyholdError('INVALID_URL_FOR_SIGNATURE', { reason: error.reason });
    }
    throw error;
  }
}

/** The adapter's widget URL, its refusal mapped to FIAT_ON_RAMP_PURCHASE_UNSUPPORTED. */
function widgetUrl(
  adapter: OnRampProvider,
  credential: OnRampCredentialSecrets,
  transactionId: string,
  p: InitParameters,
): string {
  try {
    return adapter.widgetUrl(credential, {
      transactionId,
      walletAddress: p.walletAddress,
      network: p.network,
      cryptoCurrencyCode: p.cryptoCurrencyCode,
      ...(p.fiatCurrencyCode !== undefined ? { fiatCurrencyCode: p.fiatCurrencyCode } : {}),
      ...(p.fiatCurrencyAmount !== undefined ? { fiatCurrencyAmount: p.fiatCurrencyAmount } : {}),
      ...(p.paymentMethod !== undefined ? { paymentMethod: p.paymentMethod } : {}),
      ...(p.countryCode !== undefined ? { countryCode: p.countryCode } : {}),
      ...(p.countrySubdivisionCode !== undefined
        ? { countrySubdivisionCode: p.countrySubdivisionCode }
        : {}),
    }).url;
  } catch (error) {
    if (error instanceof OnRampPurchaseUnsupportedError) {
      throw new KeyholdError('FIAT_ON_RAMP_PURCHASE_UNSUPPORTED', {
        onrampProvider: adapter.provider,
        reason: error.reason,
      });
    }
    throw error;
  }
}

/** The organization's credential for the provider and mode, or FIAT_ON_RAMP_CREDENTIAL_MISSING. */
async function credentialFor(ctx: ActivityContext, onrampProvider: string, sandboxMode: boolean) {
  const all = await ctx.tx.fiatOnRampCredentials.list(ctx.organization.organizationId);
  const record = all.find(
    (c) => c.onrampProvider === onrampProvider && c.sandboxMode === sandboxMode,
  );
  if (!record) {
    throw new KeyholdError('FIAT_ON_RAMP_CREDENTIAL_MISSING', { onrampProvider, sandboxMode });
  }
  return record;
}

export const initFiatOnRampHandler: HandlerOf<'INIT_FIAT_ON_RAMP'> = refusingHandler({
  async execute(ctx, p) {
    const adapter = ctx.onRamp.providers.get(p.onrampProvider);
    if (!adapter) {
      throw new KeyholdError('FIAT_ON_RAMP_PROVIDER_NOT_SERVED', {
        onrampProvider: p.onrampProvider,
      });
    }
    const urlToSign =
      p.urlForSignature === undefined ? undefined : urlForSignatureOf(p.urlForSignature);
    const sandboxMode = p.sandboxMode ?? false;
    const record = await credentialFor(ctx, p.onrampProvider, sandboxMode);
    const credential = openOnRampCredential(ctx.onRamp.encryptionKey, record);
    const transactionId = ctx.ids.uuid();
    const onRampUrl = widgetUrl(adapter, credential, transactionId, p);
    const onRampUrlSignature =
      urlToSign === undefined ? undefined : signature(adapter, credential, urlToSign);
    await ctx.tx.onRampTransactions.insert({
      organizationId: ctx.organization.organizationId,
      transactionId,
      onrampProvider: p.onrampProvider,
      fiatOnrampCredentialId: record.fiatOnrampCredentialId,
      walletAddress: p.walletAddress,
      network: p.network,
      cryptoCurrencyCode: p.cryptoCurrencyCode,
      ...(p.fiatCurrencyCode !== undefined ? { fiatCurrencyCode: p.fiatCurrencyCode } : {}),
      ...(p.fiatCurrencyAmount !== undefined ? { fiatCurrencyAmount: p.fiatCurrencyAmount } : {}),
      sandboxMode,
      status: ON_RAMP_INITIATED,
      createdAt: ctx.now,
      updatedAt: ctx.now,
    });
    return {
      onRampUrl,
      onRampTransactionId: transactionId,
      ...(onRampUrlSignature !== undefined ? { onRampUrlSignature } : {}),
    };
  },
});

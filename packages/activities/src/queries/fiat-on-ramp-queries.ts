/**
 * list_fiat_on_ramp_credentials: `{fiatOnRampCredentials}` of the organization, oldest first,
 * without any secret. get_onramp_transaction_status: `{transactionStatus}` of a purchase
 * INIT_FIAT_ON_RAMP initiated, as the provider's adapter answers it; without `refresh` that is
 * the status Keyhold recorded (INITIATED: the widget URL was made; what the buyer did next only
 * the provider knows), with `refresh` the adapter must ask the provider, and an adapter that
 * cannot (no network, as a self-hosted instance often has) is refused with
 * ON_RAMP_STATUS_REFRESH_UNAVAILABLE rather than answering a stale status as fresh.
 * @module
 */
import { KeyholdError } from '@keyhold/protocol';
import { OnRampStatusUnavailableError } from '../ports/on-ramp-provider.js';
import { fiatOnRampCredentialView } from '../views.js';
import type { QueryHandlerOf } from './query-handler.js';

export const listFiatOnRampCredentials: QueryHandlerOf<'list_fiat_on_ramp_credentials'> = async (
  ctx,
) => ({
  fiatOnRampCredentials: (
    await ctx.tx.fiatOnRampCredentials.list(ctx.organization.organizationId)
  ).map(fiatOnRampCredentialView),
});

export const getOnRampTransactionStatus: QueryHandlerOf<'get_onramp_transaction_status'> = async (
  ctx,
  body,
) => {
  const record = await ctx.tx.onRampTransactions.get(
    ctx.organization.organizationId,
    body.transactionId.toLowerCase(),
  );
  if (!record) {
    throw new KeyholdError('ON_RAMP_TRANSACTION_NOT_FOUND', { transactionId: body.transactionId });
  }
  const refresh = body.refresh ?? false;
  const adapter = ctx.onRampProviders.get(record.onrampProvider);
  if (!adapter) {
    if (refresh) {
      throw new KeyholdError('ON_RAMP_STATUS_REFRESH_UNAVAILABLE', {
        reason: `no adapter for ${record.onrampProvider}`,
      });
    }
    return { transactionStatus: record.status };
  }
  try {
    const { status } = await adapter.transactionStatus(
      {
        transactionId: record.transactionId,
        sandboxMode: record.sandboxMode,
        status: record.status,
      },
      { refresh },
    );
    return { transactionStatus: status };
  } catch (error) {
    if (error instanceof OnRampStatusUnavailableError) {
      throw new KeyholdError('ON_RAMP_STATUS_REFRESH_UNAVAILABLE', { reason: error.reason });
    }
    throw error;
  }
};

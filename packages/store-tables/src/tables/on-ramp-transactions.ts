/**
 * The on-ramp transactions table.
 * @module
 */
import type { OnRampTransactionRecord } from '@keyhold/activities';
import { fieldColumns, type TableSpec } from '../table-spec.js';

/**
 * The purchases INIT_FIAT_ON_RAMP initiated (`onRampTransactionId`) and the status Keyhold
 * recorded, read by get_onramp_transaction_status.
 * @example
 * ON_RAMP_TRANSACTIONS.primaryKey.name; // 'on_ramp_transaction_pkey'
 */
export const ON_RAMP_TRANSACTIONS: TableSpec<OnRampTransactionRecord> = {
  table: 'on_ramp_transactions',
  fields: fieldColumns<OnRampTransactionRecord>({
    organizationId: 'text',
    transactionId: 'text',
    onrampProvider: 'text',
    fiatOnrampCredentialId: 'text',
    walletAddress: 'text',
    network: 'text',
    cryptoCurrencyCode: 'text',
    fiatCurrencyCode: 'text?',
    fiatCurrencyAmount: 'text?',
    sandboxMode: 'boolean',
    status: 'text',
    createdAt: 'integer',
    updatedAt: 'integer',
  }),
  scope: 'organizationId',
  primaryKey: {
    name: 'on_ramp_transaction_pkey',
    sqlName: 'on_ramp_transactions_pkey',
    fields: ['organizationId', 'transactionId'],
  },
  createdAt: 'createdAt',
};

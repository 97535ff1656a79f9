/**
 * The payment gateway's payments table.
 * @module
 */
import type { PaymentRecord } from '@keyhold/activities';
import { fieldColumns, type TableSpec } from '../table-spec.js';

/**
 * Payments of the payment gateway: one row per EIP-3009 authorization (`authorization_key` is
 * unique across organizations, so a replay can never claim it twice).
 * @example
 * PAYMENTS.unique?.[0]?.name; // 'payment_authorization'
 */
export const PAYMENTS: TableSpec<PaymentRecord> = {
  table: 'payments',
  fields: fieldColumns<PaymentRecord>({
    organizationId: 'text',
    paymentId: 'text',
    network: 'text',
    x402Version: { type: 'integer', column: 'x402_version' },
    status: 'text',
    source: 'text',
    payer: 'text',
    payTo: 'text',
    asset: 'text',
    amount: 'text',
    authorizationKey: 'text',
    payloadHash: 'text',
    validBefore: 'integer',
    transaction: 'text?',
    rawTransaction: 'text?',
    errorReason: 'text?',
    createdAt: 'integer',
    updatedAt: 'integer',
  }),
  scope: 'organizationId',
  primaryKey: {
    name: 'payment_pkey',
    sqlName: 'payments_pkey',
    fields: ['organizationId', 'paymentId'],
  },
  unique: [
    {
      name: 'payment_authorization',
      sqlName: 'payments_authorization_key_key',
      fields: ['authorizationKey'],
    },
  ],
  createdAt: 'createdAt',
};

/**
 * What the payment queries answer for one payment: its record without the signed bytes.
 * @module
 */
import type { PaymentRecord, PaymentStatus } from '@keyhold/activities';

/**
 * A payment as `GET …/payments/{paymentId}` and the charge answer show it.
 * @example
 * const view: PaymentView = paymentView(record); // { paymentId, status: 'settled', transaction, … }
 */
export interface PaymentView {
  paymentId: string;
  organizationId: string;
  network: string;
  x402Version: number;
  status: PaymentStatus;
  source: string;
  payer: string;
  payTo: string;
  asset: string;
  amount: string;
  transaction?: string;
  errorReason?: string;
  createdAt: number;
  updatedAt: number;
}

/**
 * The view of a record.
 * @example
 * paymentView(record).status; // 'settled'
 */
export function paymentView(record: PaymentRecord): PaymentView {
  return {
    paymentId: record.paymentId,
    organizationId: record.organizationId,
    network: record.network,
    x402Version: record.x402Version,
    status: record.status,
    source: record.source,
    payer: record.payer,
    payTo: record.payTo,
    asset: record.asset,
    amount: record.amount,
    ...(record.transaction !== undefined ? { transaction: record.transaction } : {}),
    ...(record.errorReason !== undefined ? { errorReason: record.errorReason } : {}),
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}

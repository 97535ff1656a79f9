/**
 * The end of every send-transaction activity that signs (ETH_SEND_TRANSACTION,
 * SOL_SEND_TRANSACTION): the signed bytes are stored in the activity's transaction, and sent
 * only after it commits. A send cut short is repeated by get_send_transaction_status with the
 * same stored bytes, so one activity never makes two transactions.
 * @module
 */
import type { SendTransactionRecord } from '../records.js';
import type { ActivityContext } from './activity-handler.js';

/** What the handler signed; the activity's ids and times are added here. */
export type SignedSend = Omit<
  SendTransactionRecord,
  'organizationId' | 'sendTransactionStatusId' | 'activityId' | 'createdAt' | 'updatedAt'
>;

/**
 * Stores the signed transaction and sends it once the activity has committed.
 * @example
 * return storeThenSend(ctx, signed, 'send the signed Solana transaction', (record) => sendSolanaRecord(chain, record));
 */
export async function storeThenSend(
  ctx: ActivityContext,
  signed: SignedSend,
  description: string,
  send: (record: SendTransactionRecord) => Promise<void>,
): Promise<{ sendTransactionStatusId: string }> {
  const record: SendTransactionRecord = {
    organizationId: ctx.organization.organizationId,
    sendTransactionStatusId: ctx.ids.uuid(),
    activityId: ctx.activityId,
    ...signed,
    createdAt: ctx.now,
    updatedAt: ctx.now,
  };
  await ctx.tx.sendTransactions.insert(record);
  ctx.afterCommit(description, () => send(record));
  return { sendTransactionStatusId: record.sendTransactionStatusId };
}

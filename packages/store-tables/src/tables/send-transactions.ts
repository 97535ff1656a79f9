/**
 * The send-transaction tables: ETH_SEND_TRANSACTION's signed transactions and the gas
 * sponsorship limits of UPSERT_GAS_USAGE_CONFIG.
 * @module
 */
import type { GasUsageConfigRecord, SendTransactionRecord } from '@keyhold/activities';
import { fieldColumns, type TableSpec } from '../table-spec.js';

/**
 * ETH_SEND_TRANSACTION's transactions: the signed bytes (public data), stored before they are
 * broadcast so that a cut-short broadcast repeats the same bytes.
 * @example
 * SEND_TRANSACTIONS.primaryKey.name; // 'send_transaction_pkey'
 */
export const SEND_TRANSACTIONS: TableSpec<SendTransactionRecord> = {
  table: 'send_transactions',
  fields: fieldColumns<SendTransactionRecord>({
    organizationId: 'text',
    sendTransactionStatusId: 'text',
    activityId: 'text',
    caip2: 'text',
    fromAddress: 'text',
    txHash: 'text',
    signedTransaction: 'text',
    sponsorSignedTransaction: 'text?',
    sponsorTxHash: 'text?',
    sponsoredWei: 'text?',
    sponsoredUsd: 'text?',
    createdAt: 'integer',
    updatedAt: 'integer',
  }),
  scope: 'organizationId',
  primaryKey: {
    name: 'send_transaction_pkey',
    sqlName: 'send_transactions_pkey',
    fields: ['organizationId', 'sendTransactionStatusId'],
  },
  createdAt: 'createdAt',
};

/**
 * Gas sponsorship limits, one per organization.
 * @example
 * GAS_USAGE_CONFIGS.primaryKey.name; // 'gas_usage_config_pkey'
 */
export const GAS_USAGE_CONFIGS: TableSpec<GasUsageConfigRecord> = {
  table: 'gas_usage_configs',
  fields: fieldColumns<GasUsageConfigRecord>({
    organizationId: 'text',
    gasUsageConfigId: 'text',
    orgWindowLimitUsd: 'text',
    subOrgWindowLimitUsd: 'text',
    windowDurationMinutes: 'integer',
    enabled: 'boolean',
    createdAt: 'integer',
    updatedAt: 'integer',
  }),
  scope: 'organizationId',
  primaryKey: {
    name: 'gas_usage_config_pkey',
    sqlName: 'gas_usage_configs_pkey',
    fields: ['organizationId', 'gasUsageConfigId'],
  },
  createdAt: 'createdAt',
};

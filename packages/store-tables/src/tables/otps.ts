/**
 * The one-time codes table.
 * @module
 */
import type { OtpRecord } from '@keyhold/activities';
import { fieldColumns, type TableSpec } from '../table-spec.js';

/**
 * One-time codes an organization sent (INIT_OTP): a keyed MAC of the code, never the code.
 * @example
 * OTPS.primaryKey.name; // 'otp_pkey'
 */
export const OTPS: TableSpec<OtpRecord> = {
  table: 'otps',
  fields: fieldColumns<OtpRecord>({
    organizationId: 'text',
    otpId: 'text',
    otpType: 'text',
    contact: 'text',
    codeMac: 'text',
    attempts: 'integer',
    expiresAt: 'integer',
    verifiedAt: 'integer?',
    tokenUsedAt: 'integer?',
    signupUsedAt: 'integer?',
    createdAt: 'integer',
    updatedAt: 'integer',
  }),
  scope: 'organizationId',
  primaryKey: { name: 'otp_pkey', sqlName: 'otps_pkey', fields: ['organizationId', 'otpId'] },
  createdAt: 'createdAt',
};

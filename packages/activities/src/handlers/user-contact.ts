/**
 * Finding a user of the organization by what an end user can prove they hold: an email address
 * or a phone number (one-time codes, email auth and recovery, verification tokens, attested
 * stamps).
 * @module
 */
import type { StoreTransaction } from '../ports/store.js';
import type { UserRecord } from '../records.js';
import type { ActivityContext } from './activity-handler.js';

/**
 * The organization's user with this email address or phone number (normalized as
 * `normalizeContact` does), if any.
 * @example
 * const user = await findUserWithContact(ctx, 'OTP_TYPE_EMAIL', 'alice@example.com');
 */
export function findUserWithContact(
  ctx: ActivityContext,
  otpType: string,
  contact: string,
): Promise<UserRecord | undefined> {
  return userWithContact(ctx.tx, ctx.organization.organizationId, otpType, contact);
}

/**
 * The user of `organizationId` with this email address or phone number, outside a handler (an
 * attested stamp's, X-Stamp-Attested).
 * @example
 * const user = await userWithContact(tx, orgId, 'OTP_TYPE_EMAIL', 'alice@example.com');
 */
export async function userWithContact(
  tx: StoreTransaction,
  organizationId: string,
  otpType: string,
  contact: string,
): Promise<UserRecord | undefined> {
  const users = await tx.users.list(organizationId);
  return users.find((u) =>
    otpType === 'OTP_TYPE_EMAIL'
      ? u.userEmail?.toLowerCase() === contact
      : u.userPhoneNumber !== undefined && u.userPhoneNumber.replace(/[\s().-]/g, '') === contact,
  );
}

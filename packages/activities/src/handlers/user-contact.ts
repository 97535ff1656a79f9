/**
 * Finding a user of the organization by what an end user can prove they hold: an email address
 * or a phone number (one-time codes, email auth and recovery, verification tokens).
 * @module
 */
import type { UserRecord } from '../records.js';
import type { ActivityContext } from './activity-handler.js';

/**
 * The organization's user with this email address or phone number (normalized as
 * `normalizeContact` does), if any.
 * @example
 * const user = await findUserWithContact(ctx, 'OTP_TYPE_EMAIL', 'alice@example.com');
 */
export async function findUserWithContact(
  ctx: ActivityContext,
  otpType: string,
  contact: string,
): Promise<UserRecord | undefined> {
  const users = await ctx.tx.users.list(ctx.organization.organizationId);
  return users.find((u) =>
    otpType === 'OTP_TYPE_EMAIL'
      ? u.userEmail?.toLowerCase() === contact
      : u.userPhoneNumber !== undefined && u.userPhoneNumber.replace(/[\s().-]/g, '') === contact,
  );
}

/**
 * UPDATE_USER_EMAIL and UPDATE_USER_PHONE_NUMBER: a user's email address or phone number,
 * optionally proven by a verification token of VERIFY_OTP for that contact (wire-compat §4),
 * which is then spent and marks the contact verified (`list_verified_suborgs`). Without a
 * token the contact is set unverified, as UPDATE_USER sets it; an empty one removes it. A
 * token for another contact, organization or channel, expired or already used, refuses the
 * request and changes nothing.
 * @module
 */
import { KeyholdError } from '@keyhold/protocol';
import type { UserRecord } from '../records.js';
import type { ActivityContext, HandlerOf } from './activity-handler.js';
import { refusingHandler } from './execution-refusal.js';
import { normalizeContact } from './otp-code.js';
import {
  readVerificationToken,
  requireTokenContact,
  spendVerificationToken,
} from './verification-token.js';

/** Which contact an activity sets, and where it is kept on the user. */
interface ContactField {
  readonly otpType: 'OTP_TYPE_EMAIL' | 'OTP_TYPE_SMS';
  readonly set: (
    user: UserRecord,
    value: string | undefined,
    verifiedAt: number | undefined,
  ) => void;
}

const EMAIL: ContactField = {
  otpType: 'OTP_TYPE_EMAIL',
  set(user, value, verifiedAt) {
    if (value === undefined) delete user.userEmail;
    else user.userEmail = value;
    if (verifiedAt === undefined) delete user.emailVerifiedAt;
    else user.emailVerifiedAt = verifiedAt;
  },
};

const PHONE_NUMBER: ContactField = {
  otpType: 'OTP_TYPE_SMS',
  set(user, value, verifiedAt) {
    if (value === undefined) delete user.userPhoneNumber;
    else user.userPhoneNumber = value;
    if (verifiedAt === undefined) delete user.phoneNumberVerifiedAt;
    else user.phoneNumberVerifiedAt = verifiedAt;
  },
};

async function updateContact(
  ctx: ActivityContext,
  field: ContactField,
  p: { userId: string; contact: string; verificationToken?: string | undefined },
): Promise<{ userId: string }> {
  const user = await ctx.tx.users.getForUpdate(ctx.organization.organizationId, p.userId);
  if (!user) throw new KeyholdError('USER_NOT_FOUND', { userId: p.userId });
  const value = p.contact.trim();
  let verifiedAt: number | undefined;
  if (p.verificationToken !== undefined) {
    const claims = readVerificationToken(ctx, p.verificationToken);
    requireTokenContact(claims, field.otpType, value);
    await spendVerificationToken(ctx, claims);
    verifiedAt = ctx.now;
  } else if (value !== '') {
    normalizeContact(field.otpType, value);
  }
  field.set(user, value === '' ? undefined : value, verifiedAt);
  user.updatedAt = ctx.now;
  await ctx.tx.users.update(user);
  return { userId: user.userId };
}

export const updateUserEmailHandler: HandlerOf<'UPDATE_USER_EMAIL'> = refusingHandler({
  execute: (ctx, p) =>
    updateContact(ctx, EMAIL, {
      userId: p.userId,
      contact: p.userEmail,
      verificationToken: p.verificationToken,
    }),
});

export const updateUserPhoneNumberHandler: HandlerOf<'UPDATE_USER_PHONE_NUMBER'> = refusingHandler({
  execute: (ctx, p) =>
    updateContact(ctx, PHONE_NUMBER, {
      userId: p.userId,
      contact: p.userPhoneNumber,
      verificationToken: p.verificationToken,
    }),
});

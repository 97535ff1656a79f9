/**
 * UPDATE_USER and UPDATE_USER_NAME.
 * @module
 */
import { type IntentOfKind, KeyholdError } from '@keyhold/protocol';
import type { ActivityContext, HandlerOf } from './activity-handler.js';
import { requireUserTags } from './tags.js';

/** UPDATE_USER_NAME's intent is an UPDATE_USER intent with a name: both run this. */
async function updateUser(ctx: ActivityContext, p: IntentOfKind<'UPDATE_USER'>) {
  const user = await ctx.tx.users.get(ctx.organization.organizationId, p.userId);
  if (!user) throw new KeyholdError('USER_NOT_FOUND', { userId: p.userId });
  if (p.userName !== undefined) user.userName = p.userName;
  // A contact that changes is no longer the one a verification token proved.
  if (p.userEmail !== undefined && p.userEmail !== user.userEmail) {
    user.userEmail = p.userEmail;
    delete user.emailVerifiedAt;
  }
  if (p.userPhoneNumber !== undefined && p.userPhoneNumber !== user.userPhoneNumber) {
    user.userPhoneNumber = p.userPhoneNumber;
    delete user.phoneNumberVerifiedAt;
  }
  if (p.userTagIds !== undefined) user.userTags = await requireUserTags(ctx, p.userTagIds);
  user.updatedAt = ctx.now;
  await ctx.tx.users.update(user);
  return { userId: user.userId };
}

export const updateUserHandler: HandlerOf<'UPDATE_USER'> = { execute: updateUser };
export const updateUserNameHandler: HandlerOf<'UPDATE_USER_NAME'> = { execute: updateUser };

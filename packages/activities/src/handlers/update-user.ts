/**
 * UPDATE_USER and UPDATE_USER_NAME.
 * @module
 */
import { KeyholdError } from '@keyhold/protocol';
import type { ActivityContext, ActivityHandler } from './activity-handler.js';
import { requireUserTags } from './tags.js';

interface UpdateUser {
  userId: string;
  userName?: string;
  userEmail?: string;
  userTagIds?: string[];
  userPhoneNumber?: string;
}

async function updateUser(ctx: ActivityContext, p: UpdateUser) {
  const user = await ctx.tx.users.get(ctx.organization.organizationId, p.userId);
  if (!user) throw new KeyholdError('USER_NOT_FOUND', { userId: p.userId });
  if (p.userName !== undefined) user.userName = p.userName;
  if (p.userEmail !== undefined) user.userEmail = p.userEmail;
  if (p.userPhoneNumber !== undefined) user.userPhoneNumber = p.userPhoneNumber;
  if (p.userTagIds !== undefined) user.userTags = await requireUserTags(ctx, p.userTagIds);
  user.updatedAt = ctx.now;
  await ctx.tx.users.update(user);
  return { userId: user.userId };
}

export const updateUserHandler: ActivityHandler<UpdateUser> = { execute: updateUser };
export const updateUserNameHandler: ActivityHandler<{ userId: string; userName: string }> = {
  execute: updateUser,
};

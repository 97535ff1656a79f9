/**
 * CREATE_INVITATIONS, ACCEPT_INVITATION (V1, V2) and DELETE_INVITATION.
 *
 * An invitation makes its invitee a user of the organization at once (name, email, tags),
 * holding a single credential: the invitation key, an expiring P-256 API key
 * (`INVITATION_SECONDS`) whose private half is mailed to the invitee and never stored. The
 * invitee stamps ACCEPT_INVITATION with it, naming the invitation and their user id, with the
 * passkey they will sign in with: the passkey is added, the invitation key removed and the
 * invitation ACCEPTED. DELETE_INVITATION revokes a pending invitation and removes the invitee
 * with their key. The invitation key submits ACCEPT_INVITATION and nothing else
 * (`credential-scope.ts`); accepting one's own invitation is allowed to the invitee
 * (`decision/decide.ts`).
 *
 * All three refuse bad input — an unknown sender or tag, a mail server that cannot be reached,
 * an unknown invitation, another user's, one already accepted or revoked, a stamp by anything
 * but the invitation key — and store nothing (`execution-refusal.ts`).
 * @module
 */
import { KeyholdError } from '@keyhold/protocol';
import { p256 } from '@noble/curves/nist.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import type { InvitationRecord, UserRecord } from '../records.js';
import type { ActivityContext, HandlerOf } from './activity-handler.js';
import { addAuthenticators, verifyAuthenticators } from './authenticator-creation.js';
import { refusingHandler } from './execution-refusal.js';
import { notify } from './notify.js';
import { normalizeContact } from './otp-code.js';
import { renderSecretEmail } from './secret-email.js';
import { addSessionKey } from './session-keys.js';
import { requireUserTags } from './tags.js';

/** The name of an invitation key: this prefix, then the invitation id. */
export const INVITATION_KEY_NAME_PREFIX = 'Invitation - ';

/** How long an invitation key stamps: 7 days. */
export const INVITATION_SECONDS = 7 * 24 * 3600;

/** `v1InvitationStatus` values. */
export const INVITATION_STATUS = {
  created: 'INVITATION_STATUS_CREATED',
  accepted: 'INVITATION_STATUS_ACCEPTED',
  revoked: 'INVITATION_STATUS_REVOKED',
} as const;

export const createInvitationsHandler: HandlerOf<'CREATE_INVITATIONS'> = refusingHandler({
  precheck(p) {
    for (const invitation of p.invitations) {
      normalizeContact('OTP_TYPE_EMAIL', invitation.receiverUserEmail);
    }
  },
  async execute(ctx, p) {
    const orgId = ctx.organization.organizationId;
    const invitationIds: string[] = [];
    for (const params of p.invitations) {
      if (!(await ctx.tx.users.get(orgId, params.senderUserId.toLowerCase()))) {
        throw new KeyholdError('USER_NOT_FOUND', { userId: params.senderUserId });
      }
      const user: UserRecord = {
        organizationId: orgId,
        userId: ctx.ids.uuid(),
        userName: params.receiverUserName,
        userEmail: params.receiverUserEmail.trim(),
        userTags: await requireUserTags(ctx, params.receiverUserTags),
        createdAt: ctx.now,
        updatedAt: ctx.now,
      };
      await ctx.tx.users.insert(user);
      const invitationId = ctx.ids.uuid();
      const privateKey = p256.utils.randomSecretKey();
      try {
        const key = await addSessionKey(ctx, user, {
          publicKey: bytesToHex(p256.getPublicKey(privateKey, true)),
          credentialType: 'CREDENTIAL_TYPE_API_KEY_P256',
          apiKeyName: `${INVITATION_KEY_NAME_PREFIX}${invitationId}`,
          seconds: INVITATION_SECONDS,
          invalidateExisting: false,
        });
        const record: InvitationRecord = {
          organizationId: orgId,
          invitationId,
          receiverUserName: params.receiverUserName,
          receiverEmail: user.userEmail!,
          receiverUserTags: user.userTags,
          accessType: params.accessType,
          status: INVITATION_STATUS.created,
          senderUserId: params.senderUserId.toLowerCase(),
          userId: user.userId,
          apiKeyId: key.apiKeyId,
          createdAt: ctx.now,
          updatedAt: ctx.now,
        };
        await ctx.tx.invitations.insert(record);
        await notify(
          ctx,
          renderSecretEmail({
            purpose: 'invitation',
            to: record.receiverEmail,
            secret: bytesToHex(privateKey),
            expiresInSeconds: INVITATION_SECONDS,
            organizationName: ctx.organization.name,
            details: [
              `Organization id: ${orgId}`,
              `Invitation id: ${invitationId}`,
              `User id: ${user.userId}`,
            ],
          }),
        );
      } finally {
        privateKey.fill(0);
      }
      invitationIds.push(invitationId);
    }
    return { invitationIds };
  },
});

/** The invitation, pending. @throws KeyholdError INVITATION_NOT_FOUND, INVITATION_NOT_PENDING */
async function pendingInvitation(
  ctx: ActivityContext,
  invitationId: string,
): Promise<InvitationRecord> {
  const orgId = ctx.organization.organizationId;
  const invitation = await ctx.tx.invitations.getForUpdate(orgId, invitationId.toLowerCase());
  if (!invitation) throw new KeyholdError('INVITATION_NOT_FOUND', { invitationId });
  if (invitation.status !== INVITATION_STATUS.created) {
    throw new KeyholdError('INVITATION_NOT_PENDING', { status: invitation.status });
  }
  return invitation;
}

export const acceptInvitationHandler: HandlerOf<'ACCEPT_INVITATION'> = refusingHandler({
  verify: (ctx, p) => verifyAuthenticators(ctx, [p.authenticator]),
  async execute(ctx, p) {
    const orgId = ctx.organization.organizationId;
    const invitation = await pendingInvitation(ctx, p.invitationId);
    const { principal } = ctx;
    const userId = p.userId.toLowerCase();
    if (
      principal.apiKey?.apiKeyId !== invitation.apiKeyId ||
      invitation.userId !== userId ||
      ('userId' in p.authenticator && p.authenticator.userId.toLowerCase() !== userId)
    ) {
      throw new KeyholdError('MAILED_CREDENTIAL_REQUIRED', {
        invitationId: invitation.invitationId,
        reason: 'stamp with the invitation key mailed to the invitee, naming their user id',
      });
    }
    await addAuthenticators(ctx, userId, [p.authenticator]);
    await ctx.tx.apiKeys.delete(orgId, invitation.apiKeyId);
    await ctx.tx.invitations.update({
      ...invitation,
      status: INVITATION_STATUS.accepted,
      updatedAt: ctx.now,
    });
    return { invitationId: invitation.invitationId, userId };
  },
});

export const deleteInvitationHandler: HandlerOf<'DELETE_INVITATION'> = refusingHandler({
  async execute(ctx, p) {
    const orgId = ctx.organization.organizationId;
    const invitation = await pendingInvitation(ctx, p.invitationId);
    for (const key of await ctx.tx.apiKeys.listByUser(orgId, invitation.userId)) {
      await ctx.tx.apiKeys.delete(orgId, key.apiKeyId);
    }
    await ctx.tx.users.delete(orgId, invitation.userId);
    await ctx.tx.invitations.update({
      ...invitation,
      status: INVITATION_STATUS.revoked,
      updatedAt: ctx.now,
    });
    return { invitationId: invitation.invitationId };
  },
});

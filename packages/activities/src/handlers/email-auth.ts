/**
 * EMAIL_AUTH (V1–V3), INIT_USER_EMAIL_RECOVERY (V1, V2) and RECOVER_USER: a credential mailed
 * to a user of the organization, where the mailbox is the proof (identity-and-payments §B2).
 *
 * - EMAIL_AUTH makes an expiring API key (CREDENTIAL_TYPE_EMAIL_AUTH_KEY_P256, 900 s unless
 *   `expirationSeconds` says otherwise) for the user with that address, and mails its private
 *   key in a credential bundle (wire-compat §3.4) encrypted to `targetPublicKey`, through the
 *   magic-link template. The bundle goes only by mail: the result is `{userId, apiKeyId}`.
 * - INIT_USER_EMAIL_RECOVERY does the same with a recovery key
 *   (CREDENTIAL_TYPE_RECOVER_USER_KEY_P256); RECOVER_USER, stamped with it by that user, adds
 *   a passkey to the user and removes the recovery key (one recovery per mail).
 *
 * A sub-organization created with `disableEmailAuth` / `disableEmailRecovery` refuses them.
 * A parent organization's users may submit EMAIL_AUTH and INIT_USER_EMAIL_RECOVERY for a
 * sub-organization (PARENT_RUN_KINDS): the user is looked up in the sub-organization. Every
 * refusal of EMAIL_AUTH and INIT_USER_EMAIL_RECOVERY — an address no user has, a mail server
 * that cannot be reached — refuses the request and stores nothing (`execution-refusal.ts`).
 * @module
 */
import { createCredentialBundle } from '@keyhold/keys';
import { type CredentialType, KeyholdError } from '@keyhold/protocol';
import { p256 } from '@noble/curves/nist.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import type { ActivityContext, HandlerOf } from './activity-handler.js';
import { addAuthenticators, verifyAuthenticators } from './authenticator-creation.js';
import { ExecutionRefusal, refusingHandler } from './execution-refusal.js';
import { notify } from './notify.js';
import { normalizeContact } from './otp-code.js';
import { parseTemplateVariables } from './otp-message.js';
import { renderSecretEmail, type SecretEmailPurpose } from './secret-email.js';
import { addSessionKey, sessionSeconds } from './session-keys.js';
import { checkTargetPublicKey } from './sessions.js';
import { findUserWithContact } from './user-contact.js';

/** What EMAIL_AUTH and INIT_USER_EMAIL_RECOVERY (every version) take. */
type MailedCredentialParameters = Parameters<HandlerOf<'EMAIL_AUTH'>['execute']>[1] &
  Partial<Parameters<HandlerOf<'INIT_USER_EMAIL_RECOVERY'>['execute']>[1]>;

function precheckMailedCredential(p: MailedCredentialParameters): void {
  sessionSeconds(p.expirationSeconds);
  checkTargetPublicKey(p.targetPublicKey);
  normalizeContact('OTP_TYPE_EMAIL', p.email);
  parseTemplateVariables(p.emailCustomization?.templateVariables);
}

/**
 * Makes a P-256 key for the user with `p.email`, registers its public half as an expiring key
 * of `credentialType`, and mails the private half in a credential bundle to that address.
 */
async function mailCredential(
  ctx: ActivityContext,
  p: MailedCredentialParameters,
  credentialType: CredentialType,
  purpose: SecretEmailPurpose,
  apiKeyName: string,
): Promise<{ userId: string; apiKeyId: string }> {
  const contact = normalizeContact('OTP_TYPE_EMAIL', p.email);
  const user = await findUserWithContact(ctx, 'OTP_TYPE_EMAIL', contact);
  if (!user) throw new KeyholdError('USER_NOT_FOUND', { reason: 'no user with this email' });
  const seconds = sessionSeconds(p.expirationSeconds);
  const privateKey = p256.utils.randomSecretKey();
  try {
    const key = await addSessionKey(ctx, user, {
      publicKey: bytesToHex(p256.getPublicKey(privateKey, true)),
      credentialType,
      apiKeyName,
      seconds,
      invalidateExisting: p.invalidateExisting ?? false,
    });
    const credentialBundle = await createCredentialBundle({
      plaintext: privateKey,
      targetPublicKey: p.targetPublicKey,
    });
    await notify(
      ctx,
      renderSecretEmail({
        purpose,
        // The address the user holds, as stored.
        to: user.userEmail ?? p.email.trim(),
        secret: credentialBundle,
        expiresInSeconds: seconds,
        ...(p.emailCustomization ? { emailCustomization: p.emailCustomization } : {}),
        ...(p.sendFromEmailAddress ? { sendFromEmailAddress: p.sendFromEmailAddress } : {}),
        ...(p.sendFromEmailSenderName
          ? { sendFromEmailSenderName: p.sendFromEmailSenderName }
          : {}),
        ...(p.replyToEmailAddress ? { replyToEmailAddress: p.replyToEmailAddress } : {}),
      }),
    );
    return { userId: user.userId, apiKeyId: key.apiKeyId };
  } finally {
    privateKey.fill(0);
  }
}

export const emailAuthHandler: HandlerOf<'EMAIL_AUTH'> = refusingHandler({
  precheck: precheckMailedCredential,
  execute(ctx, p) {
    if (ctx.organization.emailAuthDisabled) throw new KeyholdError('EMAIL_AUTH_DISABLED');
    return mailCredential(
      ctx,
      p,
      'CREDENTIAL_TYPE_EMAIL_AUTH_KEY_P256',
      'email-auth',
      p.apiKeyName ?? `Email Auth - ${ctx.now}`,
    );
  },
});

export const initUserEmailRecoveryHandler: HandlerOf<'INIT_USER_EMAIL_RECOVERY'> = refusingHandler({
  precheck: precheckMailedCredential,
  async execute(ctx, p) {
    if (ctx.organization.emailRecoveryDisabled) throw new KeyholdError('EMAIL_RECOVERY_DISABLED');
    const { userId } = await mailCredential(
      ctx,
      { ...p, invalidateExisting: false },
      'CREDENTIAL_TYPE_RECOVER_USER_KEY_P256',
      'recovery',
      `Recovery - ${ctx.now}`,
    );
    return { userId };
  },
});

/**
 * RECOVER_USER: only the recovery key INIT_USER_EMAIL_RECOVERY mailed to `userId` may stamp
 * it (anything else is refused, nothing stored); the passkey is added and every recovery key
 * of the user is removed.
 */
export const recoverUserHandler: HandlerOf<'RECOVER_USER'> = {
  verify: (ctx, p) => verifyAuthenticators(ctx, [p.authenticator]),
  async execute(ctx, p) {
    const { principal } = ctx;
    const orgId = ctx.organization.organizationId;
    if (
      principal.apiKey?.credentialType !== 'CREDENTIAL_TYPE_RECOVER_USER_KEY_P256' ||
      principal.user.userId !== p.userId.toLowerCase() ||
      principal.organizationId !== orgId
    ) {
      throw new ExecutionRefusal(
        new KeyholdError('MAILED_CREDENTIAL_REQUIRED', { userId: p.userId }),
      );
    }
    const authenticatorId = await addAuthenticators(ctx, principal.user.userId, [p.authenticator]);
    for (const key of await ctx.tx.apiKeys.listByUser(orgId, principal.user.userId)) {
      if (key.credentialType === 'CREDENTIAL_TYPE_RECOVER_USER_KEY_P256') {
        await ctx.tx.apiKeys.delete(orgId, key.apiKeyId);
      }
    }
    return { authenticatorId };
  },
};

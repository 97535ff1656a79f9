/**
 * INIT_OTP (V1–V3), VERIFY_OTP (V1, V2) and OTP_LOGIN (V1, V2): a one-time code by email or
 * SMS, verified into a verification token (wire-compat §4) that a backend exchanges for a
 * session (wire-compat §1.4, §4). INIT_OTP_AUTH (V1–V3) and OTP_AUTH, the legacy pair: the code
 * of a user of the organization buys an API key in a credential bundle (wire-compat §3.4).
 *
 * - INIT_OTP sends a code through the Notifier and stores only its MAC. It never looks at the
 *   organization's users, so its answer says nothing about whether a contact belongs to one.
 *   At most `OTPS_PER_CONTACT` codes per contact per `OTP_WINDOW_MS`, and
 *   `OTPS_PER_ORGANIZATION` per organization, are sent.
 * - VERIFY_OTP accepts a code once; `MAX_OTP_ATTEMPTS` wrong tries burn it (they are counted
 *   although the request is refused). V2 takes the code HPKE-encrypted to the OTP's target
 *   (`encryptOtpCodeToBundle`) together with the client key the token binds.
 * - OTP_LOGIN checks the token (signature, expiry, organization: the one that issued it or,
 *   for a token of a parent, any of its sub-organizations), uses it once, finds the user of
 *   the organization with that contact, checks the client signature, and registers the session
 *   key like STAMP_LOGIN.
 *
 * Every refusal refuses the request (see `execution-refusal.ts`): nothing is stored but the
 * attempt count, written in the transaction that read it.
 * @module
 */

import {
  type BundleSigner,
  createCredentialBundle,
  createOtpTargetBundle,
  createOtpVerificationToken,
  openOtpBundle,
} from '@keyhold/keys';
import { KeyholdError } from '@keyhold/protocol';
import { p256 } from '@noble/curves/nist.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { normalizeApiPublicKey } from '../api-key-public-key.js';
import type { OtpRecord } from '../records.js';
import type { ActivityContext, HandlerOf } from './activity-handler.js';
import { ExecutionRefusal, refusingHandler } from './execution-refusal.js';
import { notify } from './notify.js';
import {
  boundedSeconds,
  DEFAULT_OTP_SECONDS,
  DEFAULT_VERIFICATION_TOKEN_SECONDS,
  generateOtpCode,
  MAX_OTP_ATTEMPTS,
  MAX_OTP_SECONDS,
  MAX_VERIFICATION_TOKEN_SECONDS,
  normalizeContact,
  otpCodeMac,
  otpLength,
  otpMacKey,
  storedOtpCode,
  storedOtpCodeMatches,
} from './otp-code.js';
import { parseTemplateVariables, renderOtpMessage } from './otp-message.js';
import { addSessionKey, sessionSeconds } from './session-keys.js';
import { checkTargetPublicKey, loginSession } from './sessions.js';
import { findUserWithContact } from './user-contact.js';
import {
  checkClientSignature,
  readVerificationToken,
  spendVerificationToken,
} from './verification-token.js';

/** The window the send limits count in. */
export const OTP_WINDOW_MS = 3 * 60 * 1000;
/** Codes one contact may be sent per window. */
export const OTPS_PER_CONTACT = 3;
/** Codes one organization may send per window. */
export const OTPS_PER_ORGANIZATION = 300;

/** What INIT_OTP and INIT_OTP_AUTH (every version) take. */
type InitOtpParameters = Parameters<HandlerOf<'INIT_OTP'>['execute']>[1];

function precheckInit(p: InitOtpParameters): void {
  otpLength('otpLength' in p ? p.otpLength : undefined);
  boundedSeconds(
    'expirationSeconds' in p ? p.expirationSeconds : undefined,
    DEFAULT_OTP_SECONDS,
    MAX_OTP_SECONDS,
    'INVALID_OTP_EXPIRATION',
  );
  normalizeContact(p.otpType, p.contact);
  parseTemplateVariables(p.emailCustomization?.templateVariables);
}

/**
 * Makes, stores and (when `deliver`) sends a code; answers the OTP's id. Not delivering still
 * stores the OTP, so the answer is the same whether or not anyone receives the code.
 */
async function sendOtp(
  ctx: ActivityContext,
  p: InitOtpParameters,
  deliver = true,
): Promise<string> {
  const orgId = ctx.organization.organizationId;
  const contact = normalizeContact(p.otpType, p.contact);
  const seconds = boundedSeconds(
    'expirationSeconds' in p ? p.expirationSeconds : undefined,
    DEFAULT_OTP_SECONDS,
    MAX_OTP_SECONDS,
    'INVALID_OTP_EXPIRATION',
  );
  await enforceSendLimits(ctx, contact);
  const otpId = ctx.ids.uuid();
  const code = generateOtpCode(
    otpLength('otpLength' in p ? p.otpLength : undefined),
    ('alphanumeric' in p ? p.alphanumeric : undefined) ?? true,
  );
  const record: OtpRecord = {
    organizationId: orgId,
    otpId,
    otpType: p.otpType,
    contact,
    codeMac: otpCodeMac(otpMacKey(ctx.tlsFetcher.privateKey), otpId, code),
    attempts: 0,
    expiresAt: ctx.now + seconds * 1000,
    createdAt: ctx.now,
    updatedAt: ctx.now,
  };
  await ctx.tx.otps.insert(record);
  if (!deliver) return otpId;
  const message = renderOtpMessage({
    ...p,
    appName: 'appName' in p ? p.appName : undefined,
    contact: p.contact.trim(),
    code,
    expiresInSeconds: seconds,
  });
  // Sent inside the transaction (see notify.ts): a transport that fails stores no OTP.
  await notify(ctx, message);
  return otpId;
}

export const initOtpHandler: HandlerOf<'INIT_OTP'> = refusingHandler({
  precheck: precheckInit,
  async execute(ctx, p) {
    const otpId = await sendOtp(ctx, p);
    if (ctx.definition.version === 1) return { otpId };
    return {
      otpId,
      otpEncryptionTargetBundle: createOtpTargetBundle({ otpId, signer: ctx.tlsFetcher }),
    };
  },
});

/**
 * INIT_OTP_AUTH: a code for a user of the organization (run by the parent's backend for a
 * sub-organization, see PARENT_RUN_KINDS). A contact no user has gets no message, and the same
 * answer.
 */
export const initOtpAuthHandler: HandlerOf<'INIT_OTP_AUTH'> = refusingHandler({
  precheck: precheckInit,
  async execute(ctx, p) {
    const contact = normalizeContact(p.otpType, p.contact);
    const user = await findUserWithContact(ctx, p.otpType, contact);
    return { otpId: await sendOtp(ctx, p, user !== undefined) };
  },
});

/**
 * Refuses a send over the limits (MAX_OTPS_INITIATED), and removes the organization's codes
 * that are past both their expiry and the window, so the listing stays short.
 */
async function enforceSendLimits(ctx: ActivityContext, contact: string): Promise<void> {
  const orgId = ctx.organization.organizationId;
  const since = ctx.now - OTP_WINDOW_MS;
  let recent = 0;
  let forContact = 0;
  for (const otp of await ctx.tx.otps.list(orgId)) {
    if (otp.createdAt <= since) {
      if (otp.expiresAt <= ctx.now) await ctx.tx.otps.delete(orgId, otp.otpId);
      continue;
    }
    recent++;
    if (otp.contact === contact) forContact++;
  }
  if (forContact >= OTPS_PER_CONTACT || recent >= OTPS_PER_ORGANIZATION) {
    throw new KeyholdError('MAX_OTPS_INITIATED', { retryAfterSeconds: OTP_WINDOW_MS / 1000 });
  }
}

export const verifyOtpHandler: HandlerOf<'VERIFY_OTP'> = {
  precheck(p) {
    boundedSeconds(
      p.expirationSeconds,
      DEFAULT_VERIFICATION_TOKEN_SECONDS,
      MAX_VERIFICATION_TOKEN_SECONDS,
      'INVALID_VERIFICATION_TOKEN_EXPIRATION',
    );
    if ('publicKey' in p && p.publicKey !== undefined) {
      normalizeApiPublicKey('API_KEY_CURVE_P256', p.publicKey);
    }
  },
  storedParameters(p, keys) {
    if (!('otpCode' in p)) return p;
    return { ...p, otpCode: storedCode(keys.tlsFetcher, p.otpId, p.otpCode) };
  },
  async execute(ctx, p) {
    const orgId = ctx.organization.organizationId;
    const otp = await usableOtp(ctx, p.otpId);
    let code: string;
    let publicKey: string | undefined;
    if ('encryptedOtpBundle' in p) {
      try {
        ({ otpCode: code, publicKey } = await openOtpBundle({
          encryptedOtpBundle: p.encryptedOtpBundle,
          otpId: otp.otpId,
          signer: ctx.tlsFetcher,
        }));
      } catch (error) {
        if (error instanceof KeyholdError) return refuseWrongCode(ctx, otp, error);
        throw error;
      }
    } else {
      code = p.otpCode;
      publicKey = p.publicKey;
    }
    await checkCode(ctx, otp, code, 'encryptedOtpBundle' in p);
    let boundKey = '';
    if (publicKey !== undefined) {
      try {
        boundKey = normalizeApiPublicKey('API_KEY_CURVE_P256', publicKey);
      } catch (error) {
        if (error instanceof KeyholdError) refuse(error);
        throw error;
      }
    }
    await ctx.tx.otps.update({ ...otp, verifiedAt: ctx.now, updatedAt: ctx.now });
    const seconds = boundedSeconds(
      p.expirationSeconds,
      DEFAULT_VERIFICATION_TOKEN_SECONDS,
      MAX_VERIFICATION_TOKEN_SECONDS,
      'INVALID_VERIFICATION_TOKEN_EXPIRATION',
    );
    const verificationToken = createOtpVerificationToken(
      {
        id: otp.otpId,
        verificationType: otp.otpType,
        contact: otp.contact,
        organizationId: orgId,
        publicKey: boundKey,
        expMs: ctx.now + seconds * 1000,
      },
      ctx.tlsFetcher,
    );
    return { verificationToken };
  },
};

/**
 * OTP_AUTH (legacy): the code of an INIT_OTP_AUTH buys its user an API key
 * (CREDENTIAL_TYPE_OTP_AUTH_KEY_P256, 900 s by default) whose private key is handed over in a
 * credential bundle encrypted to `targetPublicKey`, as CREATE_READ_WRITE_SESSION does.
 */
export const otpAuthHandler: HandlerOf<'OTP_AUTH'> = {
  precheck(p) {
    sessionSeconds(p.expirationSeconds);
    checkTargetPublicKey(p.targetPublicKey);
  },
  storedParameters: (p, keys) => ({
    ...p,
    otpCode: storedCode(keys.tlsFetcher, p.otpId, p.otpCode),
  }),
  async execute(ctx, p) {
    const otp = await usableOtp(ctx, p.otpId);
    await checkCode(ctx, otp, p.otpCode, false);
    await ctx.tx.otps.update({ ...otp, verifiedAt: ctx.now, updatedAt: ctx.now });
    const user = await findUserWithContact(ctx, otp.otpType, otp.contact);
    // The code was right but no user has the contact: as wrong as a wrong code to the caller.
    if (!user) return refuse(new KeyholdError('INVALID_OTP_CODE'));
    const privateKey = p256.utils.randomSecretKey();
    try {
      const key = await addSessionKey(ctx, user, {
        publicKey: bytesToHex(p256.getPublicKey(privateKey, true)),
        credentialType: 'CREDENTIAL_TYPE_OTP_AUTH_KEY_P256',
        apiKeyName: p.apiKeyName ?? `OTP Auth - ${ctx.now}`,
        seconds: sessionSeconds(p.expirationSeconds),
        invalidateExisting: p.invalidateExisting ?? false,
      });
      const credentialBundle = await createCredentialBundle({
        plaintext: privateKey,
        targetPublicKey: p.targetPublicKey,
      });
      return { userId: user.userId, apiKeyId: key.apiKeyId, credentialBundle };
    } finally {
      privateKey.fill(0);
    }
  },
};

/** How a code check refuses. */
type Refuse = (error: KeyholdError) => never;

const refuse: Refuse = (error) => {
  throw new ExecutionRefusal(error);
};

/**
 * Refuses a wrong code, counting the attempt: the count is written in the transaction that
 * read it (the OTP is held for update), and commits although the request is refused.
 */
async function refuseWrongCode(
  ctx: ActivityContext,
  otp: OtpRecord,
  error: KeyholdError,
): Promise<never> {
  await ctx.tx.otps.update({ ...otp, attempts: otp.attempts + 1, updatedAt: ctx.now });
  throw new ExecutionRefusal(error, true);
}

/** The OTP, if it may still be tried: known, unused, not burned, not expired. */
async function usableOtp(ctx: ActivityContext, otpId: string): Promise<OtpRecord> {
  const otp = await ctx.tx.otps.getForUpdate(ctx.organization.organizationId, otpId.toLowerCase());
  if (!otp) return refuse(new KeyholdError('OTP_NOT_FOUND'));
  if (otp.verifiedAt !== undefined) refuse(new KeyholdError('OTP_ALREADY_USED'));
  if (otp.attempts >= MAX_OTP_ATTEMPTS) refuse(new KeyholdError('OTP_LOCKED'));
  if (otp.expiresAt <= ctx.now) refuse(new KeyholdError('OTP_EXPIRED'));
  return otp;
}

/** A code of an intent as the activity stores it (its MAC): no row holds the code. */
function storedCode(tlsFetcher: BundleSigner, otpId: string, code: string): string {
  return storedOtpCode(otpMacKey(tlsFetcher.privateKey), otpId.toLowerCase(), code);
}

/**
 * Refuses a wrong code, counting the attempt. `code` is the stored parameter (the code's MAC),
 * or with `plain` a code opened from an encrypted bundle.
 */
async function checkCode(
  ctx: ActivityContext,
  otp: OtpRecord,
  code: string,
  plain: boolean,
): Promise<void> {
  const stored = plain ? storedCode(ctx.tlsFetcher, otp.otpId, code) : code;
  if (!storedOtpCodeMatches(otpMacKey(ctx.tlsFetcher.privateKey), otp.otpId, stored, otp.codeMac)) {
    await refuseWrongCode(ctx, otp, new KeyholdError('INVALID_OTP_CODE'));
  }
}

export const otpLoginHandler: HandlerOf<'OTP_LOGIN'> = refusingHandler({
  precheck(p) {
    normalizeApiPublicKey('API_KEY_CURVE_P256', p.publicKey);
    sessionSeconds(p.expirationSeconds);
  },
  async execute(ctx, p) {
    const claims = readVerificationToken(ctx, p.verificationToken);
    const publicKey = normalizeApiPublicKey('API_KEY_CURVE_P256', p.publicKey);
    if (p.clientSignature) {
      checkClientSignature(
        p.clientSignature,
        claims,
        'USAGE_TYPE_LOGIN',
        (m) => (m.login as { publicKey?: unknown } | undefined)?.publicKey === p.publicKey,
      );
    } else if (claims.publicKey !== publicKey) {
      // Without a client signature the session key must be the key the token binds.
      throw new KeyholdError('INVALID_VERIFICATION_TOKEN', {
        reason: 'the token is bound to another public key',
      });
    }
    await spendVerificationToken(ctx, claims);
    const user = await findUserWithContact(ctx, claims.verificationType, claims.contact);
    if (!user) throw new KeyholdError('USER_NOT_FOUND', { reason: 'no user with this contact' });
    return loginSession(ctx, user, 'OTP Login', p);
  },
});

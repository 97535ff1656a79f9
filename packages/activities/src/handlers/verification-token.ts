/**
 * The verification token of VERIFY_OTP (wire-compat §4) where an activity accepts one:
 * OTP_LOGIN, UPDATE_USER_EMAIL, UPDATE_USER_PHONE_NUMBER and sign-up by
 * CREATE_SUB_ORGANIZATION. A token is read (signature by the TLS-fetcher key, expiry, and the
 * organization: the one that issued it or, for a token of its parent, any sub-organization),
 * matched against what it proves (a contact, a client key), and spent once. The client
 * signature of wire-compat §1.4 proves the caller holds the key the token binds.
 * @module
 */
import { type OtpVerificationClaims, readOtpVerificationToken } from '@keyhold/keys';
import { KeyholdError } from '@keyhold/protocol';
import { p256 } from '@noble/curves/nist.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import type { ActivityContext } from './activity-handler.js';
import { normalizeContact } from './otp-code.js';

/**
 * The claims of a token usable in the context's organization.
 * @throws KeyholdError INVALID_VERIFICATION_TOKEN, VERIFICATION_TOKEN_EXPIRED
 * @example
 * const claims = readVerificationToken(ctx, p.verificationToken);
 */
export function readVerificationToken(
  ctx: ActivityContext,
  verificationToken: string,
): OtpVerificationClaims {
  const org = ctx.organization;
  const claims = readOtpVerificationToken(verificationToken, ctx.tlsFetcher, ctx.now);
  if (
    claims.organizationId !== org.organizationId &&
    claims.organizationId !== org.parentOrganizationId
  ) {
    throw new KeyholdError('INVALID_VERIFICATION_TOKEN', {
      reason: 'issued for another organization',
    });
  }
  return claims;
}

/**
 * Refuses a token that proves another contact than `contact` of `otpType`.
 * @throws KeyholdError INVALID_VERIFICATION_TOKEN
 */
export function requireTokenContact(
  claims: OtpVerificationClaims,
  otpType: 'OTP_TYPE_EMAIL' | 'OTP_TYPE_SMS',
  contact: string,
): void {
  let wanted: string;
  try {
    wanted = normalizeContact(otpType, contact);
  } catch {
    wanted = '';
  }
  if (claims.verificationType !== otpType || claims.contact !== wanted) {
    throw new KeyholdError('INVALID_VERIFICATION_TOKEN', {
      reason: 'issued for another contact',
    });
  }
}

/**
 * Marks the token used: the OTP it was issued for is held for update, so two requests with
 * one token cannot both pass.
 * @throws KeyholdError INVALID_VERIFICATION_TOKEN (no verified code), VERIFICATION_TOKEN_ALREADY_USED
 */
export async function spendVerificationToken(
  ctx: ActivityContext,
  claims: OtpVerificationClaims,
  use: 'tokenUsedAt' | 'signupUsedAt' = 'tokenUsedAt',
): Promise<void> {
  const otp = await ctx.tx.otps.getForUpdate(claims.organizationId, claims.id);
  if (!otp || otp.verifiedAt === undefined) {
    throw new KeyholdError('INVALID_VERIFICATION_TOKEN', { reason: 'no verified code' });
  }
  if (otp[use] !== undefined) throw new KeyholdError('VERIFICATION_TOKEN_ALREADY_USED');
  await ctx.tx.otps.update({ ...otp, [use]: ctx.now, updatedAt: ctx.now });
}

/** `v1ClientSignature`. */
export interface ClientSignature {
  readonly publicKey: string;
  readonly scheme: string;
  readonly message: string;
  readonly signature: string;
}

/**
 * The client signature of wire-compat §1.4: by the key the token binds, raw r ‖ s hex over
 * sha256 of `message`, a JSON object whose `type` is `usage`, whose `tokenId` is the token's,
 * and which `accepts` (the login's session key, the sign-up's contact).
 * @throws KeyholdError INVALID_CLIENT_SIGNATURE
 */
export function checkClientSignature(
  signature: ClientSignature,
  claims: OtpVerificationClaims,
  usage: 'USAGE_TYPE_LOGIN' | 'USAGE_TYPE_SIGNUP',
  accepts: (message: Record<string, unknown>) => boolean,
): void {
  const invalid = (reason: string) => new KeyholdError('INVALID_CLIENT_SIGNATURE', { reason });
  const tokenKey = claims.publicKey;
  if (!tokenKey || signature.publicKey.toLowerCase() !== tokenKey.toLowerCase()) {
    throw invalid('not signed by the key the verification token binds');
  }
  let message: unknown;
  try {
    message = JSON.parse(signature.message);
  } catch {
    throw invalid('the message is not JSON');
  }
  if (
    typeof message !== 'object' ||
    message === null ||
    (message as { type?: unknown }).type !== usage ||
    (message as { tokenId?: unknown }).tokenId !== claims.id ||
    !accepts(message as Record<string, unknown>)
  ) {
    throw invalid(`the message is not the ${usage} of this request with this token`);
  }
  let valid = false;
  try {
    valid = p256.verify(
      hexToBytes(signature.signature.replace(/^0x/, '')),
      sha256(utf8ToBytes(signature.message)),
      hexToBytes(tokenKey),
      { prehash: false, lowS: false, format: 'compact' },
    );
  } catch {
    valid = false;
  }
  if (!valid) throw invalid('the signature does not verify');
}

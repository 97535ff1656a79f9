/**
 * Sign-up by CREATE_SUB_ORGANIZATION (V7, V8) with a `verificationToken` and a
 * `clientSignature` (wire-compat §1.4, §4): the token of VERIFY_OTP proves a root user's email
 * address or phone number, and is spent; when it binds a client key, the client signature by
 * that key over the sign-up message `{"signupV2":{…},"tokenId":…,"type":"USAGE_TYPE_SIGNUP"}`
 * is required. The proven contact is marked verified on that root user (what
 * `list_verified_suborgs` reads).
 * @module
 */
import { KeyholdError } from '@keyhold/protocol';
import type { ActivityContext } from './activity-handler.js';
import { normalizeContact } from './otp-code.js';
import {
  type ClientSignature,
  checkClientSignature,
  readVerificationToken,
  spendVerificationToken,
} from './verification-token.js';

/** What sign-up reads of a root user. */
interface SignUpUser {
  readonly userEmail?: string;
  readonly userPhoneNumber?: string;
  readonly apiKeys?: readonly { readonly publicKey: string }[];
}

/** Which root user's contact the token proved. */
export interface VerifiedSignUp {
  readonly userIndex: number;
  readonly otpType: 'OTP_TYPE_EMAIL' | 'OTP_TYPE_SMS';
}

const normalized = (otpType: string, contact: string | undefined): string | undefined => {
  if (contact === undefined) return undefined;
  try {
    return normalizeContact(otpType, contact);
  } catch {
    return undefined;
  }
};

/**
 * Checks and spends the sign-up's verification token; `undefined` when the request has none.
 * @throws KeyholdError INVALID_VERIFICATION_TOKEN, VERIFICATION_TOKEN_EXPIRED,
 *   VERIFICATION_TOKEN_ALREADY_USED, INVALID_CLIENT_SIGNATURE
 * @example
 * const verified = await verifySignUp(ctx, p, rootUsers);
 */
export async function verifySignUp(
  ctx: ActivityContext,
  p: { verificationToken?: string; clientSignature?: ClientSignature },
  rootUsers: readonly SignUpUser[],
): Promise<VerifiedSignUp | undefined> {
  if (p.verificationToken === undefined) {
    if (p.clientSignature !== undefined) {
      throw new KeyholdError('INVALID_CLIENT_SIGNATURE', {
        reason: 'a client signature needs the verification token it signs',
      });
    }
    return undefined;
  }
  const claims = readVerificationToken(ctx, p.verificationToken);
  const otpType = claims.verificationType === 'OTP_TYPE_SMS' ? 'OTP_TYPE_SMS' : 'OTP_TYPE_EMAIL';
  const userIndex = rootUsers.findIndex(
    (u) =>
      normalized(otpType, otpType === 'OTP_TYPE_EMAIL' ? u.userEmail : u.userPhoneNumber) ===
      claims.contact,
  );
  if (userIndex === -1) {
    throw new KeyholdError('INVALID_VERIFICATION_TOKEN', {
      reason: 'issued for a contact no root user has',
    });
  }
  if (p.clientSignature !== undefined || claims.publicKey) {
    if (p.clientSignature === undefined) {
      throw new KeyholdError('INVALID_CLIENT_SIGNATURE', {
        reason: 'the verification token binds a key: the client signature is required',
      });
    }
    const apiKeys = new Set(
      rootUsers.flatMap((u) => u.apiKeys ?? []).map((k) => k.publicKey.toLowerCase()),
    );
    checkClientSignature(p.clientSignature, claims, 'USAGE_TYPE_SIGNUP', (message) => {
      const signup = message.signupV2 as
        | { email?: unknown; phoneNumber?: unknown; apiKeys?: unknown }
        | undefined;
      if (typeof signup !== 'object' || signup === null) return false;
      const contact = otpType === 'OTP_TYPE_EMAIL' ? signup.email : signup.phoneNumber;
      if (contact !== undefined && normalized(otpType, String(contact)) !== claims.contact) {
        return false;
      }
      // The API keys the client signed for are the ones the sub-organization gets.
      const signed = Array.isArray(signup.apiKeys) ? signup.apiKeys : [];
      return signed.every(
        (k) =>
          typeof k === 'object' &&
          k !== null &&
          apiKeys.has(String((k as { publicKey?: unknown }).publicKey).toLowerCase()),
      );
    });
  }
  // Its sign-up use: the login that follows (`signUpWithOtp`) spends the token's login use.
  await spendVerificationToken(ctx, claims, 'signupUsedAt');
  return { userIndex, otpType };
}

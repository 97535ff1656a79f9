/**
 * The attested stamp (`X-Stamp-Attested`, wire-compat §1.3): base64url of the JSON
 * `{publicKeyAttestation, scheme, publicKey, signature}`, as `@turnkey/core` sends it with
 * STAMP_LOGIN after an OTP or an OAuth sign-in (identity-and-payments §B4). `signature` is a
 * P-256 stamp over the body as `X-Stamp` makes it; the attestation vouches for `publicKey`:
 *
 * - `STAMP_ATTESTED_SCHEME_P256_VERIFICATION_TOKEN`: an OTP verification token this server
 *   issued (VERIFY_OTP), whose `public_key` is the stamp's key. The user is the one of the
 *   organization with the token's contact; the token is used once, as OTP_LOGIN uses it, and
 *   a parent's token serves in its sub-organizations.
 * - `STAMP_ATTESTED_SCHEME_P256_OIDC`: an OIDC id_token whose nonce binds the stamp's key.
 *   The user is the one of the organization with the token's issuer, audience and subject.
 *
 * The attestation is checked before the request's transaction (`attestStamp`: the OIDC issuer
 * may be fetched), the user found in it (`findAttestedPrincipal`). An attested stamp
 * authenticates STAMP_LOGIN only: it proves a sign-in, not a credential of the organization.
 * @module
 */
import { type BundleSigner, readOtpVerificationToken } from '@keyhold/keys';
import { KeyholdError } from '@keyhold/protocol';
import { normalizeApiPublicKey } from './api-key-public-key.js';
import { checkOidcNonce, oauthProviderOf, verifyOidcToken } from './handlers/oidc-token.js';
import { userWithContact } from './handlers/user-contact.js';
import type { OidcClaims, OidcVerifier } from './ports/oidc-verifier.js';
import type { StoreTransaction } from './ports/store.js';
import type { OrganizationRecord, UserRecord } from './records.js';
import type { ApiKeyStamp } from './stamp.js';

/** The two attestation schemes of wire-compat §1.3. */
export const ATTESTED_SCHEMES = [
  'STAMP_ATTESTED_SCHEME_P256_VERIFICATION_TOKEN',
  'STAMP_ATTESTED_SCHEME_P256_OIDC',
] as const;

/** What an attestation proved, once `attestStamp` checked it. */
export type AttestedIdentity =
  | {
      readonly kind: 'verification-token';
      readonly tokenId: string;
      /** The organization that issued the token: the target or its parent. */
      readonly organizationId: string;
      readonly verificationType: string;
      readonly contact: string;
    }
  | { readonly kind: 'oidc'; readonly claims: OidcClaims };

/** A parsed attested stamp (`X-Stamp-Attested`). */
export interface AttestedStamp {
  kind: 'attested';
  scheme: (typeof ATTESTED_SCHEMES)[number];
  /** The verification token or id_token, as sent. */
  attestation: string;
  /** The P-256 stamp over the body, checked like an `X-Stamp`. */
  signed: ApiKeyStamp;
  /** Set by `attestStamp`. */
  identity?: AttestedIdentity;
}

/** Real attested stamps carry a token of a few KiB; refuse anything absurd before decoding. */
const MAX_ATTESTED_STAMP_LENGTH = 16 * 1024;
const BASE64URL = /^[A-Za-z0-9_-]+={0,2}$/;
const HEX = /^[0-9a-fA-F]+$/;

const malformed = (reason: string) => new KeyholdError('MALFORMED_STAMP', { reason });

/**
 * Reads an `X-Stamp-Attested` header.
 * @throws KeyholdError MALFORMED_STAMP
 */
export function parseAttestedStamp(header: string): AttestedStamp {
  if (header.length > MAX_ATTESTED_STAMP_LENGTH || !BASE64URL.test(header)) {
    throw malformed('X-Stamp-Attested is not base64url');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(header, 'base64url').toString('utf8'));
  } catch {
    throw malformed('X-Stamp-Attested is not base64url JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw malformed('X-Stamp-Attested is not a JSON object');
  }
  const { publicKeyAttestation, scheme, publicKey, signature } = parsed as Record<string, unknown>;
  if (!(ATTESTED_SCHEMES as readonly unknown[]).includes(scheme)) {
    throw malformed('unknown attestation scheme');
  }
  if (typeof publicKeyAttestation !== 'string' || publicKeyAttestation === '') {
    throw malformed('publicKeyAttestation is not a token');
  }
  if (typeof publicKey !== 'string' || publicKey.length !== 66 || !HEX.test(publicKey)) {
    throw malformed('publicKey is not a compressed P-256 key as hex');
  }
  if (
    typeof signature !== 'string' ||
    signature.length === 0 ||
    signature.length > 256 ||
    signature.length % 2 !== 0 ||
    !HEX.test(signature)
  ) {
    throw malformed('signature is not hex');
  }
  return {
    kind: 'attested',
    scheme: scheme as AttestedStamp['scheme'],
    attestation: publicKeyAttestation,
    signed: {
      kind: 'api-key',
      scheme: 'SIGNATURE_SCHEME_TK_API_P256',
      curve: 'p256',
      apiKeyCurve: 'API_KEY_CURVE_P256',
      publicKey: publicKey.toLowerCase(),
      publicKeyBytes: Buffer.from(publicKey, 'hex'),
      signature: signature.toLowerCase(),
      signatureBytes: Buffer.from(signature, 'hex'),
    },
  };
}

/** What checking an attestation needs. */
export interface Attestors {
  /** The TLS-fetcher key: it signed the verification tokens. */
  readonly tlsFetcher: BundleSigner;
  readonly oidc: OidcVerifier;
  /** Epoch ms. */
  readonly now: number;
}

/**
 * Checks the stamp's attestation and records what it proved on `stamp.identity`: a
 * verification token of this server bound to the stamp's key, or an id_token of a trusted
 * issuer whose nonce binds it.
 * @throws KeyholdError INVALID_VERIFICATION_TOKEN, VERIFICATION_TOKEN_EXPIRED,
 *   INVALID_OIDC_TOKEN, UNAVAILABLE (the OIDC issuer is out of reach)
 */
export async function attestStamp(stamp: AttestedStamp, attestors: Attestors): Promise<void> {
  const publicKey = stamp.signed.publicKey;
  if (stamp.scheme === 'STAMP_ATTESTED_SCHEME_P256_VERIFICATION_TOKEN') {
    const claims = readOtpVerificationToken(stamp.attestation, attestors.tlsFetcher, attestors.now);
    let bound = '';
    try {
      bound = normalizeApiPublicKey('API_KEY_CURVE_P256', claims.publicKey);
    } catch {
      bound = '';
    }
    if (bound !== publicKey) {
      throw new KeyholdError('INVALID_VERIFICATION_TOKEN', {
        reason: 'the token is bound to another public key',
      });
    }
    stamp.identity = {
      kind: 'verification-token',
      tokenId: claims.id,
      organizationId: claims.organizationId,
      verificationType: claims.verificationType,
      contact: claims.contact,
    };
    return;
  }
  const claims = await verifyOidcToken(attestors, stamp.attestation);
  checkOidcNonce(claims, [publicKey]);
  stamp.identity = { kind: 'oidc', claims };
}

/**
 * The refusal of an attested stamp on anything but STAMP_LOGIN.
 * @example
 * if (stamp.kind === 'attested') throw attestedLoginOnly();
 */
export function attestedLoginOnly(): KeyholdError {
  return new KeyholdError('REQUEST_NOT_AUTHORIZED', {
    reason: 'an attested stamp (X-Stamp-Attested) authenticates STAMP_LOGIN only',
  });
}

/** Who an attested stamp authenticates: the user its attestation names, in `organizationId`. */
export interface AttestedPrincipal {
  organizationId: string;
  user: UserRecord;
  apiKey?: undefined;
  authenticator?: undefined;
  stamp: AttestedStamp;
}

/**
 * The user of `organization` an attested stamp (checked by `attestStamp`) names. A
 * verification token is used here, once: its OTP is marked used in the request's transaction.
 * @throws KeyholdError INVALID_VERIFICATION_TOKEN, VERIFICATION_TOKEN_ALREADY_USED,
 *   INVALID_OIDC_TOKEN, USER_NOT_FOUND
 */
export async function findAttestedPrincipal(
  tx: StoreTransaction,
  organization: OrganizationRecord,
  stamp: AttestedStamp,
  now: number,
): Promise<AttestedPrincipal> {
  const identity = stamp.identity;
  // Checked by the activity service for a login; nothing else takes an attested stamp.
  if (!identity) throw attestedLoginOnly();
  const orgId = organization.organizationId;
  let user: UserRecord | undefined;
  if (identity.kind === 'oidc') {
    const provider = await oauthProviderOf(tx, orgId, identity.claims);
    user = await tx.users.get(orgId, provider.userId);
  } else {
    if (
      identity.organizationId !== orgId &&
      identity.organizationId !== organization.parentOrganizationId
    ) {
      throw new KeyholdError('INVALID_VERIFICATION_TOKEN', {
        reason: 'issued for another organization',
      });
    }
    const otp = await tx.otps.getForUpdate(identity.organizationId, identity.tokenId);
    if (!otp || otp.verifiedAt === undefined) {
      throw new KeyholdError('INVALID_VERIFICATION_TOKEN', { reason: 'no verified code' });
    }
    if (otp.tokenUsedAt !== undefined) throw new KeyholdError('VERIFICATION_TOKEN_ALREADY_USED');
    await tx.otps.update({ ...otp, tokenUsedAt: now, updatedAt: now });
    user = await userWithContact(tx, orgId, identity.verificationType, identity.contact);
  }
  if (!user) throw new KeyholdError('USER_NOT_FOUND', { reason: 'no user with this identity' });
  return { organizationId: orgId, user, stamp };
}

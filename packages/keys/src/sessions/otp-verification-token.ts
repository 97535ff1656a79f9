/**
 * The OTP verification token (wire-compat §4): a standard ES256 JWT (`{"alg":"ES256",
 * "typ":"JWT"}`, P-256 r ‖ s over sha256 of the signing input) signed by the TLS-fetcher key,
 * with the claims `{id, verification_type, contact, organization_id, public_key, exp}`, every
 * one a string and `exp` in epoch milliseconds. `@turnkey/crypto`'s
 * `verifyOtpVerificationToken` checks exactly that.
 * @module
 */
import { KeyholdError } from '@keyhold/protocol';
import { p256 } from '@noble/curves/nist.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import type { BundleSigner } from '../bundles/signed-envelope.js';

/** The claims of a verification token, camel-cased. */
export interface OtpVerificationClaims {
  /** The token's id: the OTP's id, so the token is usable once. */
  readonly id: string;
  /** `OTP_TYPE_EMAIL` or `OTP_TYPE_SMS`. */
  readonly verificationType: string;
  readonly contact: string;
  /** The organization that verified the code. */
  readonly organizationId: string;
  /** The client key bound at VERIFY_OTP (compressed P-256 hex). */
  readonly publicKey: string;
  /** Expiry, epoch milliseconds. */
  readonly expMs: number;
}

const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');
const HEADER = b64url(utf8ToBytes(JSON.stringify({ alg: 'ES256', typ: 'JWT' })));

/**
 * A verification token for `claims`, signed by `signer`.
 * @example
 * const token = createOtpVerificationToken(claims, tlsFetcher);
 * await verifyOtpVerificationToken(token, tlsFetcherSignPublicKey); // @turnkey/crypto
 */
export function createOtpVerificationToken(
  claims: OtpVerificationClaims,
  signer: BundleSigner,
): string {
  const payload = b64url(
    utf8ToBytes(
      JSON.stringify({
        id: claims.id,
        verification_type: claims.verificationType,
        contact: claims.contact,
        organization_id: claims.organizationId,
        public_key: claims.publicKey,
        exp: String(claims.expMs),
      }),
    ),
  );
  const input = `${HEADER}.${payload}`;
  const signature = p256.sign(sha256(utf8ToBytes(input)), signer.privateKey, { prehash: false });
  return `${input}.${b64url(signature)}`;
}

/**
 * The claims of a token `signer` issued, checked: three segments, the ES256/JWT header, a
 * valid signature by `signer`, every claim present, and `exp` after `nowMs`. Anything else is
 * INVALID_VERIFICATION_TOKEN; an expired token VERIFICATION_TOKEN_EXPIRED.
 * @example
 * const claims = readOtpVerificationToken(p.verificationToken, tlsFetcher, ctx.now);
 */
export function readOtpVerificationToken(
  token: string,
  signer: BundleSigner,
  nowMs: number,
): OtpVerificationClaims {
  const invalid = (reason: string) => new KeyholdError('INVALID_VERIFICATION_TOKEN', { reason });
  const parts = token.split('.');
  if (parts.length !== 3) throw invalid('expected three dot-separated segments');
  const [header, payload, signature] = parts as [string, string, string];
  if (header !== HEADER) throw invalid('expected the header {"alg":"ES256","typ":"JWT"}');
  const publicKey = p256.getPublicKey(signer.privateKey, false);
  let valid = false;
  try {
    valid = p256.verify(
      Buffer.from(signature, 'base64url'),
      sha256(utf8ToBytes(`${header}.${payload}`)),
      publicKey,
      { prehash: false },
    );
  } catch {
    valid = false;
  }
  if (!valid) throw invalid('the signature does not verify with this server’s TLS-fetcher key');
  let claims: Record<string, unknown>;
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw invalid('the payload is not JSON');
  }
  for (const name of [
    'id',
    'verification_type',
    'contact',
    'organization_id',
    'public_key',
    'exp',
  ]) {
    if (typeof claims[name] !== 'string') throw invalid(`claim ${name} missing`);
  }
  const expMs = Number(claims.exp);
  if (!Number.isFinite(expMs)) throw invalid('claim exp is not a number');
  if (expMs <= nowMs) throw new KeyholdError('VERIFICATION_TOKEN_EXPIRED');
  return {
    id: claims.id as string,
    verificationType: claims.verification_type as string,
    contact: claims.contact as string,
    organizationId: claims.organization_id as string,
    publicKey: claims.public_key as string,
    expMs,
  };
}

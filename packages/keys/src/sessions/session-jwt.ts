/**
 * Session JWTs (wire-compat §4): header `{"alg":"ES256","typ":"JWT"}`, claims `exp` (a number
 * of seconds), `public_key`, `session_type`, `user_id`, `organization_id`, and a signature that
 * is NOT standard ES256: P-256 r ‖ s over sha256(sha256("header.payload")), made by the
 * notarizer. `@turnkey/crypto`'s `verifySessionJwtSignature` checks exactly that, and
 * `@turnkey/core`'s `parseSession` decodes the payload with a bare `atob()`, so the payload's
 * base64url must be plain base64 too: free of `-` and `_`.
 * @module
 */
import { p256 } from '@noble/curves/nist.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import type { SessionNotarizer } from './session-notarizer.js';

/** What a session JWT says; field names as the claims name them, camel-cased. */
export interface SessionClaims {
  /** Expiry, epoch seconds. */
  readonly exp: number;
  /** The compressed P-256 hex key the client stamps the session's requests with. */
  readonly publicKey: string;
  /** `SESSION_TYPE_READ_WRITE` or `SESSION_TYPE_READ_ONLY`. */
  readonly sessionType: SessionType;
  readonly userId: string;
  /** The user's organization (a sub-organization when the user is a sub-organization's). */
  readonly organizationId: string;
}

/** The session types Keyhold issues. */
export type SessionType = 'SESSION_TYPE_READ_WRITE' | 'SESSION_TYPE_READ_ONLY';

const HEADER = base64url(utf8ToBytes(JSON.stringify({ alg: 'ES256', typ: 'JWT' })));

function base64url(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64url');
}

/** The digest the notarizer signs: sha256(sha256(signing input)). */
function sessionDigest(signingInput: string): Uint8Array {
  return sha256(sha256(utf8ToBytes(signingInput)));
}

/**
 * The payload segment of `claims`, in the wire's claim order. The claims Keyhold writes are
 * hex, UUIDs, enum names and a number: JSON of those has none of `>`, `?`, `~`, the only ASCII
 * bytes that make base64 use `-` or `_`; the check keeps it so.
 */
function payloadOf(claims: SessionClaims): string {
  const payload = base64url(
    utf8ToBytes(
      JSON.stringify({
        exp: claims.exp,
        public_key: claims.publicKey,
        session_type: claims.sessionType,
        user_id: claims.userId,
        organization_id: claims.organizationId,
      }),
    ),
  );
  if (/[-_]/.test(payload)) {
    throw new TypeError('session claims must encode to base64 that atob() decodes');
  }
  return payload;
}

/**
 * The session JWT of `claims`, signed by `notarizer`.
 * @example
 * const jwt = await createSessionJwt(
 *   { exp: 1748876837, publicKey: '03…', sessionType: 'SESSION_TYPE_READ_WRITE', userId, organizationId },
 *   notarizer,
 * );
 * await verifySessionJwtSignature(jwt, notarizer.publicKey); // true (@turnkey/crypto)
 */
export async function createSessionJwt(
  claims: SessionClaims,
  notarizer: SessionNotarizer,
): Promise<string> {
  if (!Number.isSafeInteger(claims.exp) || claims.exp <= 0) {
    throw new TypeError('exp must be a positive integer of seconds');
  }
  const signingInput = `${HEADER}.${payloadOf(claims)}`;
  const signature = await notarizer.signDigest(sessionDigest(signingInput));
  return `${signingInput}.${base64url(signature)}`;
}

/**
 * The claims of a session JWT that `notarizerPublicKey` (uncompressed hex) signed, or undefined
 * when the token is malformed, signed by another key, or lacks a claim. Expiry is the caller's
 * to check (`exp` is in seconds).
 * @example
 * const claims = readSessionJwt(request.headers['x-session'], notarizer.publicKey);
 */
export function readSessionJwt(jwt: string, notarizerPublicKey: string): SessionClaims | undefined {
  // Real session JWTs are a few hundred characters; anything far beyond is not one.
  if (typeof jwt !== 'string' || jwt.length > 4096) return undefined;
  const parts = jwt.split('.');
  if (parts.length !== 3) return undefined;
  const [header, payload, signature] = parts as [string, string, string];
  if (header !== HEADER || !/^[A-Za-z0-9_-]+$/.test(payload + signature)) return undefined;
  const signatureBytes = Buffer.from(signature, 'base64url');
  if (signatureBytes.length !== 64) return undefined;
  try {
    const valid = p256.verify(
      signatureBytes,
      sessionDigest(`${header}.${payload}`),
      hexToBytes(notarizerPublicKey),
      { prehash: false, lowS: false },
    );
    if (!valid) return undefined;
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<
      string,
      unknown
    >;
    const { exp, public_key, session_type, user_id, organization_id } = claims;
    if (
      typeof exp !== 'number' ||
      typeof public_key !== 'string' ||
      (session_type !== 'SESSION_TYPE_READ_WRITE' && session_type !== 'SESSION_TYPE_READ_ONLY') ||
      typeof user_id !== 'string' ||
      typeof organization_id !== 'string'
    ) {
      return undefined;
    }
    return {
      exp,
      publicKey: public_key,
      sessionType: session_type,
      userId: user_id,
      organizationId: organization_id,
    };
  } catch {
    return undefined;
  }
}

/**
 * Read-only sessions: the JWT of CREATE_READ_ONLY_SESSION, sent back in the `X-Session` header
 * (what `@turnkey/sdk-browser` does with `readOnlySession`), authenticates queries without a
 * stamp until it expires. It never authenticates an activity: a request to a submit endpoint
 * with a session and no stamp is refused before anything is read.
 * @module
 */
import { readSessionJwt, type SessionClaims } from '@keyhold/keys';
import { KeyholdError } from '@keyhold/protocol';
import type { StoreTransaction } from './ports/store.js';
import type { Principal } from './principal.js';
import type { OrganizationRecord } from './records.js';
import { type IncomingRequest, parseRequestBody } from './signed-request.js';

/** The header that carries a read-only session JWT (lower-case, as adapters hand headers over). */
export const SESSION_HEADER = 'x-session';

const STAMP_HEADERS = ['x-stamp', 'x-stamp-webauthn', 'x-stamp-attested'] as const;

/** Who reads through a session: the user and their organization, no stamp and no API key. */
export type SessionReader = Pick<Principal, 'organizationId' | 'user'>;

/**
 * True when the request carries a session and no stamp: a stamp, when present, is what
 * authenticates (clients may send both).
 */
export function isSessionRequest(headers: Readonly<Record<string, string | undefined>>): boolean {
  const session = headers[SESSION_HEADER];
  return session !== undefined && session !== '' && STAMP_HEADERS.every((h) => !headers[h]);
}

/** A request authenticated by a read-only session: its claims and its parsed body. */
export interface SessionRequest {
  claims: SessionClaims;
  body: Record<string, unknown>;
  text: string;
}

/**
 * Verifies the `X-Session` JWT with the notarizer's public key and its expiry against `now`
 * (epoch ms), then parses the body.
 * @throws KeyholdError UNAUTHENTICATED (not a read-only session this server signed, or
 *   expired), REQUEST_INVALID
 */
export function readSessionRequest(
  request: IncomingRequest,
  notarizerPublicKey: string,
  now: number,
): SessionRequest {
  const claims = readSessionJwt(request.headers[SESSION_HEADER] ?? '', notarizerPublicKey);
  if (claims?.sessionType !== 'SESSION_TYPE_READ_ONLY') {
    throw new KeyholdError('UNAUTHENTICATED', {
      reason: 'X-Session is not a read-only session issued by this server',
    });
  }
  if (claims.exp * 1000 <= now) {
    throw new KeyholdError('UNAUTHENTICATED', { reason: 'the read-only session expired' });
  }
  return { claims, ...parseRequestBody(request.rawBody) };
}

/**
 * The session's user, reading `organization`: the session's own organization or one of its
 * sub-organizations (as a stamp of that user could read).
 * @throws KeyholdError ORGANIZATION_MISMATCH (another organization), UNAUTHENTICATED
 *   (the user no longer exists)
 */
export async function findSessionReader(
  tx: StoreTransaction,
  organization: OrganizationRecord,
  claims: SessionClaims,
): Promise<SessionReader> {
  const home = claims.organizationId;
  if (organization.organizationId !== home && organization.parentOrganizationId !== home) {
    throw new KeyholdError('ORGANIZATION_MISMATCH', {
      targetOrganizationId: organization.organizationId,
      sessionOrganizationId: home,
    });
  }
  const user = await tx.users.get(home, claims.userId);
  if (!user) {
    throw new KeyholdError('UNAUTHENTICATED', { reason: "the session's user is gone" });
  }
  return { organizationId: home, user };
}

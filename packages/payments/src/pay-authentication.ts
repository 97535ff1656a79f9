/**
 * Authentication of the gateway's organization endpoints: the public API's stamps (`X-Stamp`,
 * `X-Stamp-WebAuthn`) over the raw body (empty for a GET), by a user of the organization, with
 * the public API's refusals mapped onto the gateway's: no or bad stamp PAYMENT_AUTH_INVALID,
 * a credential of another organization PAYMENT_AUTH_FORBIDDEN, a Store that is down
 * PAYMENT_AUTH_UNAVAILABLE.
 * @module
 */
import {
  type Clock,
  checkWebauthnChallenge,
  findPrincipal,
  type Principal,
  parseStamp,
  portErrorCodeOf,
  type SignatureVerifier,
  type Store,
  type StoreTransaction,
  verifyStamp,
} from '@keyhold/activities';
import { PayError } from '@keyhold/pay-errors';
import { KeyholdError } from '@keyhold/protocol';

/** The public API's refusals that mean "not this organization's credential". */
const FORBIDDEN = new Set([
  'PUBLIC_KEY_NOT_FOUND',
  'CREDENTIAL_NOT_FOUND',
  'REQUEST_NOT_AUTHORIZED',
  'ORGANIZATION_NOT_FOUND',
  'INVALID_ORGANIZATION_ID',
]);

/**
 * The principal of a stamped request to `organizationId`'s endpoints; `then` runs in the same
 * Store transaction (reads of the organization's records). The stamp is verified over the raw
 * bytes first: a function `organizationId` (one that reads the body) runs only once it holds,
 * so nothing of an unauthenticated body is parsed.
 * @throws PayError PAYMENT_AUTH_INVALID, PAYMENT_AUTH_FORBIDDEN, PAYMENT_AUTH_UNAVAILABLE
 * @example
 * const principal = await authenticateOrganizationRequest(deps, request, organizationId);
 */
export async function authenticateOrganizationRequest<T = undefined>(
  deps: { store: Store; verifier: SignatureVerifier; clock: Clock },
  request: { headers: Readonly<Record<string, string | undefined>>; rawBody: Uint8Array },
  organizationId: string | (() => string),
  then?: (tx: StoreTransaction, principal: Principal) => Promise<T>,
): Promise<{ principal: Principal; value: T }> {
  try {
    const stamp = parseStamp(request.headers);
    // An attested stamp only logs in (STAMP_LOGIN): it authenticates no payment endpoint.
    if (stamp.kind === 'attested') {
      throw new PayError('PAYMENT_AUTH_INVALID', { reason: 'X-Stamp-Attested only logs in' });
    }
    if (stamp.kind === 'webauthn') checkWebauthnChallenge(stamp, request.rawBody);
    else await verifyStamp(deps.verifier, stamp, request.rawBody);
    const id = typeof organizationId === 'function' ? organizationId() : organizationId;
    return await deps.store.transaction(async (tx) => {
      const organization = await tx.organizations.get(id);
      if (!organization) {
        throw new PayError('PAYMENT_AUTH_FORBIDDEN', { reason: `no organization ${id}` });
      }
      const principal = await findPrincipal(tx, organization, stamp, deps.clock.now());
      const value = then ? await then(tx, principal) : (undefined as T);
      return { principal, value };
    });
  } catch (error) {
    if (PayError.is(error)) throw error;
    if (portErrorCodeOf(error) === 'STORE_UNAVAILABLE') {
      throw new PayError('PAYMENT_AUTH_UNAVAILABLE');
    }
    if (KeyholdError.is(error)) {
      throw new PayError(
        FORBIDDEN.has(error.errorCode) ? 'PAYMENT_AUTH_FORBIDDEN' : 'PAYMENT_AUTH_INVALID',
        { reason: error.message },
      );
    }
    throw error;
  }
}

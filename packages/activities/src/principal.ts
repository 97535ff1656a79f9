/**
 * Who is asking: the API key that stamped the request, the user holding it, and the
 * organization it was found in (the target organization or its parent; for whoami also one of
 * its sub-organizations). One store lookup by public key, whatever the organization tree.
 * @module
 */
import { isKeyholdError, KeyholdError } from '@keyhold/protocol';
import type { ApiKeyCredential, StoreTransaction } from './ports/store.js';
import type { ApiKeyRecord, OrganizationRecord, UserRecord } from './records.js';
import type { ApiKeyStamp } from './stamp.js';

/** Who stamped a request: their API key, the user holding it, and where it was found. */
export interface Principal {
  /** Where the credential lives: the target organization, or its parent. */
  organizationId: string;
  user: UserRecord;
  apiKey: ApiKeyRecord;
  stamp: ApiKeyStamp;
  /** Every API key of `user`, when the credential lookup returned them (a vote records them). */
  userApiKeys?: readonly ApiKeyRecord[];
}

/**
 * Finds the stamp's API key in `organization` or its parent.
 * @throws KeyholdError PUBLIC_KEY_NOT_FOUND, API_KEY_EXPIRED, SIGNATURE_INVALID
 */
export async function findPrincipal(
  tx: StoreTransaction,
  organization: OrganizationRecord,
  stamp: ApiKeyStamp,
  now: number,
): Promise<Principal> {
  const found = await lookUp(tx, organization, stamp, false);
  return principalOf(ownOrParent(found), stamp, now);
}

/**
 * whoami: as `findPrincipal`, and when that finds no usable key, the one sub-organization of
 * `organization` that holds it (a sub-organization's user naming the parent).
 * @throws KeyholdError MULTIPLE_SUB_ORGANIZATIONS when several do, else as
 * `findPrincipal` (its error when no sub-organization holds the key)
 */
export async function findWhoamiPrincipal(
  tx: StoreTransaction,
  organization: OrganizationRecord,
  stamp: ApiKeyStamp,
  now: number,
): Promise<Principal> {
  const found = await lookUp(tx, organization, stamp, true);
  try {
    return principalOf(ownOrParent(found), stamp, now);
  } catch (error) {
    if (!isKeyholdError(error) || error.key !== 'PUBLIC_KEY_NOT_FOUND') throw error;
    // Every sub-organization holding the key counts, usable or not (expired, other curve).
    const holders = found.filter((c) => c.relation === 'child');
    if (holders.length > 1) throw new KeyholdError('MULTIPLE_SUB_ORGANIZATIONS');
    if (!holders[0]) throw error;
    return principalOf(holders[0], stamp, now);
  }
}

function lookUp(
  tx: StoreTransaction,
  organization: OrganizationRecord,
  stamp: ApiKeyStamp,
  includeChildren: boolean,
): Promise<ApiKeyCredential[]> {
  return tx.credentials.findApiKeys(stamp.publicKey, {
    organizationId: organization.organizationId,
    // A root organization may carry '' as its parent: no parent.
    ...(organization.parentOrganizationId
      ? { parentOrganizationId: organization.parentOrganizationId }
      : {}),
    includeChildren,
  });
}

/** The organization's own key wins over the parent's, usable or not. */
function ownOrParent(found: readonly ApiKeyCredential[]): ApiKeyCredential | undefined {
  return found.find((c) => c.relation === 'self') ?? found.find((c) => c.relation === 'parent');
}

function principalOf(
  credential: ApiKeyCredential | undefined,
  stamp: ApiKeyStamp,
  now: number,
): Principal {
  if (!credential) throw new KeyholdError('PUBLIC_KEY_NOT_FOUND');
  const { apiKey, user, userApiKeys } = credential;
  // A key registered for one curve never authenticates a stamp made with another scheme.
  if (apiKey.curve !== stamp.apiKeyCurve) throw new KeyholdError('SIGNATURE_INVALID');
  if (apiKey.expiresAt !== undefined && apiKey.expiresAt <= now) {
    throw new KeyholdError('API_KEY_EXPIRED');
  }
  if (!user) throw new KeyholdError('PUBLIC_KEY_NOT_FOUND');
  return {
    organizationId: apiKey.organizationId,
    user,
    apiKey,
    stamp,
    ...(userApiKeys ? { userApiKeys } : {}),
  };
}

/**
 * Who is asking: the API key that stamped the request, the user holding it, and the
 * organization it was found in (the target organization or its parent).
 * @module
 */
import { KeyholdError } from '@keyhold/protocol';
import type { StoreTransaction } from './ports/store.js';
import type { ApiKeyRecord, OrganizationRecord, UserRecord } from './records.js';
import type { ApiKeyStamp } from './stamp.js';

export interface Principal {
  /** Where the credential lives: the target organization, or its parent. */
  organizationId: string;
  user: UserRecord;
  apiKey: ApiKeyRecord;
  stamp: ApiKeyStamp;
}

/**
 * Finds the stamp's API key in `organization` or its parent.
 * @throws KeyholdError PUBLIC_KEY_NOT_FOUND, EXPIRED_API_KEY, API_KEY_SIGNATURE_INVALID
 */
export async function findPrincipal(
  tx: StoreTransaction,
  organization: OrganizationRecord,
  stamp: ApiKeyStamp,
  now: number,
): Promise<Principal> {
  let apiKey = await tx.apiKeys.findByPublicKey(organization.organizationId, stamp.publicKey);
  if (!apiKey && organization.parentOrganizationId) {
    apiKey = await tx.apiKeys.findByPublicKey(organization.parentOrganizationId, stamp.publicKey);
  }
  if (!apiKey) throw new KeyholdError('PUBLIC_KEY_NOT_FOUND');
  // A key registered for one curve never authenticates a stamp made with another scheme.
  if (apiKey.curve !== stamp.apiKeyCurve) throw new KeyholdError('API_KEY_SIGNATURE_INVALID');
  if (apiKey.expiresAt !== undefined && apiKey.expiresAt <= now) {
    throw new KeyholdError('EXPIRED_API_KEY');
  }
  const user = await tx.users.get(apiKey.organizationId, apiKey.userId);
  if (!user) throw new KeyholdError('PUBLIC_KEY_NOT_FOUND');
  return { organizationId: apiKey.organizationId, user, apiKey, stamp };
}

/**
 * whoami aimed at a parent organization by a sub-organization's user: the one sub-organization
 * of `organization` that holds the stamp's API key, or undefined when none does.
 * @throws KeyholdError MULTIPLE_SUB_ORGANIZATIONS_FOR_PUBLIC_KEY when several do
 */
export async function findPrincipalInSubOrganizations(
  tx: StoreTransaction,
  organization: OrganizationRecord,
  stamp: ApiKeyStamp,
  now: number,
): Promise<Principal | undefined> {
  const holders: OrganizationRecord[] = [];
  for (const child of await tx.organizations.listChildren(organization.organizationId)) {
    if (await tx.apiKeys.findByPublicKey(child.organizationId, stamp.publicKey)) {
      holders.push(child);
    }
  }
  if (holders.length > 1) throw new KeyholdError('MULTIPLE_SUB_ORGANIZATIONS_FOR_PUBLIC_KEY');
  return holders[0] && findPrincipal(tx, holders[0], stamp, now);
}

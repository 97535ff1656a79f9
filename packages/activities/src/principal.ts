/**
 * Who is asking: the credential that stamped the request (an API key or a passkey), the user
 * holding it, and the organization it was found in (the target organization or its parent;
 * for whoami also one of its sub-organizations). One store lookup by public key or credential
 * id, whatever the organization tree.
 *
 * A passkey's assertion is verified here, once its stored public key is known: origin, rpId
 * hash, user presence, signature, and a signature counter that must move forward; the new
 * counter is written in the request's transaction (a refused request stores nothing, so its
 * assertion stays as unused as it was).
 * @module
 */
import { isKeyholdError, KeyholdError, type MessageKey } from '@keyhold/protocol';
import { type AttestedPrincipal, type AttestedStamp, attestedLoginOnly } from './attested-stamp.js';
import type {
  ApiKeyCredential,
  AuthenticatorCredential,
  CredentialRelation,
  CredentialScope,
  StoreTransaction,
} from './ports/store.js';
import type {
  ApiKeyRecord,
  AuthenticatorRecord,
  OrganizationRecord,
  UserRecord,
} from './records.js';
import type { ApiKeyStamp, Stamp } from './stamp.js';
import { verifyWebauthnAssertion, type WebauthnStamp } from './webauthn-stamp.js';

/** Who stamped a request with an API key. */
export interface ApiKeyPrincipal {
  /** Where the credential lives: the target organization, or its parent. */
  organizationId: string;
  user: UserRecord;
  apiKey: ApiKeyRecord;
  authenticator?: undefined;
  stamp: ApiKeyStamp;
  /** Every API key of `user`, when the credential lookup returned them (a vote records them). */
  userApiKeys?: readonly ApiKeyRecord[];
  /** Every passkey of `user`, when the credential lookup returned them (a vote records them). */
  userAuthenticators?: readonly AuthenticatorRecord[];
}

/** Who stamped a request with a passkey. */
export interface PasskeyPrincipal {
  /** Where the credential lives: the target organization, or its parent. */
  organizationId: string;
  user: UserRecord;
  apiKey?: undefined;
  /** The passkey, with the signature counter of this request's assertion. */
  authenticator: AuthenticatorRecord;
  stamp: WebauthnStamp;
}

/**
 * Who stamped a request: their credential, the user holding it, and where it was found; or,
 * for a login with an attested stamp, the user the attestation names.
 */
export type Principal = ApiKeyPrincipal | PasskeyPrincipal | AttestedPrincipal;

/** The stamps a stored credential made. */
type CredentialStamp = Exclude<Stamp, AttestedStamp>;

/** The stamp, if a stored credential made it; an attested stamp is refused. */
function credentialStamp(stamp: Stamp): CredentialStamp {
  if (stamp.kind === 'attested') throw attestedLoginOnly();
  return stamp;
}

/** A credential found for a stamp, of either kind. */
type Found =
  | {
      relation: CredentialRelation;
      user?: UserRecord;
      apiKey: ApiKeyRecord;
      userApiKeys?: ApiKeyRecord[];
      userAuthenticators?: AuthenticatorRecord[];
    }
  | { relation: CredentialRelation; user?: UserRecord; authenticator: AuthenticatorRecord };

/**
 * Finds the stamp's credential in `organization` or its parent (and verifies a passkey's
 * assertion).
 * @throws KeyholdError PUBLIC_KEY_NOT_FOUND, API_KEY_EXPIRED, SIGNATURE_INVALID,
 * CREDENTIAL_NOT_FOUND, WEBAUTHN_SIGNATURE_INVALID
 */
export async function findPrincipal(
  tx: StoreTransaction,
  organization: OrganizationRecord,
  stamp: Stamp,
  now: number,
): Promise<Principal> {
  const stamped = credentialStamp(stamp);
  const found = await lookUp(tx, organization, stamped, false);
  return principalOf(tx, organization, ownOrParent(found), stamped, now);
}

/**
 * whoami: as `findPrincipal`, and when that finds no usable credential, the one
 * sub-organization of `organization` that holds it (a sub-organization's user naming the
 * parent).
 * @throws KeyholdError MULTIPLE_SUB_ORGANIZATIONS (or _CREDENTIAL_ID) when
 * several do, else as `findPrincipal` (its error when no sub-organization holds the key)
 */
export async function findWhoamiPrincipal(
  tx: StoreTransaction,
  organization: OrganizationRecord,
  anyStamp: Stamp,
  now: number,
): Promise<Principal> {
  const stamp = credentialStamp(anyStamp);
  const found = await lookUp(tx, organization, stamp, true);
  try {
    return await principalOf(tx, organization, ownOrParent(found), stamp, now);
  } catch (error) {
    if (!isKeyholdError(error) || error.key !== notFoundKey(stamp)) throw error;
    // Every sub-organization holding the key counts, usable or not (expired, other curve).
    const holders = found.filter((c) => c.relation === 'child');
    if (holders.length > 1) {
      throw new KeyholdError(
        stamp.kind === 'webauthn'
          ? 'MULTIPLE_SUB_ORGANIZATIONS_FOR_CREDENTIAL_ID'
          : 'MULTIPLE_SUB_ORGANIZATIONS',
      );
    }
    if (!holders[0]) throw error;
    return principalOf(tx, organization, holders[0], stamp, now);
  }
}

const notFoundKey = (stamp: CredentialStamp): MessageKey =>
  stamp.kind === 'webauthn' ? 'CREDENTIAL_NOT_FOUND' : 'PUBLIC_KEY_NOT_FOUND';

function scopeOf(organization: OrganizationRecord, includeChildren: boolean): CredentialScope {
  return {
    organizationId: organization.organizationId,
    // A root organization may carry '' as its parent: no parent.
    ...(organization.parentOrganizationId
      ? { parentOrganizationId: organization.parentOrganizationId }
      : {}),
    includeChildren,
  };
}

async function lookUp(
  tx: StoreTransaction,
  organization: OrganizationRecord,
  stamp: CredentialStamp,
  includeChildren: boolean,
): Promise<Found[]> {
  const scope = scopeOf(organization, includeChildren);
  if (stamp.kind === 'webauthn') {
    const found: AuthenticatorCredential[] = await tx.credentials.findAuthenticators(
      stamp.credentialId,
      scope,
    );
    return found;
  }
  const found: ApiKeyCredential[] = await tx.credentials.findApiKeys(stamp.publicKey, scope);
  return found;
}

/** The organization's own credential wins over the parent's, usable or not. */
function ownOrParent(found: readonly Found[]): Found | undefined {
  return found.find((c) => c.relation === 'self') ?? found.find((c) => c.relation === 'parent');
}

async function principalOf(
  tx: StoreTransaction,
  organization: OrganizationRecord,
  credential: Found | undefined,
  stamp: CredentialStamp,
  now: number,
): Promise<ApiKeyPrincipal | PasskeyPrincipal> {
  if (!credential) throw new KeyholdError(notFoundKey(stamp));
  if ('authenticator' in credential) {
    if (stamp.kind !== 'webauthn') throw new KeyholdError('PUBLIC_KEY_NOT_FOUND');
    return passkeyPrincipalOf(tx, organization, credential, stamp);
  }
  if (stamp.kind !== 'api-key') throw new KeyholdError('CREDENTIAL_NOT_FOUND');
  const { apiKey, user, userApiKeys, userAuthenticators } = credential;
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
    ...(userAuthenticators ? { userAuthenticators } : {}),
  };
}

async function passkeyPrincipalOf(
  tx: StoreTransaction,
  organization: OrganizationRecord,
  credential: {
    relation: CredentialRelation;
    user?: UserRecord;
    authenticator: AuthenticatorRecord;
  },
  stamp: WebauthnStamp,
): Promise<PasskeyPrincipal> {
  const { authenticator, user } = credential;
  if (!user) throw new KeyholdError('CREDENTIAL_NOT_FOUND');
  const holder =
    authenticator.organizationId === organization.organizationId
      ? organization
      : await tx.organizations.get(authenticator.organizationId);
  const signCount = await verifyWebauthnAssertion(stamp, {
    publicKey: authenticator.publicKey,
    credentialId: authenticator.credentialId,
    signCount: authenticator.signCount,
    allowedOrigins: await allowedOriginsOf(tx, holder ?? organization),
  });
  // A counting authenticator's counter must move forward; the store settles a race between
  // two requests carrying the same counter (a replayed assertion) on any instance.
  if (signCount > 0) {
    const advanced = await tx.authenticators.advanceSignCount(
      authenticator.organizationId,
      authenticator.authenticatorId,
      signCount,
    );
    if (!advanced) {
      throw new KeyholdError('WEBAUTHN_SIGNATURE_INVALID', {
        reason: 'the signature counter did not move forward: a replayed assertion',
      });
    }
  }
  return {
    organizationId: authenticator.organizationId,
    user,
    authenticator: { ...authenticator, signCount: Math.max(signCount, authenticator.signCount) },
    stamp,
  };
}

/**
 * The origins passkeys of `organization` may stamp from: its own list, or (a sub-organization
 * without one) its parent's.
 */
export async function allowedOriginsOf(
  tx: StoreTransaction,
  organization: OrganizationRecord,
): Promise<readonly string[]> {
  if (organization.allowedOrigins?.length) return organization.allowedOrigins;
  if (!organization.parentOrganizationId) return [];
  const parent = await tx.organizations.get(organization.parentOrganizationId);
  return parent?.allowedOrigins ?? [];
}

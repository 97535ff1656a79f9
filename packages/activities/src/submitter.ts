/**
 * Who submits a new activity, and in which organization it runs. Usually the organization the
 * body names, and the stamp's key found there or in its parent (`findPrincipal`). For the
 * kinds of `LOGIN_AT_PARENT_KINDS` (STAMP_LOGIN), a sub-organization's user may name the parent
 * organization, as `@turnkey/core` does: the credential (an API key or a passkey) is then also looked for in the
 * sub-organizations (as whoami does), and the activity runs in the one that holds it, so the
 * session it issues names that sub-organization. An attested stamp (`X-Stamp-Attested`) logs
 * in (STAMP_LOGIN) the user its token names, in the organization the body names.
 * @module
 */
import { type ActivityDefinition, LOGIN_AT_PARENT_KINDS } from '@keyhold/protocol';
import { attestedLoginOnly, findAttestedPrincipal } from './attested-stamp.js';
import type { StoreTransaction } from './ports/store.js';
import { findPrincipal, findWhoamiPrincipal, type Principal } from './principal.js';
import type { OrganizationRecord } from './records.js';
import type { Stamp } from './stamp.js';

/** The submitter of a new activity and the organization it runs in. */
export interface Submitter {
  readonly organization: OrganizationRecord;
  readonly principal: Principal;
}

/**
 * Finds the submitter of an activity of `definition` whose body names `named`.
 * @throws KeyholdError as `findPrincipal`, and MULTIPLE_SUB_ORGANIZATIONS (or
 *   _FOR_CREDENTIAL_ID, a passkey) when several sub-organizations hold a login's credential
 */
export async function findSubmitter(
  tx: StoreTransaction,
  named: OrganizationRecord,
  definition: ActivityDefinition,
  stamp: Stamp,
  now: number,
): Promise<Submitter> {
  if (stamp.kind === 'attested') {
    // A login attested by a token: the user the token names, in the organization named.
    if (definition.kind !== 'STAMP_LOGIN') throw attestedLoginOnly();
    return { organization: named, principal: await findAttestedPrincipal(tx, named, stamp, now) };
  }
  if (!LOGIN_AT_PARENT_KINDS.has(definition.kind)) {
    return { organization: named, principal: await findPrincipal(tx, named, stamp, now) };
  }
  const principal = await findWhoamiPrincipal(tx, named, stamp, now);
  const home = principal.organizationId;
  // Its own organization, or the parent's user (refused later as any parent's write is).
  if (home === named.organizationId || home === named.parentOrganizationId) {
    return { organization: named, principal };
  }
  const organization = await tx.organizations.get(home);
  if (!organization) throw new Error(`the organization ${home} of the credential is gone`);
  return { organization, principal };
}

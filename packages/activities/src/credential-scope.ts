/**
 * Credentials that may submit one activity kind only. The mailbox proves an end user holds
 * them, nothing more:
 *
 * - a recovery key (`CREDENTIAL_TYPE_RECOVER_USER_KEY_P256`, mailed by INIT_USER_EMAIL_RECOVERY)
 *   submits RECOVER_USER;
 * - an invitation key (mailed by CREATE_INVITATIONS, the only key of a pending invitee)
 *   submits ACCEPT_INVITATION.
 *
 * Anything else they stamp — another activity, a vote — is refused with 403 `request not
 * authorized` before it is decided, so no policy (not even the implicit "manage your own API
 * keys") can widen them. Queries are not activities: these keys read what their user may read.
 * @module
 */
import { KeyholdError } from '@keyhold/protocol';
import { INVITATION_KEY_NAME_PREFIX, INVITATION_STATUS } from './handlers/invitations.js';
import type { StoreTransaction } from './ports/store.js';
import type { Principal } from './principal.js';

/**
 * The one kind the principal's credential may submit, if it is scoped (see the module).
 * @example
 * await scopedKindOf(tx, principal); // 'RECOVER_USER' for a recovery key, else undefined
 */
export async function scopedKindOf(
  tx: StoreTransaction,
  principal: Principal,
): Promise<string | undefined> {
  const key = principal.apiKey;
  if (!key) return undefined;
  if (key.credentialType === 'CREDENTIAL_TYPE_RECOVER_USER_KEY_P256') return 'RECOVER_USER';
  // The name is a cheap filter (every request passes here); the invitation decides.
  if (key.expiresAt !== undefined && key.apiKeyName.startsWith(INVITATION_KEY_NAME_PREFIX)) {
    const invitations = await tx.invitations.list(key.organizationId);
    if (
      invitations.some((i) => i.apiKeyId === key.apiKeyId && i.status === INVITATION_STATUS.created)
    ) {
      return 'ACCEPT_INVITATION';
    }
  }
  return undefined;
}

/**
 * Refuses an activity (or, without `kind`, a vote) that the principal's scoped credential may
 * not submit.
 * @throws KeyholdError REQUEST_NOT_AUTHORIZED
 * @example
 * await requireCredentialScope(tx, principal, definition.kind);
 */
export async function requireCredentialScope(
  tx: StoreTransaction,
  principal: Principal,
  kind: string | undefined,
): Promise<void> {
  const only = await scopedKindOf(tx, principal);
  if (only !== undefined && kind !== only) {
    throw new KeyholdError('REQUEST_NOT_AUTHORIZED', {
      reason: `this credential may only submit ${only}`,
    });
  }
}

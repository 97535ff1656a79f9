/**
 * The consensus context of an activity: `approvers` (the users whose votes approve it, as they
 * are now: {id, tags, email, alias}) and `credentials` (the credentials those votes were
 * stamped with). A vote by a user who has since been deleted no longer counts.
 * @module
 */
import type { ConsensusContext, PolicyCredential, PolicyUser } from '@keyhold/policy-engine';
import type { CredentialType } from '@keyhold/protocol';
import type { StoreTransaction } from '../ports/store.js';
import {
  type ApiKeyRecord,
  credentialTypeOf,
  type UserRecord,
  type VoteRecord,
} from '../records.js';
import { WEBAUTHN_VOTE_SCHEME } from '../webauthn-stamp.js';

const CREDENTIAL_TYPE_OF_SCHEME: Readonly<Record<string, CredentialType>> = {
  SIGNATURE_SCHEME_TK_API_P256: 'CREDENTIAL_TYPE_API_KEY_P256',
  SIGNATURE_SCHEME_TK_API_SECP256K1: 'CREDENTIAL_TYPE_API_KEY_SECP256K1',
  SIGNATURE_SCHEME_TK_API_SECP256K1_EIP191: 'CREDENTIAL_TYPE_API_KEY_SECP256K1',
  SIGNATURE_SCHEME_TK_API_ED25519: 'CREDENTIAL_TYPE_API_KEY_ED25519',
  [WEBAUTHN_VOTE_SCHEME]: 'CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR',
};

/** A user as the `approvers` keyword shows it: alias is the user name. */
export function policyUser(user: UserRecord): PolicyUser {
  return {
    id: user.userId,
    tags: [...user.userTags],
    alias: user.userName,
    ...(user.userEmail !== undefined ? { email: user.userEmail } : {}),
  };
}

/** An API key as the `credentials` keyword shows it. */
export function policyCredentialOfApiKey(key: ApiKeyRecord): PolicyCredential {
  return {
    id: key.apiKeyId,
    user_id: key.userId,
    type: credentialTypeOf(key),
    public_key: key.publicKey,
  };
}

/**
 * The credential a vote was stamped with. A passkey's carries its authenticator id and its
 * WebAuthn `credential_id` (read from the stamp the vote keeps as its signature).
 */
export function policyCredentialOfVote(vote: VoteRecord): PolicyCredential {
  const credentialId = vote.scheme === WEBAUTHN_VOTE_SCHEME ? credentialIdOf(vote) : undefined;
  return {
    id: vote.apiKeyId ?? vote.authenticatorId ?? '',
    user_id: vote.userId,
    type: CREDENTIAL_TYPE_OF_SCHEME[vote.scheme] ?? 'CREDENTIAL_TYPE_API_KEY_P256',
    ...(credentialId !== undefined ? { credential_id: credentialId } : {}),
    public_key: vote.publicKey,
  };
}

/** The credential id in a passkey vote's stamp (`X-Stamp-Webauthn` JSON). */
function credentialIdOf(vote: VoteRecord): string | undefined {
  try {
    const { credentialId } = JSON.parse(vote.signature) as { credentialId?: unknown };
    return typeof credentialId === 'string' ? credentialId : undefined;
  } catch {
    return undefined;
  }
}

/** The approving votes (one per user, the first) with the users as they are now. */
export async function consensusContextOf(
  tx: StoreTransaction,
  organizationId: string,
  votes: readonly VoteRecord[],
): Promise<ConsensusContext> {
  const approvers: PolicyUser[] = [];
  const credentials: PolicyCredential[] = [];
  const seen = new Set<string>();
  for (const vote of votes) {
    if (vote.selection !== 'VOTE_SELECTION_APPROVED' || seen.has(vote.userId)) continue;
    seen.add(vote.userId);
    const user = await tx.users.get(organizationId, vote.userId);
    if (!user) continue;
    approvers.push(policyUser(user));
    credentials.push(policyCredentialOfVote(vote));
  }
  return { approvers, credentials };
}

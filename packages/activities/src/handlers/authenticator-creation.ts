/**
 * Adding passkeys to a user, shared by CREATE_AUTHENTICATORS and the user-creating activities
 * (CREATE_USERS, CREATE_SUB_ORGANIZATION): each attestation verified against the
 * organization's allowed origins, credential ids unique in the organization, and at most
 * {@link MAX_AUTHENTICATORS} per user, counted under the user's lock as API keys are, so two
 * instances adding passkeys to one user at once cannot pass the limit together.
 * @module
 */
import { type AuthenticatorParams, KeyholdError } from '@keyhold/protocol';
import { allowedOriginsOf } from '../principal.js';
import type { AuthenticatorRecord } from '../records.js';
import { verifyAttestation } from '../webauthn-attestation.js';
import type { ActivityContext, ProposalContext } from './activity-handler.js';

/** The spec's hard limit of passkeys per user. */
export const MAX_AUTHENTICATORS = 10;

/**
 * Verifies every attestation (a handler's `verify`): one that does not parse or verify is
 * refused before anything is stored.
 * @throws KeyholdError INVALID_ATTESTATION, AUTHENTICATOR_ALREADY_EXISTS
 */
export async function verifyAuthenticators(
  ctx: ProposalContext,
  authenticators: readonly AuthenticatorParams[],
): Promise<void> {
  if (authenticators.length === 0) return;
  const origins = await allowedOriginsOf(ctx.tx, ctx.organization);
  const seen = new Set<string>();
  for (const params of authenticators) {
    const { credentialId } = await verifyAttestation(params, origins);
    if (seen.has(credentialId)) {
      throw new KeyholdError('AUTHENTICATOR_ALREADY_EXISTS', {
        reason: 'the same credential appears twice',
      });
    }
    seen.add(credentialId);
  }
}

/**
 * Adds passkeys to a user of the context's organization; returns their ids.
 * @throws KeyholdError INVALID_ATTESTATION, AUTHENTICATOR_ALREADY_EXISTS,
 * MAX_AUTHENTICATORS
 */
export async function addAuthenticators(
  ctx: ActivityContext,
  userId: string,
  authenticators: readonly AuthenticatorParams[],
): Promise<string[]> {
  if (authenticators.length === 0) return [];
  const { tx, organization, now } = ctx;
  const orgId = organization.organizationId;
  // Lock the user before counting (see addApiKeys).
  await tx.users.getForUpdate(orgId, userId);
  const held = (await tx.authenticators.listByUser(orgId, userId)).length;
  if (held + authenticators.length > MAX_AUTHENTICATORS) {
    throw new KeyholdError('MAX_AUTHENTICATORS', { userId, limit: MAX_AUTHENTICATORS });
  }
  const origins = await allowedOriginsOf(tx, organization);
  const ids: string[] = [];
  for (const params of authenticators) {
    const verified = await verifyAttestation(params, origins);
    if (await tx.authenticators.findByCredentialId(orgId, verified.credentialId)) {
      throw new KeyholdError('AUTHENTICATOR_ALREADY_EXISTS');
    }
    const record: AuthenticatorRecord = {
      organizationId: orgId,
      userId,
      authenticatorId: ctx.ids.uuid(),
      authenticatorName: params.authenticatorName,
      credentialId: verified.credentialId,
      publicKey: verified.publicKey,
      algorithm: verified.algorithm,
      aaguid: verified.aaguid,
      attestationType: verified.attestationType,
      transports: verified.transports,
      signCount: verified.signCount,
      createdAt: now,
      updatedAt: now,
    };
    await tx.authenticators.insert(record);
    ids.push(record.authenticatorId);
  }
  return ids;
}

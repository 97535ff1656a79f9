/**
 * list_app_proofs: the software app proofs of an activity that asked for them
 * (`generateAppProofs`), none otherwise. get_boot_proof / get_latest_boot_proof: the software
 * boot proof of this server (its version and published keys, signed by its signer key; no
 * hardware attestation), for any app name, or for its own key; another key is not found.
 * @module
 */
import { type AppProof, KeyholdError } from '@keyhold/protocol';
import type { QueryContext, QueryHandlerOf } from './query-handler.js';

export const listAppProofs: QueryHandlerOf<'list_app_proofs'> = async (ctx, body) => {
  const { organizationId } = ctx.organization;
  const activity = await ctx.tx.activities.get(organizationId, body.activityId);
  if (!activity) throw new KeyholdError('ACTIVITY_NOT_FOUND', { activityId: body.activityId });
  const proofs = await ctx.tx.organizationDocuments.get(organizationId, 'app_proof', activity.id);
  return { appProofs: (proofs?.body.appProofs as AppProof[] | undefined) ?? [] };
};

function bootProofOf(ctx: QueryContext) {
  if (!ctx.bootProof) throw new KeyholdError('BOOT_PROOF_NOT_FOUND', {});
  return ctx.bootProof;
}

export const getBootProof: QueryHandlerOf<'get_boot_proof'> = async (ctx, body) => {
  const bootProof = bootProofOf(ctx);
  const asked = body.ephemeralKey.replace(/^0x/, '').toLowerCase();
  const own = bootProof.ephemeralPublicKeyHex.toLowerCase();
  // The full key, or its signing half (the signer's uncompressed key as /public_keys has it).
  if (asked !== own && asked !== own.slice(130)) {
    throw new KeyholdError('BOOT_PROOF_NOT_FOUND', { ephemeralKey: body.ephemeralKey });
  }
  return { bootProof };
};

export const getLatestBootProof: QueryHandlerOf<'get_latest_boot_proof'> = async (ctx) => ({
  bootProof: bootProofOf(ctx),
});

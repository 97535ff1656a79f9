/**
 * Fiat on-ramp credentials: CREATE_FIAT_ON_RAMP_CREDENTIAL, UPDATE_FIAT_ON_RAMP_CREDENTIAL and
 * DELETE_FIAT_ON_RAMP_CREDENTIAL keep an organization's app at an on-ramp provider (MoonPay,
 * Coinbase): its publishable key in the clear, its secret (and private) API key sealed (see
 * `on-ramp-secrets.ts`). One credential per provider and mode (sandbox or live), at most
 * MAX_FIAT_ON_RAMP_CREDENTIALS per organization. Every refusal refuses the request and stores
 * nothing (see `execution-refusal.ts`).
 * @module
 */
import { KeyholdError } from '@keyhold/protocol';
import { StoreConflictError } from '../ports/store.js';
import type { FiatOnRampCredentialRecord } from '../records.js';
import type { ActivityContext, HandlerOf } from './activity-handler.js';
import { refusingHandler } from './execution-refusal.js';
import { sealOnRampSecret } from './on-ramp-secrets.js';

/** Two providers × two modes, with room for more providers. */
export const MAX_FIAT_ON_RAMP_CREDENTIALS = 10;

/** The unique constraint of `(organizationId, onrampProvider, sandboxMode)`. */
const PROVIDER_CONSTRAINT = 'fiat_on_ramp_credential_provider';

/** The credential, or FIAT_ON_RAMP_CREDENTIAL_NOT_FOUND. */
async function credentialOf(
  ctx: ActivityContext,
  fiatOnrampCredentialId: string,
): Promise<FiatOnRampCredentialRecord> {
  const record = await ctx.tx.fiatOnRampCredentials.get(
    ctx.organization.organizationId,
    fiatOnrampCredentialId.toLowerCase(),
  );
  if (!record) {
    throw new KeyholdError('FIAT_ON_RAMP_CREDENTIAL_NOT_FOUND', { fiatOnrampCredentialId });
  }
  return record;
}

/** The sealed secrets of the request for `ids`. */
async function sealedSecrets(
  ctx: ActivityContext,
  p: { encryptedSecretApiKey: string; encryptedPrivateApiKey?: string | undefined },
  ids: Pick<FiatOnRampCredentialRecord, 'organizationId' | 'fiatOnrampCredentialId'>,
): Promise<Pick<FiatOnRampCredentialRecord, 'sealedSecretApiKey' | 'sealedPrivateApiKey'>> {
  const key = ctx.onRamp.encryptionKey;
  const sealedSecretApiKey = await sealOnRampSecret(
    key,
    p.encryptedSecretApiKey,
    'encryptedSecretApiKey',
    ids,
  );
  if (p.encryptedPrivateApiKey === undefined) return { sealedSecretApiKey };
  return {
    sealedSecretApiKey,
    sealedPrivateApiKey: await sealOnRampSecret(
      key,
      p.encryptedPrivateApiKey,
      'encryptedPrivateApiKey',
      ids,
    ),
  };
}

/** Writes `record`, a concurrent credential for the same provider and mode refused. */
async function writing(work: () => Promise<void>, record: FiatOnRampCredentialRecord) {
  try {
    await work();
  } catch (error) {
    if (StoreConflictError.is(error) && error.constraint === PROVIDER_CONSTRAINT) {
      throw new KeyholdError('FIAT_ON_RAMP_CREDENTIAL_EXISTS', {
        onrampProvider: record.onrampProvider,
        sandboxMode: record.sandboxMode,
      });
    }
    throw error;
  }
}

/** Refuses a second credential for the provider and mode (other than `except`). */
function refuseDuplicate(
  existing: readonly FiatOnRampCredentialRecord[],
  record: Pick<FiatOnRampCredentialRecord, 'onrampProvider' | 'sandboxMode'>,
  except?: string,
) {
  const taken = existing.some(
    (c) =>
      c.fiatOnrampCredentialId !== except &&
      c.onrampProvider === record.onrampProvider &&
      c.sandboxMode === record.sandboxMode,
  );
  if (taken) {
    throw new KeyholdError('FIAT_ON_RAMP_CREDENTIAL_EXISTS', {
      onrampProvider: record.onrampProvider,
      sandboxMode: record.sandboxMode,
    });
  }
}

export const createFiatOnRampCredentialHandler: HandlerOf<'CREATE_FIAT_ON_RAMP_CREDENTIAL'> =
  refusingHandler({
    async execute(ctx, p) {
      const organizationId = ctx.organization.organizationId;
      const existing = await ctx.tx.fiatOnRampCredentials.list(organizationId);
      if (existing.length >= MAX_FIAT_ON_RAMP_CREDENTIALS) {
        throw new KeyholdError('TOO_MANY_FIAT_ON_RAMP_CREDENTIALS', {
          limit: MAX_FIAT_ON_RAMP_CREDENTIALS,
        });
      }
      const sandboxMode = p.sandboxMode ?? false;
      refuseDuplicate(existing, { onrampProvider: p.onrampProvider, sandboxMode });
      const ids = { organizationId, fiatOnrampCredentialId: ctx.ids.uuid() };
      const record: FiatOnRampCredentialRecord = {
        ...ids,
        onrampProvider: p.onrampProvider,
        publishableApiKey: p.publishableApiKey,
        ...(p.projectId !== undefined ? { projectId: p.projectId } : {}),
        ...(await sealedSecrets(ctx, p, ids)),
        sandboxMode,
        createdAt: ctx.now,
        updatedAt: ctx.now,
      };
      await writing(() => ctx.tx.fiatOnRampCredentials.insert(record), record);
      return { fiatOnRampCredentialId: ids.fiatOnrampCredentialId };
    },
  });

export const updateFiatOnRampCredentialHandler: HandlerOf<'UPDATE_FIAT_ON_RAMP_CREDENTIAL'> =
  refusingHandler({
    async execute(ctx, p) {
      const current = await credentialOf(ctx, p.fiatOnrampCredentialId);
      refuseDuplicate(
        await ctx.tx.fiatOnRampCredentials.list(current.organizationId),
        { onrampProvider: p.onrampProvider, sandboxMode: current.sandboxMode },
        current.fiatOnrampCredentialId,
      );
      // Every member of the intent replaces the stored one; an absent optional one is cleared.
      const record: FiatOnRampCredentialRecord = {
        organizationId: current.organizationId,
        fiatOnrampCredentialId: current.fiatOnrampCredentialId,
        onrampProvider: p.onrampProvider,
        publishableApiKey: p.publishableApiKey,
        ...(p.projectId !== undefined ? { projectId: p.projectId } : {}),
        ...(await sealedSecrets(ctx, p, current)),
        sandboxMode: current.sandboxMode,
        createdAt: current.createdAt,
        updatedAt: ctx.now,
      };
      await writing(() => ctx.tx.fiatOnRampCredentials.update(record), record);
      return { fiatOnRampCredentialId: record.fiatOnrampCredentialId };
    },
  });

export const deleteFiatOnRampCredentialHandler: HandlerOf<'DELETE_FIAT_ON_RAMP_CREDENTIAL'> =
  refusingHandler({
    async execute(ctx, p) {
      const record = await credentialOf(ctx, p.fiatOnrampCredentialId);
      await ctx.tx.fiatOnRampCredentials.delete(
        record.organizationId,
        record.fiatOnrampCredentialId,
      );
      return { fiatOnRampCredentialId: record.fiatOnrampCredentialId };
    },
  });

/**
 * Adding API keys to a user, shared by CREATE_API_KEYS and the user-creating activities:
 * curve and public-key checks, expiry, uniqueness in the organization, and the per-user
 * limits (10 long-lived, 10 short-lived; expired short-lived keys are removed first).
 * @module
 */
import { type ApiKeyCurve, type ApiKeyParams, KeyholdError } from '@keyhold/protocol';
import { normalizeApiPublicKey } from '../api-key-public-key.js';
import type { ApiKeyRecord } from '../records.js';
import type { ActivityContext } from './activity-handler.js';

export const MAX_LONG_LIVED_API_KEYS = 10;
export const MAX_SHORT_LIVED_API_KEYS = 10;

/** The curve of a submitted key: V1 shapes carry none and mean P-256. */
const curveOf = (p: ApiKeyParams): ApiKeyCurve =>
  'curveType' in p ? p.curveType : 'API_KEY_CURVE_P256';

/** Static checks of submitted keys. */
export function precheckApiKeys(keys: readonly ApiKeyParams[]): void {
  const seen = new Set<string>();
  for (const key of keys) {
    const hex = normalizeApiPublicKey(curveOf(key), key.publicKey);
    if (seen.has(hex)) {
      throw new KeyholdError('API_KEY_ALREADY_EXISTS', {
        reason: 'the same public key appears twice',
      });
    }
    seen.add(hex);
    if (key.expirationSeconds !== undefined && !/^[1-9][0-9]{0,11}$/.test(key.expirationSeconds)) {
      throw new KeyholdError('INVALID_API_KEY_EXPIRATION', {
        expirationSeconds: key.expirationSeconds,
      });
    }
  }
}

/** Adds keys to a user of the context's organization; returns their ids. */
export async function addApiKeys(
  ctx: ActivityContext,
  userId: string,
  keys: readonly ApiKeyParams[],
): Promise<string[]> {
  const { tx, organization, now } = ctx;
  const orgId = organization.organizationId;
  // Lock the user first: two instances adding keys to one user at once would otherwise both
  // count the same existing keys and together pass the limits (READ COMMITTED).
  await tx.users.getForUpdate(orgId, userId);
  const existing = await tx.apiKeys.listByUser(orgId, userId);
  // Expired short-lived keys make room for new ones.
  for (const key of existing) {
    if (key.expiresAt !== undefined && key.expiresAt <= now)
      await tx.apiKeys.delete(orgId, key.apiKeyId);
  }
  const live = existing.filter((k) => k.expiresAt === undefined || k.expiresAt > now);
  let longLived = live.filter((k) => k.expiresAt === undefined).length;
  let shortLived = live.length - longLived;
  const ids: string[] = [];
  for (const key of keys) {
    const curve = curveOf(key);
    const publicKey = normalizeApiPublicKey(curve, key.publicKey);
    if (await tx.apiKeys.findByPublicKey(orgId, publicKey)) {
      throw new KeyholdError('API_KEY_ALREADY_EXISTS');
    }
    if (key.expirationSeconds === undefined) {
      if (++longLived > MAX_LONG_LIVED_API_KEYS) throw new KeyholdError('MAX_LONG_LIVED_API_KEYS');
    } else if (++shortLived > MAX_SHORT_LIVED_API_KEYS) {
      throw new KeyholdError('MAX_SHORT_LIVED_API_KEYS');
    }
    const record: ApiKeyRecord = {
      organizationId: orgId,
      userId,
      apiKeyId: ctx.ids.uuid(),
      apiKeyName: key.apiKeyName,
      publicKey,
      curve,
      createdAt: now,
      updatedAt: now,
      ...(key.expirationSeconds !== undefined
        ? {
            expirationSeconds: key.expirationSeconds,
            expiresAt: now + Number(key.expirationSeconds) * 1000,
          }
        : {}),
    };
    await tx.apiKeys.insert(record);
    ids.push(record.apiKeyId);
  }
  return ids;
}

/**
 * Session keys: the expiring API keys STAMP_LOGIN and CREATE_READ_WRITE_SESSION add to a user,
 * with their own credential types. They count against the user's expiring keys (at most
 * `MAX_SHORT_LIVED_API_KEYS`, shared with short-lived API keys): expired keys are removed
 * first, then the oldest expiring keys make room, so a login never fails on the limit.
 * `invalidateExisting` removes the user's other session keys first.
 * @module
 */
import { type CredentialType, KeyholdError } from '@keyhold/protocol';
import type { ApiKeyRecord, UserRecord } from '../records.js';
import type { ActivityContext } from './activity-handler.js';
import { MAX_SHORT_LIVED_API_KEYS } from './api-key-creation.js';

/** A session's lifetime when the request names none: 15 minutes. */
export const DEFAULT_SESSION_SECONDS = 900;
/** A read-only session's lifetime (interface spec, Limits): one hour. */
export const READ_ONLY_SESSION_SECONDS = 3600;

/** The credential types of session keys: what `invalidateExisting` removes. */
export const SESSION_CREDENTIAL_TYPES: ReadonlySet<CredentialType> = new Set([
  'CREDENTIAL_TYPE_LOGIN',
  'CREDENTIAL_TYPE_READ_WRITE_SESSION_KEY_P256',
  'CREDENTIAL_TYPE_OTP_AUTH_KEY_P256',
  'CREDENTIAL_TYPE_EMAIL_AUTH_KEY_P256',
  'CREDENTIAL_TYPE_OAUTH_KEY_P256',
]);

/**
 * The lifetime in seconds a request asks for (default 900).
 * @throws KeyholdError INVALID_API_KEY_EXPIRATION for zero
 */
export function sessionSeconds(expirationSeconds: string | undefined): number {
  if (expirationSeconds === undefined) return DEFAULT_SESSION_SECONDS;
  if (!/^[1-9][0-9]{0,11}$/.test(expirationSeconds)) {
    throw new KeyholdError('INVALID_API_KEY_EXPIRATION', { expirationSeconds });
  }
  return Number(expirationSeconds);
}

/** A session key to add to a user. */
export interface SessionKeyRequest {
  /** Compressed P-256 hex, already checked to be a point. */
  readonly publicKey: string;
  readonly credentialType: CredentialType;
  readonly apiKeyName: string;
  readonly seconds: number;
  readonly invalidateExisting: boolean;
}

/**
 * Adds a session key to `user` (of the context's organization) and returns its record. A
 * public key already held in the organization by anything but this user's own session key is
 * refused (API_KEY_ALREADY_EXISTS); this user's session key with it is replaced.
 */
export async function addSessionKey(
  ctx: ActivityContext,
  user: UserRecord,
  request: SessionKeyRequest,
): Promise<ApiKeyRecord> {
  const { tx, now } = ctx;
  const orgId = ctx.organization.organizationId;
  // Serializes what counts this user's keys against the limit (see addApiKeys).
  await tx.users.getForUpdate(orgId, user.userId);
  const holder = await tx.apiKeys.findByPublicKey(orgId, request.publicKey);
  if (holder && !(holder.userId === user.userId && isSessionKey(holder))) {
    throw new KeyholdError('API_KEY_ALREADY_EXISTS');
  }
  const removed = new Set<string>(holder ? [holder.apiKeyId] : []);
  const keys = await tx.apiKeys.listByUser(orgId, user.userId);
  for (const key of keys) {
    const expired = key.expiresAt !== undefined && key.expiresAt <= now;
    if (expired || (request.invalidateExisting && isSessionKey(key))) removed.add(key.apiKeyId);
  }
  // The oldest expiring keys make room for this one.
  const expiring = keys
    .filter((k) => k.expiresAt !== undefined && !removed.has(k.apiKeyId))
    .sort((a, b) => a.createdAt - b.createdAt);
  while (expiring.length >= MAX_SHORT_LIVED_API_KEYS) removed.add(expiring.shift()!.apiKeyId);
  for (const apiKeyId of removed) await tx.apiKeys.delete(orgId, apiKeyId);

  const record: ApiKeyRecord = {
    organizationId: orgId,
    userId: user.userId,
    apiKeyId: ctx.ids.uuid(),
    apiKeyName: request.apiKeyName,
    publicKey: request.publicKey,
    curve: 'API_KEY_CURVE_P256',
    credentialType: request.credentialType,
    expirationSeconds: String(request.seconds),
    expiresAt: now + request.seconds * 1000,
    createdAt: now,
    updatedAt: now,
  };
  await tx.apiKeys.insert(record);
  return record;
}

function isSessionKey(key: ApiKeyRecord): boolean {
  return key.credentialType !== undefined && SESSION_CREDENTIAL_TYPES.has(key.credentialType);
}

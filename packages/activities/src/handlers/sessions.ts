/**
 * STAMP_LOGIN, CREATE_READ_WRITE_SESSION (V1, V2) and CREATE_READ_ONLY_SESSION: sessions for
 * the user who stamps the request (wire-compat §3.4, §4).
 *
 * - STAMP_LOGIN registers the client's `publicKey` as a session key (CREDENTIAL_TYPE_LOGIN) and
 *   answers a session JWT naming the user and their organization — a sub-organization when
 *   the request named its parent, as `@turnkey/core` sends it (the activity service resolves
 *   that before the handler runs).
 * - CREATE_READ_WRITE_SESSION makes the session key itself and hands its private key over in a
 *   `credentialBundle` encrypted to `targetPublicKey`; the key is never stored, only its
 *   public half.
 * - CREATE_READ_ONLY_SESSION answers a one-hour JWT of type SESSION_TYPE_READ_ONLY that
 *   authenticates queries (header `X-Session`), never activities.
 * @module
 */
import { createCredentialBundle, createSessionJwt } from '@keyhold/keys';
import { KeyholdError } from '@keyhold/protocol';
import { p256 } from '@noble/curves/nist.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { normalizeApiPublicKey } from '../api-key-public-key.js';
import type { Principal } from '../principal.js';
import type { UserRecord } from '../records.js';
import type { ActivityContext, HandlerOf } from './activity-handler.js';
import { addSessionKey, READ_ONLY_SESSION_SECONDS, sessionSeconds } from './session-keys.js';

/** Epoch seconds of an epoch-ms instant, rounded down: a JWT never outlives its key. */
const seconds = (ms: number) => Math.floor(ms / 1000);

export const stampLoginHandler: HandlerOf<'STAMP_LOGIN'> = {
  precheck(p) {
    normalizeApiPublicKey('API_KEY_CURVE_P256', p.publicKey);
    sessionSeconds(p.expirationSeconds);
  },
  async execute(ctx, p) {
    return loginSession(ctx, ctx.principal.user, 'Login', p);
  },
};

/**
 * A login (STAMP_LOGIN, OTP_LOGIN, OAUTH_LOGIN): `p.publicKey` becomes an expiring session key
 * of `user` (CREDENTIAL_TYPE_LOGIN, named `<label> - <time>`), and the answer is the session
 * JWT over it, signed by the notarizer.
 * @example
 * return loginSession(ctx, user, 'OTP Login', p); // { session: 'eyJ…' }
 */
export async function loginSession(
  ctx: ActivityContext,
  user: UserRecord,
  label: string,
  p: { publicKey: string; expirationSeconds?: string; invalidateExisting?: boolean },
): Promise<{ session: string }> {
  const publicKey = normalizeApiPublicKey('API_KEY_CURVE_P256', p.publicKey);
  const key = await addSessionKey(ctx, user, {
    publicKey,
    credentialType: 'CREDENTIAL_TYPE_LOGIN',
    apiKeyName: `${label} - ${ctx.now}`,
    seconds: sessionSeconds(p.expirationSeconds),
    invalidateExisting: p.invalidateExisting ?? false,
  });
  const session = await createSessionJwt(
    {
      exp: seconds(key.expiresAt!),
      publicKey,
      sessionType: 'SESSION_TYPE_READ_WRITE',
      userId: user.userId,
      organizationId: ctx.organization.organizationId,
    },
    ctx.notarizer,
  );
  return { session };
}

export const createReadWriteSessionHandler: HandlerOf<'CREATE_READ_WRITE_SESSION'> = {
  precheck(p) {
    sessionSeconds(p.expirationSeconds);
    checkTargetPublicKey(p.targetPublicKey);
  },
  async execute(ctx, p) {
    const user =
      'email' in p && p.email !== undefined
        ? await userByEmail(ctx, p.email)
        : await userById(ctx, ('userId' in p ? p.userId : undefined) ?? ctx.principal.user.userId);
    const privateKey = p256.utils.randomSecretKey();
    try {
      const key = await addSessionKey(ctx, user, {
        publicKey: bytesToHex(p256.getPublicKey(privateKey, true)),
        credentialType: 'CREDENTIAL_TYPE_READ_WRITE_SESSION_KEY_P256',
        apiKeyName: p.apiKeyName ?? `Read Write Session - ${ctx.now}`,
        seconds: sessionSeconds(p.expirationSeconds),
        invalidateExisting: ('invalidateExisting' in p && p.invalidateExisting) || false,
      });
      const credentialBundle = await createCredentialBundle({
        plaintext: privateKey,
        targetPublicKey: p.targetPublicKey,
      });
      return {
        organizationId: ctx.organization.organizationId,
        organizationName: ctx.organization.name,
        userId: user.userId,
        username: user.userName,
        apiKeyId: key.apiKeyId,
        credentialBundle,
      };
    } finally {
      privateKey.fill(0);
    }
  },
};

export const createReadOnlySessionHandler: HandlerOf<'CREATE_READ_ONLY_SESSION'> = {
  async execute(ctx) {
    const { principal } = ctx;
    const { user } = principal;
    const exp = seconds(ctx.now) + READ_ONLY_SESSION_SECONDS;
    const session = await createSessionJwt(
      {
        exp,
        // The credential that asked: an API key's hex key, or a passkey's COSE key (base64url).
        publicKey: readOnlySessionKeyOf(principal),
        sessionType: 'SESSION_TYPE_READ_ONLY',
        userId: user.userId,
        organizationId: ctx.organization.organizationId,
      },
      ctx.notarizer,
    );
    return {
      organizationId: ctx.organization.organizationId,
      organizationName: ctx.organization.name,
      userId: user.userId,
      username: user.userName,
      session,
      sessionExpiry: String(exp),
    };
  },
};

/** The credential that asked: an API key's hex key, or a passkey's COSE key (base64url). */
function readOnlySessionKeyOf(principal: Principal): string {
  if (principal.stamp.kind === 'attested') return principal.stamp.signed.publicKey;
  return principal.apiKey ? principal.stamp.publicKey : principal.authenticator!.publicKey;
}

/**
 * The key the bundle is encrypted to must be a P-256 point, compressed or not: refused up
 * front, so no activity is stored for a bundle that could never be made.
 * @throws KeyholdError INVALID_PUBLIC_KEY
 * @example
 * checkTargetPublicKey(p.targetPublicKey); // in a handler's precheck
 */
export function checkTargetPublicKey(targetPublicKey: string): void {
  try {
    p256.Point.fromHex(targetPublicKey.replace(/^0x/, '')).assertValidity();
  } catch {
    throw new KeyholdError('INVALID_PUBLIC_KEY', {
      field: 'targetPublicKey',
      reason: 'expected a P-256 public key as hex (compressed or uncompressed)',
    });
  }
}

async function userById(ctx: ActivityContext, userId: string): Promise<UserRecord> {
  const user = await ctx.tx.users.get(ctx.organization.organizationId, userId);
  if (!user) throw new KeyholdError('USER_NOT_FOUND', { userId });
  return user;
}

/** V1 names the user by email (case-insensitive, as email addresses are compared). */
async function userByEmail(ctx: ActivityContext, email: string): Promise<UserRecord> {
  const wanted = email.toLowerCase();
  const users = await ctx.tx.users.list(ctx.organization.organizationId);
  const user = users.find((u) => u.userEmail?.toLowerCase() === wanted);
  if (!user) throw new KeyholdError('USER_NOT_FOUND', { email });
  return user;
}

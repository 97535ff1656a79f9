/**
 * OAUTH_LOGIN and OAUTH (legacy): an OIDC id_token of a user's OAuth provider buys a session.
 *
 * - OAUTH_LOGIN registers the client's `publicKey` as a session key (CREDENTIAL_TYPE_LOGIN), as
 *   STAMP_LOGIN and OTP_LOGIN do, and answers a session JWT signed by the notarizer
 *   (wire-compat §4). The token's nonce must bind that key (`oidc-token.ts`).
 * - OAUTH makes the key itself (CREDENTIAL_TYPE_OAUTH_KEY_P256) and hands its private key over in
 *   a credential bundle encrypted to `targetPublicKey` (wire-compat §3.4); the nonce binds the
 *   target key.
 *
 * Both run for a sub-organization at its parent's request (PARENT_RUN_KINDS): the token is the
 * end user's proof. Every refusal refuses the request and stores nothing (see
 * `execution-refusal.ts`); an issuer out of reach answers 503.
 * @module
 */

import { createCredentialBundle } from '@keyhold/keys';
import { KeyholdError } from '@keyhold/protocol';
import { p256 } from '@noble/curves/nist.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { normalizeApiPublicKey } from '../api-key-public-key.js';
import type { UserRecord } from '../records.js';
import type { ActivityContext, HandlerOf } from './activity-handler.js';
import { refusingHandler } from './execution-refusal.js';
import {
  checkOidcNonce,
  oauthProviderOf,
  prepareOidcTokens,
  readOidcTokenShape,
  verifyOidcToken,
} from './oidc-token.js';
import { addSessionKey, sessionSeconds } from './session-keys.js';
import { loginSession } from './sessions.js';

/** The user whose provider the token (already checked for its nonce) belongs to. */
async function userOfToken(
  ctx: ActivityContext,
  claims: Awaited<ReturnType<typeof verifyOidcToken>>,
): Promise<UserRecord> {
  const provider = await oauthProviderOf(ctx.tx, ctx.organization.organizationId, claims);
  const user = await ctx.tx.users.get(ctx.organization.organizationId, provider.userId);
  if (!user) throw new KeyholdError('USER_NOT_FOUND', { userId: provider.userId });
  return user;
}

export const oauthLoginHandler: HandlerOf<'OAUTH_LOGIN'> = refusingHandler({
  precheck(p) {
    readOidcTokenShape(p.oidcToken);
    normalizeApiPublicKey('API_KEY_CURVE_P256', p.publicKey);
    sessionSeconds(p.expirationSeconds);
  },
  prepare: (ctx, p) => prepareOidcTokens(ctx, [p.oidcToken]),
  async execute(ctx, p) {
    const publicKey = normalizeApiPublicKey('API_KEY_CURVE_P256', p.publicKey);
    const claims = await verifyOidcToken(ctx, p.oidcToken);
    checkOidcNonce(claims, [publicKey]);
    const user = await userOfToken(ctx, claims);
    return loginSession(ctx, user, 'OAuth Login', p);
  },
});

/**
 * The spellings of a target key a client may have hashed into the nonce: as sent, compressed
 * and uncompressed (lowercase hex).
 * @throws KeyholdError INVALID_PUBLIC_KEY
 */
function targetKeySpellings(targetPublicKey: string): string[] {
  const given = targetPublicKey.replace(/^0x/, '').toLowerCase();
  try {
    const point = p256.Point.fromHex(given);
    point.assertValidity();
    return [given, point.toHex(true), point.toHex(false)];
  } catch {
    throw new KeyholdError('INVALID_PUBLIC_KEY', {
      field: 'targetPublicKey',
      reason: 'expected a P-256 public key as hex (compressed or uncompressed)',
    });
  }
}

export const oauthHandler: HandlerOf<'OAUTH'> = refusingHandler({
  precheck(p) {
    readOidcTokenShape(p.oidcToken);
    targetKeySpellings(p.targetPublicKey);
    sessionSeconds(p.expirationSeconds);
  },
  prepare: (ctx, p) => prepareOidcTokens(ctx, [p.oidcToken]),
  async execute(ctx, p) {
    const claims = await verifyOidcToken(ctx, p.oidcToken);
    checkOidcNonce(claims, targetKeySpellings(p.targetPublicKey));
    const user = await userOfToken(ctx, claims);
    const privateKey = p256.utils.randomSecretKey();
    try {
      const key = await addSessionKey(ctx, user, {
        publicKey: bytesToHex(p256.getPublicKey(privateKey, true)),
        credentialType: 'CREDENTIAL_TYPE_OAUTH_KEY_P256',
        apiKeyName: p.apiKeyName ?? `OAuth - ${ctx.now}`,
        seconds: sessionSeconds(p.expirationSeconds),
        invalidateExisting: p.invalidateExisting ?? false,
      });
      const credentialBundle = await createCredentialBundle({
        plaintext: privateKey,
        targetPublicKey: p.targetPublicKey,
      });
      return { userId: user.userId, apiKeyId: key.apiKeyId, credentialBundle };
    } finally {
      privateKey.fill(0);
    }
  },
});

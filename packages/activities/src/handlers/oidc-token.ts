/**
 * What the domain checks of an OIDC id_token (identity-and-payments §B5), around the
 * OidcVerifier port that checks its signature, issuer and expiry:
 *
 * - before anything is fetched, the token must be a JWT whose payload names `iss`, `sub` and
 *   `aud` (the spec's "invalid OIDC token");
 * - at login, the nonce (`nonce`, or `tknonce`) must be the lowercase hex SHA-256 of the UTF-8
 *   of the client key's compressed hex: the token is bound to the key the session is for;
 * - the token's issuer, audience and subject must be a provider of the organization's users.
 *
 * Every refusal is INVALID_OIDC_TOKEN with the failed check in `details.reason`; an issuer that
 * cannot be reached is UNAVAILABLE (503, retry).
 * @module
 */
import { KeyholdError } from '@keyhold/protocol';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import {
  type OidcClaims,
  OidcIssuerUnavailableError,
  OidcTokenInvalidError,
} from '../ports/oidc-verifier.js';
import type { StoreTransaction } from '../ports/store.js';
import type { OauthProviderRecord } from '../records.js';
import type { PrepareContext } from './activity-handler.js';

/**
 * The nonce an id_token must carry to log in with `publicKey`: lowercase hex of SHA-256 over
 * the UTF-8 of the key's hex string (not over the key's bytes).
 * @example
 * oidcNonceOf('0394e549…281a'); // '1663bba4…ef82'
 */
export function oidcNonceOf(publicKeyHex: string): string {
  return bytesToHex(sha256(utf8ToBytes(publicKeyHex)));
}

/** The audiences of one token that are looked up (a token naming more is matched on these). */
const MAX_AUDIENCES = 10;

const invalid = (reason: string) => new KeyholdError('INVALID_OIDC_TOKEN', { reason });

/**
 * The unverified claims of a token, for a precheck: refuses what is not a JWT naming `iss`,
 * `sub` and `aud`. Nothing it returns may be trusted.
 * @throws KeyholdError INVALID_OIDC_TOKEN
 */
export function readOidcTokenShape(token: string): {
  iss: string;
  sub: string;
  aud: readonly string[];
} {
  const parts = token.split('.');
  if (parts.length !== 3) throw invalid('not a JWT of three dot-separated parts');
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8'));
  } catch {
    throw invalid('the payload is not base64url JSON');
  }
  if (typeof payload !== 'object' || payload === null)
    throw invalid('the payload is not an object');
  const { iss, sub, aud } = payload as Record<string, unknown>;
  const audOk =
    (typeof aud === 'string' && aud !== '') ||
    (Array.isArray(aud) && aud.length > 0 && aud.every((a) => typeof a === 'string'));
  if (typeof iss !== 'string' || iss === '' || typeof sub !== 'string' || sub === '' || !audOk) {
    throw invalid('the token lacks a required claim: aud, sub or iss');
  }
  return { iss, sub, aud: typeof aud === 'string' ? [aud] : (aud as string[]) };
}

/**
 * The claims of a token the context's verifier accepts (signature, trusted issuer, expiry).
 * @throws KeyholdError INVALID_OIDC_TOKEN, UNAVAILABLE (the issuer cannot be reached)
 */
export async function verifyOidcToken(ctx: PrepareContext, token: string): Promise<OidcClaims> {
  readOidcTokenShape(token);
  try {
    return await ctx.oidc.verify(token, { now: ctx.now });
  } catch (error) {
    if (error instanceof OidcTokenInvalidError) throw invalid(error.reason);
    if (error instanceof OidcIssuerUnavailableError) {
      throw new KeyholdError('UNAVAILABLE', {
        reason: `the OIDC issuer is unreachable: ${error.reason}`,
      });
    }
    throw error;
  }
}

/**
 * A handler's `prepare` for its id_tokens: verifies each before the transaction opens, so
 * the issuer's discovery document and keys are fetched (and cached) outside it and a bad token
 * is refused before anything is read.
 * @throws KeyholdError INVALID_OIDC_TOKEN, UNAVAILABLE
 * @example
 * export const h = { prepare: (ctx, p) => prepareOidcTokens(ctx, [p.oidcToken]), … };
 */
export async function prepareOidcTokens(
  ctx: PrepareContext,
  tokens: readonly (string | undefined)[],
): Promise<void> {
  for (const token of tokens) if (token !== undefined) await verifyOidcToken(ctx, token);
}

/**
 * Refuses a token whose `nonce` (or `tknonce`) is not the nonce of any of `publicKeys` (the
 * same key in the spellings a client may have hashed).
 * @throws KeyholdError INVALID_OIDC_TOKEN
 */
export function checkOidcNonce(claims: OidcClaims, publicKeys: readonly string[]): void {
  const wanted = new Set(publicKeys.map(oidcNonceOf));
  const given = [claims.nonce, claims.tknonce].filter((n): n is string => n !== undefined);
  if (given.length === 0) throw invalid('the token carries no nonce');
  if (!given.some((n) => wanted.has(n.toLowerCase()))) {
    throw invalid(
      'the nonce is not the hash of this public key: the token is bound to another key',
    );
  }
}

/**
 * The organization's provider with the token's issuer, subject and one of its audiences.
 * @throws KeyholdError INVALID_OIDC_TOKEN when no user of the organization has it
 */
export async function oauthProviderOf(
  tx: StoreTransaction,
  organizationId: string,
  claims: Pick<OidcClaims, 'iss' | 'sub' | 'aud'>,
): Promise<OauthProviderRecord> {
  let provider: OauthProviderRecord | undefined;
  // A token names one audience, rarely a few: one indexed lookup each.
  for (const audience of claims.aud.slice(0, MAX_AUDIENCES)) {
    provider = await tx.oauthProviders.findByIdentity(
      organizationId,
      claims.iss,
      audience,
      claims.sub,
    );
    if (provider) break;
  }
  if (!provider) {
    throw invalid(
      "no OAuth provider of this organization has the token's issuer, audience and subject",
    );
  }
  return provider;
}

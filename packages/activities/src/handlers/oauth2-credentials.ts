/**
 * OAuth 2.0 credentials for providers without OIDC (X, Discord): CREATE_OAUTH2_CREDENTIAL,
 * UPDATE_OAUTH2_CREDENTIAL and DELETE_OAUTH2_CREDENTIAL keep an app's client id and secret;
 * OAUTH2_AUTHENTICATE exchanges an end user's authorization code for the provider's token,
 * asks the provider who the user is, and answers an OIDC token Keyhold issues (`iss` Keyhold,
 * `aud` the client id, `sub` `x:<id>` / `discord:<id>`, the request's `nonce`), which OAUTH_LOGIN
 * and sub-organization sign-up take like any provider's.
 *
 * - The client secret arrives encrypted to the TLS-fetcher encryption key
 *   (`encryptOauth2ClientSecret` of `@turnkey/crypto` with `tlsFetcherEncryptPublicKey`). It is
 *   opened here and sealed again (AES-256-GCM under a key derived from that key, bound to the
 *   organization and credential), so no table holds it in the clear and no query returns it.
 * - Every refusal refuses the request and stores nothing (see `execution-refusal.ts`): a secret
 *   that does not open, an unknown credential, a code the provider refuses (400), a provider
 *   that cannot be reached (503, Retry-After).
 * @module
 */
import {
  type BundleSigner,
  createCredentialBundle,
  createOauth2OidcToken,
  oidcKeyIdOf,
  openQuorumEnvelope,
  openSealedSecret,
  sealSecret,
} from '@keyhold/keys';
import { KeyholdError } from '@keyhold/protocol';
import { p256 } from '@noble/curves/nist.js';
import { hkdf } from '@noble/hashes/hkdf.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import {
  Oauth2ExchangeRefusedError,
  type Oauth2ProviderName,
  Oauth2ProviderNotConfiguredError,
  Oauth2ProviderUnavailableError,
} from '../ports/oauth2-gateway.js';
import type { Oauth2CredentialRecord } from '../records.js';
import type { ActivityContext, HandlerOf } from './activity-handler.js';
import { refusingHandler } from './execution-refusal.js';

/** How long an OIDC token of OAUTH2_AUTHENTICATE is valid: long enough for OAUTH_LOGIN. */
export const OAUTH2_OIDC_TOKEN_SECONDS = 600;

/** The `sub` prefix of each provider's users (`x:123456789`). */
const SUBJECT_PREFIX: Record<Oauth2ProviderName, string> = {
  OAUTH2_PROVIDER_X: 'x',
  OAUTH2_PROVIDER_DISCORD: 'discord',
};

/** The AES-256-GCM key client secrets are sealed under, derived from the encryption key. */
function sealingKey(encryptionKey: BundleSigner): Uint8Array {
  return hkdf(
    sha256,
    encryptionKey.privateKey,
    utf8ToBytes('keyhold'),
    utf8ToBytes('keyhold/oauth2-client-secret/aes-256-gcm/v1'),
    32,
  );
}

/** What a sealed secret is bound to: its organization and credential. */
const sealedFor = (record: Pick<Oauth2CredentialRecord, 'organizationId' | 'oauth2CredentialId'>) =>
  `oauth2-credential/${record.organizationId}/${record.oauth2CredentialId}`;

/** The client secret of the request, opened, then sealed for `record`. */
function sealClientSecret(
  ctx: ActivityContext,
  encryptedClientSecret: string,
  record: Pick<Oauth2CredentialRecord, 'organizationId' | 'oauth2CredentialId'>,
): string {
  const invalid = (_field: string, reason: string) =>
    new KeyholdError('INVALID_ENCRYPTED_CLIENT_SECRET', { field: 'encryptedClientSecret', reason });
  const plaintext = openQuorumEnvelope({
    envelope: encryptedClientSecret,
    privateKey: ctx.oauth2.encryptionKey.privateKey,
    field: 'encryptedClientSecret',
    toError: invalid,
  });
  const key = sealingKey(ctx.oauth2.encryptionKey);
  try {
    if (plaintext.length === 0) throw invalid('', 'the client secret is empty');
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(plaintext);
    } catch {
      throw invalid('', 'the client secret is not UTF-8 text');
    }
    return sealSecret({ key, plaintext, aad: sealedFor(record) });
  } finally {
    plaintext.fill(0);
    key.fill(0);
  }
}

/** The credential, or OAUTH2_CREDENTIAL_NOT_FOUND. */
async function credentialOf(
  ctx: ActivityContext,
  oauth2CredentialId: string,
): Promise<Oauth2CredentialRecord> {
  const id = oauth2CredentialId.toLowerCase();
  const record = await ctx.tx.oauth2Credentials.get(ctx.organization.organizationId, id);
  if (!record) {
    throw new KeyholdError('OAUTH2_CREDENTIAL_NOT_FOUND', { oauth2CredentialId });
  }
  return record;
}

export const createOauth2CredentialHandler: HandlerOf<'CREATE_OAUTH2_CREDENTIAL'> = refusingHandler(
  {
    async execute(ctx, p) {
      const ids = {
        organizationId: ctx.organization.organizationId,
        oauth2CredentialId: ctx.ids.uuid(),
      };
      await ctx.tx.oauth2Credentials.insert({
        ...ids,
        provider: p.provider,
        clientId: p.clientId,
        sealedClientSecret: sealClientSecret(ctx, p.encryptedClientSecret, ids),
        createdAt: ctx.now,
        updatedAt: ctx.now,
      });
      return { oauth2CredentialId: ids.oauth2CredentialId };
    },
  },
);

export const updateOauth2CredentialHandler: HandlerOf<'UPDATE_OAUTH2_CREDENTIAL'> = refusingHandler(
  {
    async execute(ctx, p) {
      const record = await credentialOf(ctx, p.oauth2CredentialId);
      await ctx.tx.oauth2Credentials.update({
        ...record,
        provider: p.provider,
        clientId: p.clientId,
        sealedClientSecret: sealClientSecret(ctx, p.encryptedClientSecret, record),
        updatedAt: ctx.now,
      });
      return { oauth2CredentialId: record.oauth2CredentialId };
    },
  },
);

export const deleteOauth2CredentialHandler: HandlerOf<'DELETE_OAUTH2_CREDENTIAL'> = refusingHandler(
  {
    async execute(ctx, p) {
      const record = await credentialOf(ctx, p.oauth2CredentialId);
      await ctx.tx.oauth2Credentials.delete(record.organizationId, record.oauth2CredentialId);
      return { oauth2CredentialId: record.oauth2CredentialId };
    },
  },
);

/** The provider's answer, or the refusal the catalogue has for its failure. */
async function exchange(
  ctx: ActivityContext,
  record: Oauth2CredentialRecord,
  p: Parameters<HandlerOf<'OAUTH2_AUTHENTICATE'>['execute']>[1],
) {
  const key = sealingKey(ctx.oauth2.encryptionKey);
  let secret: Uint8Array;
  try {
    secret = openSealedSecret({ key, sealed: record.sealedClientSecret, aad: sealedFor(record) });
  } finally {
    key.fill(0);
  }
  const provider = record.provider as Oauth2ProviderName;
  try {
    return await ctx.oauth2.gateway.authenticate({
      provider,
      clientId: record.clientId,
      clientSecret: new TextDecoder().decode(secret),
      authCode: p.authCode,
      redirectUri: p.redirectUri,
      ...(p.codeVerifier ? { codeVerifier: p.codeVerifier } : {}),
    });
  } catch (error) {
    if (error instanceof Oauth2ProviderUnavailableError) {
      throw new KeyholdError('UNAVAILABLE', {
        reason: `the OAuth 2.0 provider cannot be reached: ${error.reason}`,
      });
    }
    if (error instanceof Oauth2ExchangeRefusedError) {
      throw new KeyholdError('OAUTH2_CODE_EXCHANGE_FAILED', {
        provider,
        ...(error.error !== undefined ? { error: error.error } : {}),
        reason: error.reason,
      });
    }
    if (error instanceof Oauth2ProviderNotConfiguredError) {
      throw new KeyholdError('OAUTH2_PROVIDER_NOT_CONFIGURED', { provider, reason: error.reason });
    }
    throw error;
  } finally {
    secret.fill(0);
  }
}

/** The `kid` of the TLS-fetcher signing key (see `oidcKeyIdOf`). */
function keyIdOf(signer: BundleSigner): string {
  return oidcKeyIdOf(bytesToHex(p256.getPublicKey(signer.privateKey, false)));
}

export const oauth2AuthenticateHandler: HandlerOf<'OAUTH2_AUTHENTICATE'> = refusingHandler({
  async execute(ctx, p) {
    const record = await credentialOf(ctx, p.oauth2CredentialId);
    const identity = await exchange(ctx, record, p);
    const encryptedBearerToken =
      p.bearerTokenTargetPublicKey === undefined
        ? undefined
        : await createCredentialBundle({
            plaintext: utf8ToBytes(identity.accessToken),
            targetPublicKey: p.bearerTokenTargetPublicKey,
          });
    const issuedAt = Math.floor(ctx.now / 1000);
    const oidcToken = createOauth2OidcToken(
      {
        issuer: ctx.oauth2.issuer,
        audience: record.clientId,
        subject: `${SUBJECT_PREFIX[record.provider as Oauth2ProviderName]}:${identity.userId}`,
        nonce: p.nonce,
        issuedAt,
        expiresAt: issuedAt + OAUTH2_OIDC_TOKEN_SECONDS,
        ...(encryptedBearerToken !== undefined ? { encryptedBearerToken } : {}),
      },
      ctx.tlsFetcher,
      keyIdOf(ctx.tlsFetcher),
    );
    return { oidcToken };
  },
});

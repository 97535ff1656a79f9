/**
 * OAuth 2 handlers against a handler context and an in-memory credential table, no store or
 * network: the secret is sealed (never the plaintext) and bound to its record; the gateway's
 * three failures become the catalogue's refusals (nothing written); the OIDC token carries the
 * claims and verifies with the TLS-fetcher key under its `kid`.
 */
import { oidcKeyIdOf } from '@keyhold/keys';
import { p256 } from '@noble/curves/nist.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { encryptOauth2ClientSecret } from '@turnkey/crypto';
import { describe, expect, it } from 'vitest';
import {
  type Oauth2CodeExchange,
  Oauth2ExchangeRefusedError,
  type Oauth2Gateway,
  Oauth2ProviderNotConfiguredError,
  Oauth2ProviderUnavailableError,
} from '../ports/oauth2-gateway.js';
import type { Oauth2CredentialRecord } from '../records.js';
import { handlerContext } from './__fixtures__/handler-context.js';
import type { ActivityContext } from './activity-handler.js';
import { ExecutionRefusal } from './execution-refusal.js';
import {
  createOauth2CredentialHandler,
  oauth2AuthenticateHandler,
  updateOauth2CredentialHandler,
} from './oauth2-credentials.js';

const encryptionKey = { privateKey: p256.utils.randomSecretKey() };
const encryptionPublicKey = bytesToHex(p256.getPublicKey(encryptionKey.privateKey, false));
const tlsFetcher = { privateKey: p256.utils.randomSecretKey() };
let created = 0;

/** A context over `rows` (one organization's credentials) with `gateway`. */
function context(
  type: Parameters<typeof handlerContext>[0]['type'],
  rows: Map<string, Oauth2CredentialRecord>,
  gateway: Oauth2Gateway = { authenticate: async () => ({ userId: '1', accessToken: 't' }) },
): ActivityContext {
  const base = handlerContext({
    type,
    tx: {
      oauth2Credentials: {
        get: async (_org, id) => rows.get(id),
        insert: async (record) => void rows.set(record.oauth2CredentialId, record),
        update: async (record) => void rows.set(record.oauth2CredentialId, record),
      },
    },
  });
  return {
    ...base,
    ids: { ...base.ids, uuid: () => `credential-${++created}` },
    tlsFetcher,
    oauth2: { encryptionKey, gateway, issuer: 'https://keyhold.test/keyhold/v1/oauth2' },
  };
}

const refusalKey = (error: unknown) =>
  error instanceof ExecutionRefusal ? error.error.key : `not a refusal: ${String(error)}`;

describe('CREATE_OAUTH2_CREDENTIAL / UPDATE_OAUTH2_CREDENTIAL', () => {
  it('stores the secret sealed, and a secret for another key is refused before any write', async () => {
    const rows = new Map<string, Oauth2CredentialRecord>();
    const ctx = context('ACTIVITY_TYPE_CREATE_OAUTH2_CREDENTIAL', rows);
    const { oauth2CredentialId } = await createOauth2CredentialHandler.execute(ctx, {
      provider: 'OAUTH2_PROVIDER_X',
      clientId: 'app',
      encryptedClientSecret: await encryptOauth2ClientSecret('s3cret-value', encryptionPublicKey),
    });
    const stored = rows.get(oauth2CredentialId)!;
    expect(stored.sealedClientSecret).toMatch(/^v1\./);
    expect(JSON.stringify(stored)).not.toContain('s3cret-value');
    expect(JSON.stringify(stored)).not.toContain(bytesToHex(utf8ToBytes('s3cret-value')));

    const other = bytesToHex(p256.getPublicKey(p256.utils.randomSecretKey(), false));
    const before = [...rows.values()];
    const refused = await createOauth2CredentialHandler
      .execute(ctx, {
        provider: 'OAUTH2_PROVIDER_X',
        clientId: 'app',
        encryptedClientSecret: await encryptOauth2ClientSecret('s3cret-value', other),
      })
      .catch((e: unknown) => e);
    expect(refusalKey(refused)).toBe('INVALID_ENCRYPTED_CLIENT_SECRET');
    const empty = await createOauth2CredentialHandler
      .execute(ctx, {
        provider: 'OAUTH2_PROVIDER_X',
        clientId: 'app',
        encryptedClientSecret: await encryptOauth2ClientSecret('', encryptionPublicKey),
      })
      .catch((e: unknown) => e);
    expect(refusalKey(empty)).toBe('INVALID_ENCRYPTED_CLIENT_SECRET');
    expect([...rows.values()]).toEqual(before);

    const update = await updateOauth2CredentialHandler
      .execute(context('ACTIVITY_TYPE_UPDATE_OAUTH2_CREDENTIAL', rows), {
        oauth2CredentialId: 'unknown',
        provider: 'OAUTH2_PROVIDER_X',
        clientId: 'app',
        encryptedClientSecret: await encryptOauth2ClientSecret('x', encryptionPublicKey),
      })
      .catch((e: unknown) => e);
    expect(refusalKey(update)).toBe('OAUTH2_CREDENTIAL_NOT_FOUND');
  });
});

describe('OAUTH2_AUTHENTICATE', () => {
  async function stored(rows: Map<string, Oauth2CredentialRecord>, secret: string) {
    const { oauth2CredentialId } = await createOauth2CredentialHandler.execute(
      context('ACTIVITY_TYPE_CREATE_OAUTH2_CREDENTIAL', rows),
      {
        provider: 'OAUTH2_PROVIDER_DISCORD',
        clientId: 'discord-app',
        encryptedClientSecret: await encryptOauth2ClientSecret(secret, encryptionPublicKey),
      },
    );
    return oauth2CredentialId;
  }
  const intent = (oauth2CredentialId: string) => ({
    oauth2CredentialId,
    authCode: 'the-code',
    redirectUri: 'https://app.example/cb',
    codeVerifier: '',
    nonce: 'n0nce',
  });

  it('hands the opened secret to the gateway and signs the token with the TLS-fetcher key', async () => {
    const rows = new Map<string, Oauth2CredentialRecord>();
    const id = await stored(rows, 'discord-secret');
    const seen: Oauth2CodeExchange[] = [];
    const ctx = context('ACTIVITY_TYPE_OAUTH2_AUTHENTICATE', rows, {
      authenticate: async (exchange) => {
        seen.push(exchange);
        return { userId: '80351110224678912', accessToken: 'bearer' };
      },
    });
    const { oidcToken } = await oauth2AuthenticateHandler.execute(ctx, intent(id));
    expect(seen).toEqual([
      {
        provider: 'OAUTH2_PROVIDER_DISCORD',
        clientId: 'discord-app',
        clientSecret: 'discord-secret',
        authCode: 'the-code',
        redirectUri: 'https://app.example/cb',
      },
    ]);
    const [header, payload, signature] = oidcToken.split('.') as [string, string, string];
    const publicKey = p256.getPublicKey(tlsFetcher.privateKey, false);
    expect(JSON.parse(Buffer.from(header, 'base64url').toString())).toEqual({
      alg: 'ES256',
      typ: 'JWT',
      kid: oidcKeyIdOf(bytesToHex(publicKey)),
    });
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    expect(claims).toEqual({
      iss: 'https://keyhold.test/keyhold/v1/oauth2',
      sub: 'discord:80351110224678912',
      aud: 'discord-app',
      nonce: 'n0nce',
      iat: Math.floor(ctx.now / 1000),
      exp: Math.floor(ctx.now / 1000) + 600,
    });
    const input = utf8ToBytes(`${header}.${payload}`);
    const sig = Buffer.from(signature, 'base64url');
    expect(p256.verify(sig, sha256(input), publicKey, { prehash: false })).toBe(true);
    expect(
      p256.verify(sig, sha256(utf8ToBytes(`${header}.x`)), publicKey, { prehash: false }),
    ).toBe(false);
  });

  it('maps the gateway’s failures to refusals', async () => {
    const rows = new Map<string, Oauth2CredentialRecord>();
    const id = await stored(rows, 'secret');
    const failing = (error: Error) =>
      context('ACTIVITY_TYPE_OAUTH2_AUTHENTICATE', rows, {
        authenticate: async () => {
          throw error;
        },
      });
    for (const [error, key] of [
      [new Oauth2ProviderUnavailableError('ECONNREFUSED'), 'UNAVAILABLE'],
      [new Oauth2ExchangeRefusedError('invalid_grant', 'HTTP 400'), 'OAUTH2_CODE_EXCHANGE_FAILED'],
      [
        new Oauth2ProviderNotConfiguredError('OAUTH2_PROVIDER_DISCORD', 'none'),
        'OAUTH2_PROVIDER_NOT_CONFIGURED',
      ],
    ] as const) {
      const refused = await oauth2AuthenticateHandler
        .execute(failing(error), intent(id))
        .catch((e: unknown) => e);
      expect(refusalKey(refused)).toBe(key);
    }
  });

  it('a sealed secret copied onto another credential does not open', async () => {
    const rows = new Map<string, Oauth2CredentialRecord>();
    const a = await stored(rows, 'secret-a');
    const b = await stored(rows, 'secret-b');
    rows.set(b, { ...rows.get(b)!, sealedClientSecret: rows.get(a)!.sealedClientSecret });
    const ctx = context('ACTIVITY_TYPE_OAUTH2_AUTHENTICATE', rows);
    await expect(oauth2AuthenticateHandler.execute(ctx, intent(b))).rejects.toThrow();
    await expect(oauth2AuthenticateHandler.execute(ctx, intent(a))).resolves.toHaveProperty(
      'oidcToken',
    );
  });
});

/**
 * Attested stamps (`X-Stamp-Attested`, wire-compat §1.3) as `@turnkey/core` sends them with
 * STAMP_LOGIN (identity-and-payments §B4): the header is built exactly as core's
 * `AttestedStamper` builds it (`__stampers__/attested/base.ts`: `{publicKeyAttestation, scheme,
 * publicKey, signature}` with the DER signature `@turnkey/api-key-stamper` makes, base64url).
 *
 * - `STAMP_ATTESTED_SCHEME_P256_VERIFICATION_TOKEN`: a real verification token, from a code
 *   read in the mail a real SMTP server received (INIT_OTP → VERIFY_OTP), logs alice in; the
 *   token is used once; a token bound to another key is refused.
 * - `STAMP_ATTESTED_SCHEME_P256_OIDC`: a real id_token of a local `oidc-provider` whose nonce
 *   binds the key logs in the user holding that OAuth provider; a token bound to another key
 *   is refused.
 * - An attested stamp authenticates nothing but STAMP_LOGIN, and only for the attested key.
 * Refusals store nothing.
 */

import { smtpNotifier } from '@keyhold/notifier-smtp';
import { joseOidcVerifier } from '@keyhold/oidc-jose';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import {
  encryptOtpCodeToBundle,
  generateP256KeyPair,
  verifySessionJwtSignature,
} from '@turnkey/crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type SmtpMailbox,
  startSmtpMailbox,
} from '../../../adapters/notifier-smtp/src/testing/smtp-mailbox.js';
import { type LocalOidcIssuer, startOidcIssuer } from './__fixtures__/oidc-issuer.js';
import {
  sdkClient,
  startTurnkeyServer,
  type TurnkeyServer,
} from './__fixtures__/turnkey-server.js';
import { generateApiKeyPair } from './api-key-signer.js';

/** What a submit answers: the activity, or a Status body. */
interface StatusOrActivity {
  message?: string;
  details?: unknown[];
  activity: { result: { stampLoginResult: { session: string } } };
}

const OIDC = 'STAMP_ATTESTED_SCHEME_P256_OIDC';
const VERIFICATION_TOKEN = 'STAMP_ATTESTED_SCHEME_P256_VERIFICATION_TOKEN';

const nonceOf = (publicKeyHex: string) => bytesToHex(sha256(utf8ToBytes(publicKeyHex)));

/**
 * The header `@turnkey/core`'s AttestedStamper sends: the DER signature of the body by the key
 * (what `@turnkey/api-key-stamper` signs), wrapped with the attestation, base64url.
 */
async function attestedHeader(
  key: { publicKey: string; privateKey: string },
  scheme: string,
  attestation: string,
  body: string,
): Promise<string> {
  const stamper = new ApiKeyStamper({ apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey });
  const { stampHeaderValue } = await stamper.stamp(body);
  const { signature } = JSON.parse(Buffer.from(stampHeaderValue, 'base64url').toString());
  const stamp = { publicKeyAttestation: attestation, scheme, publicKey: key.publicKey, signature };
  return Buffer.from(JSON.stringify(stamp)).toString('base64url');
}

describe('X-Stamp-Attested logins (STAMP_LOGIN)', () => {
  let kh: TurnkeyServer;
  let op: LocalOidcIssuer;
  let mailbox: SmtpMailbox;
  let subOrgId: string;
  let aliceId: string;
  const email = 'alice@example.com';
  const app = 'wallet-app';

  beforeAll(async () => {
    mailbox = await startSmtpMailbox({ username: 'keyhold', password: 's3cret' });
    op = await startOidcIssuer([{ clientId: app }]);
    kh = await startTurnkeyServer({
      notifier: smtpNotifier({ url: mailbox.url, from: 'login@keyhold.test', timeoutMs: 2000 }),
      oidcVerifier: joseOidcVerifier({ trustedIssuers: [op.issuer], allowLoopbackHttp: true }),
    });
    const created = await kh.client.createSubOrganization({
      subOrganizationName: 'end user',
      rootUsers: [
        {
          userName: 'alice',
          userEmail: email,
          apiKeys: [
            {
              apiKeyName: 'device',
              publicKey: generateApiKeyPair().publicKey,
              curveType: 'API_KEY_CURVE_P256',
            },
          ],
          authenticators: [],
          oauthProviders: [
            {
              providerName: 'Local OP',
              oidcToken: await op.idToken({ clientId: app, sub: 'alice' }),
            },
          ],
        },
      ],
      rootQuorumThreshold: 1,
    });
    subOrgId = created.subOrganizationId;
    aliceId = created.rootUserIds![0]!;
  });
  afterAll(async () => {
    await kh?.server.close();
    await op?.close();
    await mailbox?.close();
  });

  /** STAMP_LOGIN in the sub-organization for `key`, stamped with X-Stamp-Attested. */
  async function stampLogin(
    key: { publicKey: string; privateKey: string },
    scheme: string,
    attestation: string,
    options: { path?: string; parameters?: Record<string, unknown>; type?: string } = {},
  ) {
    const body = JSON.stringify({
      type: options.type ?? 'ACTIVITY_TYPE_STAMP_LOGIN',
      timestampMs: String(Date.now()),
      organizationId: subOrgId,
      parameters: options.parameters ?? { publicKey: key.publicKey, expirationSeconds: '900' },
    });
    const response = await fetch(
      `${kh.server.url}/public/v1/submit/${options.path ?? 'stamp_login'}`,
      {
        method: 'POST',
        body,
        headers: { 'X-Stamp-Attested': await attestedHeader(key, scheme, attestation, body) },
      },
    );
    return { status: response.status, answer: (await response.json()) as StatusOrActivity };
  }

  /** A verification token for `email`, bound to `key` (INIT_OTP → mail → VERIFY_OTP). */
  async function verificationTokenFor(key: { publicKey: string }): Promise<string> {
    const { otpId, otpEncryptionTargetBundle } = await kh.client.initOtp({
      otpType: 'OTP_TYPE_EMAIL',
      contact: email,
      appName: 'Acme',
    });
    const mail = mailbox.received.filter((m) => m.to.includes(email)).at(-1)!;
    const code = mail.raw.match(/sign-in code is ([0-9A-Z]{6,9})/)![1]!;
    const encryptedOtpBundle = await encryptOtpCodeToBundle(
      code,
      otpEncryptionTargetBundle,
      key.publicKey,
      kh.server.keyhold.tlsFetcherSignPublicKey,
    );
    return (await kh.client.verifyOtp({ otpId, encryptedOtpBundle })).verificationToken;
  }

  const activitiesOfSub = async () =>
    (await kh.client.getActivities({ organizationId: subOrgId })).activities.length;

  it('P256_VERIFICATION_TOKEN: the mailed code’s token logs alice in, once', async () => {
    const key = generateP256KeyPair();
    const token = await verificationTokenFor(key);
    const { status, answer } = await stampLogin(key, VERIFICATION_TOKEN, token);
    expect(status, JSON.stringify(answer)).toBe(200);
    const session = answer.activity.result.stampLoginResult.session;
    expect(await verifySessionJwtSignature(session, kh.server.keyhold.notarizerPublicKey)).toBe(
      true,
    );
    expect(JSON.parse(atob(session.split('.')[1]!))).toMatchObject({
      public_key: key.publicKey,
      user_id: aliceId,
      organization_id: subOrgId,
    });
    expect((await sdkClient(kh.server.url, subOrgId, key).getWhoami({})).userId).toBe(aliceId);

    const before = await activitiesOfSub();
    const again = await stampLogin(key, VERIFICATION_TOKEN, token);
    expect(again.status).toBe(400);
    expect(again.answer.message).toContain('verification token has already been used');
    expect(await activitiesOfSub()).toBe(before);
  });

  it('P256_VERIFICATION_TOKEN: a token bound to another key is refused', async () => {
    const token = await verificationTokenFor(generateP256KeyPair());
    const before = await activitiesOfSub();
    const { status, answer } = await stampLogin(generateP256KeyPair(), VERIFICATION_TOKEN, token);
    expect(status).toBe(400);
    expect(answer.message).toContain('invalid verification token');
    expect(JSON.stringify(answer.details)).toContain('bound to another public key');
    expect(await activitiesOfSub()).toBe(before);
  });

  it('P256_OIDC: an id_token whose nonce binds the key logs in the provider’s user', async () => {
    const key = generateP256KeyPair();
    const token = await op.idToken({ clientId: app, sub: 'alice', nonce: nonceOf(key.publicKey) });
    const { status, answer } = await stampLogin(key, OIDC, token);
    expect(status, JSON.stringify(answer)).toBe(200);
    const session = answer.activity.result.stampLoginResult.session;
    expect(await verifySessionJwtSignature(session, kh.server.keyhold.notarizerPublicKey)).toBe(
      true,
    );
    expect(JSON.parse(atob(session.split('.')[1]!)).user_id).toBe(aliceId);
  });

  it('P256_OIDC: a token bound to another key, or of a subject no user has, is refused', async () => {
    const key = generateP256KeyPair();
    const before = await activitiesOfSub();
    const otherKey = await op.idToken({
      clientId: app,
      sub: 'alice',
      nonce: nonceOf(generateP256KeyPair().publicKey),
    });
    const refused = await stampLogin(key, OIDC, otherKey);
    expect(refused.status).toBe(400);
    expect(refused.answer.message).toContain('invalid OIDC token');
    const stranger = await op.idToken({
      clientId: app,
      sub: 'mallory',
      nonce: nonceOf(key.publicKey),
    });
    expect((await stampLogin(key, OIDC, stranger)).answer.message).toContain('invalid OIDC token');
    expect(await activitiesOfSub()).toBe(before);
  });

  it('authenticates STAMP_LOGIN only, for the attested key only', async () => {
    const key = generateP256KeyPair();
    const token = await op.idToken({ clientId: app, sub: 'alice', nonce: nonceOf(key.publicKey) });
    const wallet = await stampLogin(key, OIDC, token, {
      path: 'create_wallet',
      type: 'ACTIVITY_TYPE_CREATE_WALLET',
      parameters: { walletName: 'w', accounts: [] },
    });
    expect(wallet.status).toBe(403);
    expect(wallet.answer.message).toContain('request not authorized');
    const other = await stampLogin(key, OIDC, token, {
      parameters: { publicKey: generateP256KeyPair().publicKey },
    });
    expect(other.status).toBe(403);
    // A query with an attested stamp is refused too.
    const body = JSON.stringify({ organizationId: subOrgId });
    const whoami = await fetch(`${kh.server.url}/public/v1/query/whoami`, {
      method: 'POST',
      body,
      headers: { 'X-Stamp-Attested': await attestedHeader(key, OIDC, token, body) },
    });
    expect(whoami.status).toBe(403);
  });
});

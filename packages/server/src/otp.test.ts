/**
 * One-time codes end to end, through the published clients and a real SMTP server: the
 * server's notifier is `@keyhold/notifier-smtp` pointed at an `smtp-server` started here, so
 * `@turnkey/sdk-server` runs INIT_OTP → the code read from the mail that arrived →
 * `encryptOtpCodeToBundle` → VERIFY_OTP → `verifyOtpVerificationToken` → OTP_LOGIN (by the
 * parent's key, for the sub-organization), and the session verifies under the
 * `notarizerPublicKey`. Refusals (a wrong, expired, reused or burned code, a token for another
 * key or organization, a client signature over another message, an unreachable mail server)
 * are Status bodies with the catalogue's message and leave nothing stored. Run on memory and
 * on embedded PGlite.
 */
import type { Clock } from '@keyhold/activities';
import { smtpNotifier } from '@keyhold/notifier-smtp';
import { bytesToHex } from '@noble/hashes/utils.js';
import {
  decryptCredentialBundle,
  encryptOtpCodeToBundle,
  generateP256KeyPair,
  getPublicKey,
  verifyOtpVerificationToken,
  verifySessionJwtSignature,
} from '@turnkey/crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The loopback SMTP server of the notifier's tests (test-only code, no package export).
import {
  type ReceivedMail,
  type SmtpMailbox,
  startSmtpMailbox,
} from '../../../adapters/notifier-smtp/src/testing/smtp-mailbox.js';
import { clientSignatureFor } from './__fixtures__/client-signature.js';
import { closeStoreTargets, STORE_TARGETS } from './__fixtures__/store-targets.js';
import {
  rejection,
  sdkClient,
  startTurnkeyServer,
  type TurnkeyServer,
} from './__fixtures__/turnkey-server.js';
import { generateApiKeyPair } from './api-key-signer.js';

/** The code of the last mail sent to `to`. */
function codeSentTo(mailbox: { received: readonly ReceivedMail[] }, to: string): string {
  const mail = mailbox.received.filter((m) => m.to.includes(to)).at(-1);
  const code = mail?.raw.match(/sign-in code is ([0-9A-Z]{6,9})/)?.[1];
  if (!code) throw new Error(`no code mailed to ${to}`);
  return code;
}

function movableClock(): Clock & { advance(seconds: number): void } {
  let offset = 0;
  return {
    now: () => Date.now() + offset,
    advance(seconds) {
      offset += seconds * 1000;
    },
  };
}

const loginMessage = (publicKey: string, tokenId: string) =>
  JSON.stringify({ login: { publicKey }, tokenId, type: 'USAGE_TYPE_LOGIN' });

afterAll(closeStoreTargets);

const tokenIdOf = (token: string) =>
  JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).id as string;

describe.each(STORE_TARGETS)('one-time codes by email through SMTP on %s', (_, openStore) => {
  let kh: TurnkeyServer;
  let mailbox: SmtpMailbox;
  const clock = movableClock();
  let subOrgId: string;
  let endUserId: string;
  let tls: string;
  const email = 'alice@example.com';

  beforeAll(async () => {
    mailbox = await startSmtpMailbox({ username: 'keyhold', password: 's3cret' });
    kh = await startTurnkeyServer({
      ...(await openStore()),
      clock,
      notifier: smtpNotifier({ url: mailbox.url, from: 'login@keyhold.test', timeoutMs: 2000 }),
    });
    tls = kh.server.keyhold.tlsFetcherSignPublicKey;
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
          oauthProviders: [],
        },
      ],
      rootQuorumThreshold: 1,
    });
    subOrgId = created.subOrganizationId;
    endUserId = created.rootUserIds![0]!;
  });
  afterAll(async () => {
    await kh?.server.close();
    await mailbox?.close();
  });

  /** INIT_OTP then VERIFY_OTP V2 for `contact`, bound to `key`; answers the token. */
  async function verifiedToken(key: { publicKey: string }, contact = email) {
    const { otpId, otpEncryptionTargetBundle } = await kh.client.initOtp({
      otpType: 'OTP_TYPE_EMAIL',
      contact,
      appName: 'Acme Wallet',
    });
    const encryptedOtpBundle = await encryptOtpCodeToBundle(
      codeSentTo(mailbox, contact),
      otpEncryptionTargetBundle,
      key.publicKey,
      tls,
    );
    const { verificationToken } = await kh.client.verifyOtp({ otpId, encryptedOtpBundle });
    return verificationToken;
  }

  it('publishes tlsFetcherSignPublicKey at /keyhold/v1/public_keys', async () => {
    const document = (await (await fetch(`${kh.server.url}/keyhold/v1/public_keys`)).json()) as {
      tlsFetcherSignPublicKey: string;
      signerPublicKey: string;
    };
    expect(document.tlsFetcherSignPublicKey).toBe(tls);
    expect(tls).toMatch(/^04[0-9a-f]{128}$/);
    expect(tls).not.toBe(document.signerPublicKey);
  });

  it('INIT_OTP → mail → encryptOtpCodeToBundle → VERIFY_OTP → OTP_LOGIN: a session of the sub-organization user', async () => {
    const client = generateP256KeyPair();
    const sent = mailbox.received.length;
    const { otpId, otpEncryptionTargetBundle } = await kh.client.initOtp({
      otpType: 'OTP_TYPE_EMAIL',
      contact: email,
      appName: 'Acme Wallet',
      otpLength: 6,
      alphanumeric: false,
      sendFromEmailSenderName: 'Acme',
      replyToEmailAddress: 'help@acme.test',
      emailCustomization: { logoUrl: 'https://acme.test/logo.png' },
    });
    expect(mailbox.received).toHaveLength(sent + 1);
    const mail = mailbox.received.at(-1)!;
    expect(mail.to).toEqual([email]);
    expect(mail.from).toBe('login@keyhold.test');
    expect(mail.raw).toContain('Subject: Sign in to Acme Wallet');
    expect(mail.raw).toMatch(/From: Acme <login@keyhold\.test>/);
    expect(mail.raw).toContain('Reply-To: help@acme.test');
    expect(mail.raw).toContain('https://acme.test/logo.png');
    const code = codeSentTo(mailbox, email);
    expect(code).toMatch(/^[0-9]{6}$/);

    const encryptedOtpBundle = await encryptOtpCodeToBundle(
      code,
      otpEncryptionTargetBundle,
      client.publicKey,
      tls,
    );
    const { verificationToken } = await kh.client.verifyOtp({ otpId, encryptedOtpBundle });
    const claims = await verifyOtpVerificationToken(verificationToken, tls);
    expect(claims).toMatchObject({
      id: otpId,
      contact: email,
      verification_type: 'OTP_TYPE_EMAIL',
      organization_id: kh.organizationId,
      public_key: client.publicKey,
    });

    const { session } = await kh.client.otpLogin({
      organizationId: subOrgId,
      verificationToken,
      publicKey: client.publicKey,
      clientSignature: clientSignatureFor(client, loginMessage(client.publicKey, otpId)),
    });
    expect(await verifySessionJwtSignature(session, kh.server.keyhold.notarizerPublicKey)).toBe(
      true,
    );
    const jwt = JSON.parse(atob(session.split('.')[1]!));
    expect(jwt).toMatchObject({
      public_key: client.publicKey,
      user_id: endUserId,
      organization_id: subOrgId,
      session_type: 'SESSION_TYPE_READ_WRITE',
    });
    // The session key stamps requests in the sub-organization.
    const asSession = sdkClient(kh.server.url, subOrgId, client);
    expect((await asSession.getWhoami({})).userId).toBe(endUserId);
  });

  it('a code is usable once; a token once', async () => {
    const client = generateP256KeyPair();
    const { otpId, otpEncryptionTargetBundle } = await kh.client.initOtp({
      otpType: 'OTP_TYPE_EMAIL',
      contact: 'bob@example.com',
      appName: 'Acme',
    });
    const bundle = await encryptOtpCodeToBundle(
      codeSentTo(mailbox, 'bob@example.com'),
      otpEncryptionTargetBundle,
      client.publicKey,
      tls,
    );
    await kh.client.verifyOtp({ otpId, encryptedOtpBundle: bundle });
    const again = await rejection(kh.client.verifyOtp({ otpId, encryptedOtpBundle: bundle }));
    expect(again.message).toContain('OTP has already been used');

    const token = await verifiedToken(client);
    const login = () =>
      kh.client.otpLogin({
        organizationId: subOrgId,
        verificationToken: token,
        publicKey: client.publicKey,
        clientSignature: clientSignatureFor(
          client,
          loginMessage(client.publicKey, tokenIdOf(token)),
        ),
      });
    await login();
    expect((await rejection(login())).message).toContain(
      'verification token has already been used',
    );
  });

  it('wrong codes are refused with "Invalid OTP code" and burn the code after three', async () => {
    const client = generateP256KeyPair();
    const contact = 'carol@example.com';
    const { otpId, otpEncryptionTargetBundle } = await kh.client.initOtp({
      otpType: 'OTP_TYPE_EMAIL',
      contact,
      appName: 'Acme',
      otpLength: 6,
      alphanumeric: false,
    });
    const right = codeSentTo(mailbox, contact);
    const wrong = right === '000000' ? '111111' : '000000';
    const bundle = (code: string) =>
      encryptOtpCodeToBundle(code, otpEncryptionTargetBundle, client.publicKey, tls);
    for (let i = 0; i < 3; i++) {
      const refused = await rejection(
        kh.client.verifyOtp({ otpId, encryptedOtpBundle: await bundle(wrong) }),
      );
      expect(refused.message).toContain('Invalid OTP code');
      expect(refused.code).toBe(3); // INVALID_ARGUMENT: HTTP 400
    }
    const burned = await rejection(
      kh.client.verifyOtp({ otpId, encryptedOtpBundle: await bundle(right) }),
    );
    expect(burned.message).toContain('OTP locked after too many failed attempts');
    // Refused requests leave no activity.
    const { activities } = await kh.client.getActivities({});
    expect(activities.filter((a) => a.status === 'ACTIVITY_STATUS_FAILED')).toEqual([]);
  });

  it('concurrent wrong tries cannot pass the limit together', async () => {
    const client = generateP256KeyPair();
    const contact = 'erin@example.com';
    const { otpId, otpEncryptionTargetBundle } = await kh.client.initOtp({
      otpType: 'OTP_TYPE_EMAIL',
      contact,
      appName: 'Acme',
      otpLength: 6,
      alphanumeric: false,
    });
    const right = codeSentTo(mailbox, contact);
    const wrong = right === '000000' ? '111111' : '000000';
    const bundle = await encryptOtpCodeToBundle(
      wrong,
      otpEncryptionTargetBundle,
      client.publicKey,
      tls,
    );
    const answers = await Promise.all(
      Array.from({ length: 8 }, () =>
        rejection(kh.client.verifyOtp({ otpId, encryptedOtpBundle: bundle })),
      ),
    );
    const messages = answers.map((a) => a.message);
    expect(messages.filter((m) => m.includes('Invalid OTP code'))).toHaveLength(3);
    expect(messages.filter((m) => m.includes('OTP locked'))).toHaveLength(5);
  });

  it('an expired code is refused', async () => {
    const client = generateP256KeyPair();
    const contact = 'dave@example.com';
    const { otpId, otpEncryptionTargetBundle } = await kh.client.initOtp({
      otpType: 'OTP_TYPE_EMAIL',
      contact,
      appName: 'Acme',
      expirationSeconds: '60',
    });
    const bundle = await encryptOtpCodeToBundle(
      codeSentTo(mailbox, contact),
      otpEncryptionTargetBundle,
      client.publicKey,
      tls,
    );
    clock.advance(61);
    try {
      const refused = await rejection(kh.client.verifyOtp({ otpId, encryptedOtpBundle: bundle }));
      expect(refused.message).toContain('OTP has expired');
    } finally {
      clock.advance(-61);
    }
  });

  it('OTP_LOGIN refuses a token bound to another key, another contact, another organization, or a signature over another message', async () => {
    const client = generateP256KeyPair();
    const other = generateP256KeyPair();
    const token = await verifiedToken(client);
    const tokenId = tokenIdOf(token);
    const keysBefore = (await kh.client.getApiKeys({ organizationId: subOrgId, userId: endUserId }))
      .apiKeys.length;

    // Signed by a key the token does not bind.
    const byOther = await rejection(
      kh.client.otpLogin({
        organizationId: subOrgId,
        verificationToken: token,
        publicKey: other.publicKey,
        clientSignature: clientSignatureFor(other, loginMessage(other.publicKey, tokenId)),
      }),
    );
    expect(byOther.message).toContain('invalid client signature');
    // A signature over another message (another session key).
    const otherMessage = await rejection(
      kh.client.otpLogin({
        organizationId: subOrgId,
        verificationToken: token,
        publicKey: client.publicKey,
        clientSignature: clientSignatureFor(client, loginMessage(other.publicKey, tokenId)),
      }),
    );
    expect(otherMessage.message).toContain('invalid client signature');
    // A tampered token.
    const [h, payload, s] = token.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...claims, contact: 'eve@example.com' })).toString('base64url')}.${s}`;
    const tampered = await rejection(
      kh.client.otpLogin({
        organizationId: subOrgId,
        verificationToken: forged,
        publicKey: client.publicKey,
        clientSignature: clientSignatureFor(client, loginMessage(client.publicKey, tokenId)),
      }),
    );
    expect(tampered.message).toContain('invalid verification token');
    // A token for a contact without a user in the organization.
    const stranger = generateP256KeyPair();
    const strangerToken = await verifiedToken(stranger, 'nobody@example.com');
    const noUser = await rejection(
      kh.client.otpLogin({
        organizationId: subOrgId,
        verificationToken: strangerToken,
        publicKey: stranger.publicKey,
        clientSignature: clientSignatureFor(
          stranger,
          loginMessage(stranger.publicKey, tokenIdOf(strangerToken)),
        ),
      }),
    );
    expect(noUser.message).toContain('user not found');
    // A token of another root organization.
    const elsewhere = await startTurnkeyServer({
      notifier: smtpNotifier({ url: mailbox.url, from: 'login@keyhold.test' }),
    });
    try {
      const foreign = await elsewhere.client.initOtp({
        otpType: 'OTP_TYPE_EMAIL',
        contact: email,
        appName: 'Other',
      });
      const foreignBundle = await encryptOtpCodeToBundle(
        codeSentTo(mailbox, email),
        foreign.otpEncryptionTargetBundle,
        client.publicKey,
        elsewhere.server.keyhold.tlsFetcherSignPublicKey,
      );
      const { verificationToken } = await elsewhere.client.verifyOtp({
        otpId: foreign.otpId,
        encryptedOtpBundle: foreignBundle,
      });
      const foreignLogin = await rejection(
        kh.client.otpLogin({
          organizationId: subOrgId,
          verificationToken,
          publicKey: client.publicKey,
          clientSignature: clientSignatureFor(
            client,
            loginMessage(client.publicKey, tokenIdOf(verificationToken)),
          ),
        }),
      );
      expect(foreignLogin.message).toContain('invalid verification token');
    } finally {
      await elsewhere.server.close();
    }
    const keysAfter = (await kh.client.getApiKeys({ organizationId: subOrgId, userId: endUserId }))
      .apiKeys.length;
    expect(keysAfter).toBe(keysBefore);
  });

  it('limits codes per contact: the fourth within three minutes is refused', async () => {
    const contact = 'frank@example.com';
    for (let i = 0; i < 3; i++) {
      await kh.client.initOtp({ otpType: 'OTP_TYPE_EMAIL', contact, appName: 'Acme' });
    }
    const refused = await rejection(
      kh.client.initOtp({ otpType: 'OTP_TYPE_EMAIL', contact, appName: 'Acme' }),
    );
    expect(refused.message).toContain('Max number of OTPs have been initiated');
  });

  it('refuses bad parameters with the catalogue message, storing nothing', async () => {
    const base = { otpType: 'OTP_TYPE_EMAIL' as const, contact: 'gina@example.com', appName: 'A' };
    expect((await rejection(kh.client.initOtp({ ...base, otpLength: 5 }))).message).toContain(
      'invalid OTP length',
    );
    expect(
      (await rejection(kh.client.initOtp({ ...base, expirationSeconds: '601' }))).message,
    ).toContain('invalid OTP expiration');
    expect(
      (await rejection(kh.client.initOtp({ ...base, contact: 'not-an-address' }))).message,
    ).toContain('invalid contact');
    expect(
      (
        await rejection(
          kh.client.initOtp({ ...base, emailCustomization: { templateVariables: '{bad' } }),
        )
      ).message,
    ).toContain('failed to unmarshal template variables');
    expect(mailbox.received.some((m) => m.to.includes('gina@example.com'))).toBe(false);
  });

  it('an unreachable mail server answers 503 and stores no code', async () => {
    const down = await startTurnkeyServer({
      notifier: smtpNotifier({
        url: 'smtp://u:p@127.0.0.1:1',
        from: 'x@keyhold.test',
        timeoutMs: 1000,
      }),
    });
    try {
      const refused = await rejection(
        down.client.initOtp({ otpType: 'OTP_TYPE_EMAIL', contact: email, appName: 'A' }),
      );
      expect(refused.message).toContain('service unavailable');
      expect(refused.code).toBe(14); // UNAVAILABLE: HTTP 503 with Retry-After
      const { activities } = await down.client.getActivities({});
      expect(activities.map((a) => a.type)).not.toContain('ACTIVITY_TYPE_INIT_OTP_V3');
    } finally {
      await down.server.close();
    }
  });

  it('INIT_OTP_AUTH → mail → OTP_AUTH (legacy, by the parent for the sub-organization): an API key in a credential bundle', async () => {
    const target = generateP256KeyPair();
    const sent = mailbox.received.length;
    const { otpId } = await kh.client.initOtpAuth({
      organizationId: subOrgId,
      otpType: 'OTP_TYPE_EMAIL',
      contact: email,
      appName: 'Acme Legacy',
    });
    expect(mailbox.received).toHaveLength(sent + 1);
    expect(mailbox.received.at(-1)!.raw).toContain('Subject: Sign in to Acme Legacy');
    const wrong = await rejection(
      kh.client.otpAuth({
        organizationId: subOrgId,
        otpId,
        otpCode: 'WRONG0000',
        targetPublicKey: target.publicKeyUncompressed,
      }),
    );
    expect(wrong.message).toContain('Invalid OTP code');
    const { userId, apiKeyId, credentialBundle } = await kh.client.otpAuth({
      organizationId: subOrgId,
      otpId,
      otpCode: codeSentTo(mailbox, email),
      targetPublicKey: target.publicKeyUncompressed,
    });
    expect(userId).toBe(endUserId);
    const privateKey = decryptCredentialBundle(credentialBundle!, target.privateKey);
    const key = { privateKey, publicKey: bytesToHex(getPublicKey(privateKey, true)) };
    const asKey = sdkClient(kh.server.url, subOrgId, key);
    expect((await asKey.getWhoami({})).userId).toBe(endUserId);
    const { apiKey } = await asKey.getApiKey({ apiKeyId: apiKeyId! });
    expect(apiKey.credential.type).toBe('CREDENTIAL_TYPE_OTP_AUTH_KEY_P256');
  });

  it('INIT_OTP_AUTH answers alike for a contact no user has, and sends nothing', async () => {
    const sent = mailbox.received.length;
    const { otpId } = await kh.client.initOtpAuth({
      organizationId: subOrgId,
      otpType: 'OTP_TYPE_EMAIL',
      contact: 'stranger@example.com',
      appName: 'Acme',
    });
    expect(otpId).toMatch(/^[0-9a-f-]{36}$/);
    expect(mailbox.received).toHaveLength(sent);
    const refused = await rejection(
      kh.client.otpAuth({
        organizationId: subOrgId,
        otpId,
        otpCode: '000000000',
        targetPublicKey: generateP256KeyPair().publicKeyUncompressed,
      }),
    );
    expect(refused.message).toContain('Invalid OTP code');
  });
});

/**
 * Email auth, recovery, invitations, verified contacts and sign-up end to end, through the
 * published clients and a real SMTP server (`smtp-server`, as in `otp.test.ts`):
 *
 * - EMAIL_AUTH (by the parent's key, for a sub-organization's user): the credential bundle
 *   arrives only in the mail, through the magic-link template with the request's
 *   customization; `decryptCredentialBundle` opens it and the key inside stamps an activity
 *   that succeeds, until it expires.
 * - INIT_USER_EMAIL_RECOVERY → mail → RECOVER_USER stamped with the recovery key adds a passkey,
 *   which then stamps; the recovery key is spent.
 * - CREATE_INVITATIONS → mail → ACCEPT_INVITATION V2 stamped with the mailed invitation key adds
 *   the invitee's passkey; DELETE_INVITATION revokes.
 * - UPDATE_USER_EMAIL with a verification token; sign-up by CREATE_SUB_ORGANIZATION with a
 *   verification token and client signature; `list_verified_suborgs`.
 *
 * Bad input (an unknown address, another organization, another user, a spent, expired or
 * foreign credential or token, a client signature over another message, an unreachable mail
 * server) is a Status body with the catalogue's message, and nothing is stored. Run on memory
 * and on embedded PGlite.
 */
import { type Clock, type NotifierMessage, notifierByChannel } from '@keyhold/activities';
import { SoftwarePasskey } from '@keyhold/conformance';
import { smtpNotifier } from '@keyhold/notifier-smtp';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import {
  decryptCredentialBundle,
  encryptOtpCodeToBundle,
  generateP256KeyPair,
  getPublicKey,
} from '@turnkey/crypto';
import { TurnkeyServerClient } from '@turnkey/sdk-server';
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
  type SdkClient,
  sdkClient,
  startTurnkeyServer,
  TEST_POLLER,
  type TurnkeyServer,
} from './__fixtures__/turnkey-server.js';
import { generateApiKeyPair } from './api-key-signer.js';

afterAll(closeStoreTargets);

const ORIGIN = 'http://localhost:3000';
const passkeyOf = () =>
  new SoftwarePasskey({ algorithm: 'ES256', rpId: 'localhost', origin: ORIGIN });

const ETH_ACCOUNT = {
  curve: 'CURVE_SECP256K1',
  pathFormat: 'PATH_FORMAT_BIP32',
  path: "m/44'/60'/0'/0/0",
  addressFormat: 'ADDRESS_FORMAT_ETHEREUM',
} as const;

/** The text of a mail as sent: quoted-printable soft breaks and escapes undone. */
function mailText(mail: ReceivedMail): string {
  return mail.raw
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

/** The one new mail since `before`, to `to`. */
function newMailTo(mailbox: SmtpMailbox, before: number, to: string): ReceivedMail {
  const mails = mailbox.received.slice(before);
  expect(mails).toHaveLength(1);
  // The SMTP server lower-cases the domain.
  expect(mails[0]!.to.map((a) => a.toLowerCase())).toEqual([to.toLowerCase()]);
  return mails[0]!;
}

/** The value after `label: ` in a mail's text. */
function mailed(mail: ReceivedMail, label: string): string {
  const value = mailText(mail).match(new RegExp(`${label}: ([0-9A-Za-z-]+)`))?.[1];
  if (!value) throw new Error(`no ${label} in the mail`);
  return value;
}

/** The API key pair a credential bundle carries, opened with the target's private key. */
function keyFromBundle(bundle: string, target: { privateKey: string }) {
  const privateKey = decryptCredentialBundle(bundle, target.privateKey);
  const publicKey = bytesToHex(getPublicKey(hexToBytes(privateKey), true));
  return { privateKey, publicKey };
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

/** A body posted as is by the published client (stamped), for what it has no method for. */
function post<T>(client: SdkClient, path: string, body: unknown): Promise<T> {
  const { request } = client as unknown as {
    request: (path: string, body: unknown) => Promise<T>;
  };
  return request.call(client, path, body);
}

describe.each(STORE_TARGETS)(
  'email auth, recovery and invitations through SMTP on %s',
  (_, openStore) => {
    let kh: TurnkeyServer;
    let mailbox: SmtpMailbox;
    const clock = movableClock();
    let subOrgId: string;
    let aliceId: string;
    let bobId: string;
    let alice: SdkClient;
    const aliceKey = generateApiKeyPair();
    const email = 'alice@example.com';
    const texts: NotifierMessage[] = [];

    beforeAll(async () => {
      mailbox = await startSmtpMailbox({ username: 'keyhold', password: 's3cret' });
      kh = await startTurnkeyServer({
        ...(await openStore()),
        clock,
        // Email through the SMTP server; SMS kept as sent (the SMS gateway adapter has its own tests).
        notifier: notifierByChannel({
          email: smtpNotifier({ url: mailbox.url, from: 'login@keyhold.test', timeoutMs: 2000 }),
          sms: { send: async (message) => void texts.push(message) },
        }),
      });
      const created = await kh.client.createSubOrganization({
        subOrganizationName: 'end user',
        rootUsers: [
          {
            userName: 'alice',
            userEmail: 'Alice@Example.com',
            apiKeys: [
              {
                apiKeyName: 'device',
                publicKey: aliceKey.publicKey,
                curveType: 'API_KEY_CURVE_P256',
              },
            ],
            authenticators: [],
            oauthProviders: [],
          },
          {
            userName: 'bob',
            userEmail: 'bob@example.com',
            apiKeys: [],
            authenticators: [],
            oauthProviders: [],
          },
        ],
        rootQuorumThreshold: 1,
      });
      subOrgId = created.subOrganizationId;
      [aliceId, bobId] = created.rootUserIds as [string, string];
      alice = sdkClient(kh.server.url, subOrgId, aliceKey);
    });
    afterAll(async () => {
      await kh?.server.close();
      await mailbox?.close();
    });

    /** The types of the activities stored in `organizationId`. */
    async function activityTypes(organizationId: string): Promise<string[]> {
      const { activities } = await kh.client.getActivities({ organizationId });
      return activities.map((a) => a.type);
    }

    it('EMAIL_AUTH V3 (by the parent for the sub-organization): the bundle only by mail, through the magic link; its key stamps', async () => {
      const target = generateP256KeyPair();
      const before = mailbox.received.length;
      const result = await kh.client.emailAuth({
        organizationId: subOrgId,
        email: 'ALICE@example.com',
        targetPublicKey: target.publicKeyUncompressed,
        emailCustomization: {
          appName: 'Acme Wallet',
          logoUrl: 'https://acme.test/logo.png',
          magicLinkTemplate: 'https://wallet.acme.test/auth?bundle=%s',
          templateVariables: JSON.stringify({ greeting: 'Hello <Alice>' }),
        },
        sendFromEmailAddress: 'noreply@acme.test',
        sendFromEmailSenderName: 'Acme Team',
        replyToEmailAddress: 'help@acme.test',
      });
      expect(result.userId).toBe(aliceId);
      expect(Object.keys(result).sort()).toEqual(['activity', 'apiKeyId', 'userId']);
      expect(JSON.stringify(result.activity.result)).not.toContain('credentialBundle');

      const mail = newMailTo(mailbox, before, 'Alice@Example.com');
      const text = mailText(mail);
      expect(mail.from).toBe('noreply@acme.test');
      expect(text).toContain('Subject: Sign in to Acme Wallet');
      expect(text).toMatch(/From: Acme Team <noreply@acme\.test>/);
      expect(text).toContain('Reply-To: help@acme.test');
      expect(text).toContain('https://acme.test/logo.png');
      expect(text).toContain('Hello &#60;Alice&#62;');
      const link = text.match(/https:\/\/wallet\.acme\.test\/auth\?bundle=([1-9A-HJ-NP-Za-km-z]+)/);
      expect(link).not.toBeNull();
      const bundle = link![1]!;
      expect(mailed(mail, 'Credential bundle')).toBe(bundle);

      const key = keyFromBundle(bundle, target);
      const { apiKeys } = await alice.getApiKeys({ userId: aliceId });
      const stored = apiKeys.find((k) => k.apiKeyId === result.apiKeyId)!;
      expect(stored.credential).toMatchObject({
        publicKey: key.publicKey,
        type: 'CREDENTIAL_TYPE_EMAIL_AUTH_KEY_P256',
      });
      expect(stored.expirationSeconds).toBe('900');
      const session = sdkClient(kh.server.url, subOrgId, key);
      const { walletId } = await session.createWallet({
        walletName: 'by email',
        accounts: [ETH_ACCOUNT],
      });
      expect(walletId).toMatch(/^[0-9a-f-]{36}$/);

      // The stored activity holds neither the bundle nor the key.
      const { activity } = await kh.client.getActivity({
        organizationId: subOrgId,
        activityId: result.activity.id,
      });
      expect(JSON.stringify(activity)).not.toContain(bundle);
      expect(JSON.stringify(activity)).not.toContain(key.privateKey);

      // Past its expiry the key no longer stamps.
      clock.advance(901);
      try {
        const expired = await rejection(session.getWhoami({}));
        expect(expired.message).toContain('expired api key');
      } finally {
        clock.advance(-901);
      }
    });

    it('EMAIL_AUTH V1 without customization, and invalidateExisting replaces the earlier email-auth key', async () => {
      const target = generateP256KeyPair();
      const first = await kh.client.emailAuth({
        organizationId: subOrgId,
        email,
        targetPublicKey: target.publicKey,
        emailCustomization: { appName: 'Acme' },
      });
      const before = mailbox.received.length;
      const body = {
        type: 'ACTIVITY_TYPE_EMAIL_AUTH',
        timestampMs: String(Date.now()),
        organizationId: subOrgId,
        parameters: {
          email,
          targetPublicKey: target.publicKey,
          apiKeyName: 'magic',
          expirationSeconds: '60',
          invalidateExisting: true,
        },
      };
      const answer = await post<{
        activity: { status: string; result: Record<string, { apiKeyId: string }> };
      }>(kh.client, '/public/v1/submit/email_auth', body);
      expect(answer.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
      const mail = newMailTo(mailbox, before, 'Alice@Example.com');
      expect(mailText(mail)).toContain('Subject: Sign in to Keyhold');
      const key = keyFromBundle(mailed(mail, 'Credential bundle'), target);
      const { apiKeys } = await alice.getApiKeys({ userId: aliceId });
      const emailKeys = apiKeys.filter(
        (k) => k.credential.type === 'CREDENTIAL_TYPE_EMAIL_AUTH_KEY_P256',
      );
      expect(emailKeys.map((k) => k.apiKeyId)).not.toContain(first.apiKeyId);
      expect(emailKeys.map((k) => [k.apiKeyName, k.credential.publicKey])).toEqual([
        ['magic', key.publicKey],
      ]);
    });

    it('refuses an unknown address, another organization and bad parameters, mailing and storing nothing', async () => {
      const target = generateP256KeyPair();
      const before = mailbox.received.length;
      const typesBefore = await activityTypes(subOrgId);
      const base = {
        organizationId: subOrgId,
        targetPublicKey: target.publicKey,
        emailCustomization: { appName: 'Acme' },
      };
      const unknown = await rejection(
        kh.client.emailAuth({ ...base, email: 'nobody@example.com' }),
      );
      expect(unknown.message).toContain('user not found');
      expect(
        (await rejection(kh.client.emailAuth({ ...base, email: 'not-an-address' }))).message,
      ).toContain('invalid contact');
      expect(
        (
          await rejection(
            kh.client.emailAuth({
              ...base,
              email,
              emailCustomization: { appName: 'Acme', templateVariables: '{bad' },
            }),
          )
        ).message,
      ).toContain('failed to unmarshal template variables');
      expect(
        (
          await rejection(
            kh.client.emailAuth({ ...base, email, targetPublicKey: `02${'ff'.repeat(32)}` }),
          )
        ).message,
      ).toContain('invalid public key');
      // A sub-organization's key is nobody in a sibling organization.
      const other = await kh.client.createSubOrganization({
        subOrganizationName: 'other',
        rootUsers: [
          { userName: 'x', userEmail: email, apiKeys: [], authenticators: [], oauthProviders: [] },
        ],
        rootQuorumThreshold: 1,
      });
      const mismatch = await rejection(
        alice.emailAuth({ ...base, organizationId: other.subOrganizationId, email }),
      );
      expect(mismatch.message).toContain('could not find public key');
      // The parent's users run only the parent-run kinds in a sub-organization.
      const notParentRun = await rejection(
        kh.client.updateUserEmail({ organizationId: subOrgId, userId: aliceId, userEmail: email }),
      );
      expect(notParentRun.message).toContain('organization mismatch');
      // Nor in the parent.
      const upward = await rejection(
        alice.emailAuth({ ...base, organizationId: kh.organizationId, email }),
      );
      expect(upward.message).toMatch(/organization mismatch|could not find public key/);
      expect(mailbox.received.length).toBe(before);
      expect(await activityTypes(subOrgId)).toEqual(typesBefore);
    });

    it('a sub-organization created with disableEmailAuth / disableEmailRecovery refuses them, mailing nothing', async () => {
      const { subOrganizationId } = await kh.client.createSubOrganization({
        subOrganizationName: 'no email',
        rootUsers: [
          {
            userName: 'hank',
            userEmail: 'hank@example.com',
            apiKeys: [],
            authenticators: [],
            oauthProviders: [],
          },
        ],
        rootQuorumThreshold: 1,
        disableEmailAuth: true,
        disableEmailRecovery: true,
      });
      const before = mailbox.received.length;
      const request = {
        organizationId: subOrganizationId,
        email: 'hank@example.com',
        targetPublicKey: generateP256KeyPair().publicKey,
        emailCustomization: { appName: 'Acme' },
      };
      expect((await rejection(kh.client.emailAuth(request))).message).toContain(
        'email auth is disabled for this organization',
      );
      expect((await rejection(kh.client.initUserEmailRecovery(request))).message).toContain(
        'email recovery is disabled for this organization',
      );
      expect(mailbox.received.length).toBe(before);
      expect(await activityTypes(subOrganizationId)).toEqual([]);
    });

    it('an unreachable mail server answers 503 and stores no key', async () => {
      const down = await startTurnkeyServer({
        notifier: smtpNotifier({
          url: 'smtp://u:p@127.0.0.1:1',
          from: 'x@keyhold.test',
          timeoutMs: 1000,
        }),
      });
      try {
        const { userId } = await down.client.updateUserEmail({
          userId: down.userId,
          userEmail: 'root@example.com',
        });
        const refused = await rejection(
          down.client.emailAuth({
            email: 'root@example.com',
            targetPublicKey: generateP256KeyPair().publicKey,
            emailCustomization: { appName: 'A' },
          }),
        );
        expect(refused.message).toContain('service unavailable');
        expect(refused.code).toBe(14);
        const { apiKeys } = await down.client.getApiKeys({ userId });
        expect(apiKeys.map((k) => k.credential.type)).toEqual(['CREDENTIAL_TYPE_API_KEY_P256']);
        const { activities } = await down.client.getActivities({});
        expect(activities.map((a) => a.type)).not.toContain('ACTIVITY_TYPE_EMAIL_AUTH_V3');
      } finally {
        await down.server.close();
      }
    });

    it('INIT_USER_EMAIL_RECOVERY → mail → RECOVER_USER with the recovery key: the new passkey stamps', async () => {
      const target = generateP256KeyPair();
      const before = mailbox.received.length;
      const { userId } = await kh.client.initUserEmailRecovery({
        organizationId: subOrgId,
        email: 'bob@example.com',
        targetPublicKey: target.publicKey,
        emailCustomization: {
          appName: 'Acme Wallet',
          magicLinkTemplate: 'https://acme.test/recover/%s',
        },
      });
      expect(userId).toBe(bobId);
      const mail = newMailTo(mailbox, before, 'bob@example.com');
      expect(mailText(mail)).toContain('Subject: Recover your Acme Wallet account');
      expect(mailText(mail)).toContain('https://acme.test/recover/');
      const recoveryKey = keyFromBundle(mailed(mail, 'Recovery bundle'), target);
      const recovering = sdkClient(kh.server.url, subOrgId, recoveryKey);

      // The recovery key recovers, nothing else.
      expect(
        (await rejection(recovering.createWallet({ walletName: 'w', accounts: [ETH_ACCOUNT] })))
          .message,
      ).toContain('request not authorized');
      const passkey = passkeyOf();
      // Another user's recovery, or recovery by another key, is refused and stores nothing.
      const wrongUser = await rejection(
        recovering.recoverUser({ userId: aliceId, authenticator: passkey.register('laptop') }),
      );
      expect(wrongUser.message).toContain(
        'request must be stamped by the credential mailed for this user',
      );
      const wrongKey = await rejection(
        alice.recoverUser({ userId: aliceId, authenticator: passkey.register('laptop') }),
      );
      expect(wrongKey.message).toContain(
        'request must be stamped by the credential mailed for this user',
      );

      const { authenticatorId } = await recovering.recoverUser({
        userId: bobId,
        authenticator: passkey.register('new laptop'),
      });
      expect(authenticatorId).toHaveLength(1);
      const bob = new TurnkeyServerClient({
        apiBaseUrl: kh.server.url,
        organizationId: subOrgId,
        stamper: passkey,
        activityPoller: TEST_POLLER,
      });
      const { walletId } = await bob.createWallet({
        walletName: 'recovered',
        accounts: [ETH_ACCOUNT],
      });
      expect(walletId).toBeTruthy();
      // The recovery key is spent.
      const { apiKeys } = await alice.getApiKeys({ userId: bobId });
      expect(apiKeys.map((k) => k.credential.type)).not.toContain(
        'CREDENTIAL_TYPE_RECOVER_USER_KEY_P256',
      );
      const again = await rejection(
        recovering.recoverUser({ userId: bobId, authenticator: passkeyOf().register('again') }),
      );
      expect(again.message).toContain('could not find public key');
      const { authenticators } = await alice.getAuthenticators({ userId: bobId });
      expect(authenticators).toHaveLength(1);
    });

    it('CREATE_INVITATIONS → mail → ACCEPT_INVITATION V2 with the invitation key and a passkey; DELETE_INVITATION revokes', async () => {
      const before = mailbox.received.length;
      const { invitationIds } = await kh.client.createInvitations({
        invitations: [
          {
            receiverUserName: 'carol',
            receiverUserEmail: 'carol@example.com',
            receiverUserTags: [],
            accessType: 'ACCESS_TYPE_WEB',
            senderUserId: kh.userId,
          },
          {
            receiverUserName: 'dan',
            receiverUserEmail: 'dan@example.com',
            receiverUserTags: [],
            accessType: 'ACCESS_TYPE_ALL',
            senderUserId: kh.userId,
          },
        ],
      });
      expect(invitationIds).toHaveLength(2);
      expect(mailbox.received.length).toBe(before + 2);
      const [carolMail, danMail] = mailbox.received.slice(before) as [ReceivedMail, ReceivedMail];
      expect(carolMail.to).toEqual(['carol@example.com']);
      expect(mailed(carolMail, 'Invitation id')).toBe(invitationIds[0]);
      const carolId = mailed(carolMail, 'User id');
      const carolKeyHex = mailed(carolMail, 'Invitation key');
      const carolKey = {
        privateKey: carolKeyHex,
        publicKey: bytesToHex(getPublicKey(hexToBytes(carolKeyHex), true)),
      };
      const invitee = sdkClient(kh.server.url, kh.organizationId, carolKey);

      const organizationData = async () =>
        (
          await post<{
            organizationData: { invitations: { receiverEmail: string; status: string }[] };
          }>(kh.client, '/public/v1/query/get_organization', { organizationId: kh.organizationId })
        ).organizationData;
      expect(
        (await organizationData()).invitations.map((i) => [i.receiverEmail, i.status]),
      ).toEqual([
        ['carol@example.com', 'INVITATION_STATUS_CREATED'],
        ['dan@example.com', 'INVITATION_STATUS_CREATED'],
      ]);
      // The invitation key does nothing but accept: not even add a key to its own user.
      expect(
        (await rejection(invitee.createWallet({ walletName: 'w', accounts: [ETH_ACCOUNT] })))
          .message,
      ).toContain('request not authorized');
      const sneaky = {
        apiKeyName: 'sneaky',
        publicKey: generateApiKeyPair().publicKey,
        curveType: 'API_KEY_CURVE_P256' as const,
      };
      expect(
        (await rejection(invitee.createApiKeys({ userId: carolId, apiKeys: [sneaky] }))).message,
      ).toContain('request not authorized');

      const passkey = passkeyOf();
      const accept = (invitationId: string, userId: string, client = invitee) =>
        post<{ activity: { status: string; result: { acceptInvitationResult: unknown } } }>(
          client,
          '/public/v1/submit/accept_invitation',
          {
            type: 'ACTIVITY_TYPE_ACCEPT_INVITATION_V2',
            timestampMs: String(Date.now()),
            organizationId: kh.organizationId,
            parameters: { invitationId, userId, authenticator: passkey.register('carol laptop') },
          },
        );
      // Someone else's invitation, or with another key: refused.
      expect((await rejection(accept(invitationIds[1]!, carolId))).message).toContain(
        'request must be stamped by the credential mailed for this user',
      );
      expect((await rejection(accept(invitationIds[0]!, carolId, kh.client))).message).toContain(
        'request must be stamped by the credential mailed for this user',
      );
      const accepted = await accept(invitationIds[0]!, carolId);
      expect(accepted.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
      expect(accepted.activity.result.acceptInvitationResult).toEqual({
        invitationId: invitationIds[0],
        userId: carolId,
      });
      const carol = new TurnkeyServerClient({
        apiBaseUrl: kh.server.url,
        organizationId: kh.organizationId,
        stamper: passkey,
        activityPoller: TEST_POLLER,
      });
      expect((await carol.getWhoami({})).userId).toBe(carolId);
      // The invitation key is spent.
      expect((await rejection(invitee.getWhoami({}))).message).toContain(
        'could not find public key',
      );

      // DELETE_INVITATION: dan's invitation is revoked, his user and key are gone.
      const danKeyHex = mailed(danMail, 'Invitation key');
      const danId = mailed(danMail, 'User id');
      await kh.client.deleteInvitation({ invitationId: invitationIds[1]! });
      const dan = sdkClient(kh.server.url, kh.organizationId, {
        privateKey: danKeyHex,
        publicKey: bytesToHex(getPublicKey(hexToBytes(danKeyHex), true)),
      });
      expect((await rejection(dan.getWhoami({}))).message).toContain('could not find public key');
      expect((await kh.client.getUsers({})).users.map((u) => u.userId)).not.toContain(danId);
      expect((await organizationData()).invitations.map((i) => i.status)).toEqual([
        'INVITATION_STATUS_ACCEPTED',
        'INVITATION_STATUS_REVOKED',
      ]);
      const twice = await rejection(
        kh.client.deleteInvitation({ invitationId: invitationIds[1]! }),
      );
      expect(twice.message).toContain('invitation has already been accepted or revoked');
    });

    it('ACCEPT_INVITATION V1, with the webauthn-json passkey of AuthenticatorParams V1', async () => {
      const before = mailbox.received.length;
      const { invitationIds } = await kh.client.createInvitations({
        invitations: [
          {
            receiverUserName: 'gail',
            receiverUserEmail: 'gail@example.com',
            receiverUserTags: [],
            accessType: 'ACCESS_TYPE_ALL',
            senderUserId: kh.userId,
          },
        ],
      });
      const mail = newMailTo(mailbox, before, 'gail@example.com');
      expect(mailText(mail)).toContain('Subject: You are invited to ');
      const userId = mailed(mail, 'User id');
      const keyHex = mailed(mail, 'Invitation key');
      const invitee = sdkClient(kh.server.url, kh.organizationId, {
        privateKey: keyHex,
        publicKey: bytesToHex(getPublicKey(hexToBytes(keyHex), true)),
      });
      const passkey = passkeyOf();
      const { authenticatorName, challenge, attestation } = passkey.register('gail phone');
      const accepted = await post<{
        activity: { status: string; result: Record<string, unknown> };
      }>(invitee, '/public/v1/submit/accept_invitation', {
        type: 'ACTIVITY_TYPE_ACCEPT_INVITATION',
        timestampMs: String(Date.now()),
        organizationId: kh.organizationId,
        parameters: {
          invitationId: invitationIds[0],
          userId,
          authenticator: {
            authenticatorName,
            userId,
            challenge,
            attestation: {
              id: attestation.credentialId,
              type: 'public-key',
              rawId: attestation.credentialId,
              authenticatorAttachment: 'platform',
              response: {
                clientDataJson: attestation.clientDataJson,
                attestationObject: attestation.attestationObject,
                transports: attestation.transports,
              },
              clientExtensionResults: { credProps: { rk: true } },
            },
          },
        },
      });
      expect(accepted.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
      expect(accepted.activity.result.acceptInvitationResult).toEqual({
        invitationId: invitationIds[0],
        userId,
      });
      const gail = new TurnkeyServerClient({
        apiBaseUrl: kh.server.url,
        organizationId: kh.organizationId,
        stamper: passkey,
        activityPoller: TEST_POLLER,
      });
      expect((await gail.getWhoami({})).userId).toBe(userId);
    });

    it('CREATE_INVITATIONS refuses an unknown sender, mailing and storing nothing', async () => {
      const before = mailbox.received.length;
      const users = (await kh.client.getUsers({})).users.length;
      const refused = await rejection(
        kh.client.createInvitations({
          invitations: [
            {
              receiverUserName: 'erin',
              receiverUserEmail: 'erin@example.com',
              receiverUserTags: [],
              accessType: 'ACCESS_TYPE_WEB',
              senderUserId: '00000000-0000-4000-8000-000000000000',
            },
          ],
        }),
      );
      expect(refused.message).toContain('user not found');
      expect(mailbox.received.length).toBe(before);
      expect((await kh.client.getUsers({})).users.length).toBe(users);
    });

    /** INIT_OTP at the parent then VERIFY_OTP, the code read from the mail; answers the token. */
    async function verifiedToken(contact: string, key = generateP256KeyPair()) {
      const before = mailbox.received.length;
      const { otpId, otpEncryptionTargetBundle } = await kh.client.initOtp({
        otpType: 'OTP_TYPE_EMAIL',
        contact,
        appName: 'Acme',
      });
      const code = mailText(newMailTo(mailbox, before, contact)).match(
        /sign-in code is ([0-9A-Z]{6,9})/,
      )![1]!;
      const encryptedOtpBundle = await encryptOtpCodeToBundle(
        code,
        otpEncryptionTargetBundle,
        key.publicKey,
        kh.server.keyhold.tlsFetcherSignPublicKey,
      );
      return (await kh.client.verifyOtp({ otpId, encryptedOtpBundle })).verificationToken;
    }

    it('UPDATE_USER_EMAIL with a verification token of the parent: the address is verified; a foreign or spent token changes nothing', async () => {
      const token = await verifiedToken('alice.new@example.com');
      const wrong = await rejection(
        alice.updateUserEmail({
          userId: aliceId,
          userEmail: 'mallory@example.com',
          verificationToken: token,
        }),
      );
      expect(wrong.message).toContain('invalid verification token');
      expect((await alice.getUser({ userId: aliceId })).user.userEmail).toBe('Alice@Example.com');
      await alice.updateUserEmail({
        userId: aliceId,
        userEmail: 'alice.new@example.com',
        verificationToken: token,
      });
      expect((await alice.getUser({ userId: aliceId })).user.userEmail).toBe(
        'alice.new@example.com',
      );
      const spent = await rejection(
        alice.updateUserEmail({
          userId: aliceId,
          userEmail: 'alice.new@example.com',
          verificationToken: token,
        }),
      );
      expect(spent.message).toContain('verification token has already been used');
      const { organizationIds } = await kh.client.getVerifiedSubOrgIds({
        filterType: 'EMAIL',
        filterValue: 'alice.new@example.com',
      });
      expect(organizationIds).toEqual([subOrgId]);
      // A phone number token is not an email token.
      const phone = await rejection(
        alice.updateUserPhoneNumber({
          userId: aliceId,
          userPhoneNumber: '+15555550100',
          verificationToken: token,
        }),
      );
      expect(phone.message).toContain('invalid verification token');
      // Without a token the address is set, unverified.
      await alice.updateUserEmail({ userId: aliceId, userEmail: 'Alice@Example.com' });
      expect(
        (
          await kh.client.getVerifiedSubOrgIds({
            filterType: 'EMAIL',
            filterValue: 'alice.new@example.com',
          })
        ).organizationIds,
      ).toEqual([]);
    });

    it('UPDATE_USER_PHONE_NUMBER with a verification token of an SMS code: the number is verified', async () => {
      const phone = '+15555550123';
      const client = generateP256KeyPair();
      const { otpId, otpEncryptionTargetBundle } = await kh.client.initOtp({
        otpType: 'OTP_TYPE_SMS',
        contact: '+1 555 555 0123',
        appName: 'Acme',
      });
      const sms = texts.at(-1)!;
      expect(sms.to).toBe('+1 555 555 0123');
      const code = sms.text.match(/code is ([0-9A-Z]{6,9})/)![1]!;
      const { verificationToken } = await kh.client.verifyOtp({
        otpId,
        encryptedOtpBundle: await encryptOtpCodeToBundle(
          code,
          otpEncryptionTargetBundle,
          client.publicKey,
          kh.server.keyhold.tlsFetcherSignPublicKey,
        ),
      });
      // An email update with an SMS token is refused.
      const crossed = await rejection(
        alice.updateUserEmail({ userId: aliceId, userEmail: email, verificationToken }),
      );
      expect(crossed.message).toContain('invalid verification token');
      await alice.updateUserPhoneNumber({
        userId: aliceId,
        userPhoneNumber: phone,
        verificationToken,
      });
      expect((await alice.getUser({ userId: aliceId })).user.userPhoneNumber).toBe(phone);
      expect(
        (await kh.client.getVerifiedSubOrgIds({ filterType: 'PHONE_NUMBER', filterValue: phone }))
          .organizationIds,
      ).toEqual([subOrgId]);
    });

    it('sign-up: CREATE_SUB_ORGANIZATION with a verification token and client signature; list_verified_suborgs', async () => {
      const client = generateP256KeyPair();
      const contact = 'frank@example.com';
      const rootUsers = [
        {
          userName: 'frank',
          userEmail: contact,
          apiKeys: [
            {
              apiKeyName: 'session',
              publicKey: client.publicKey,
              curveType: 'API_KEY_CURVE_P256' as const,
            },
          ],
          authenticators: [],
          oauthProviders: [],
        },
      ];
      const signupMessage = (tokenId: string, email = contact) =>
        JSON.stringify({
          signupV2: { apiKeys: [{ publicKey: client.publicKey }], email },
          tokenId,
          type: 'USAGE_TYPE_SIGNUP',
        });
      const tokenIdOf = (token: string) =>
        JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).id as string;
      const listed = async () => (await kh.client.getSubOrgIds({})).organizationIds;

      const token = await verifiedToken(contact, client);
      const before = await listed();
      // A signature over another message: refused, nothing created.
      const forged = await rejection(
        kh.client.createSubOrganization({
          subOrganizationName: 'frank',
          rootUsers,
          rootQuorumThreshold: 1,
          verificationToken: token,
          clientSignature: clientSignatureFor(
            client,
            signupMessage(tokenIdOf(token), 'eve@example.com'),
          ),
        }),
      );
      expect(forged.message).toContain('invalid client signature');
      // A token bound to a key needs the signature.
      const unsigned = await rejection(
        kh.client.createSubOrganization({
          subOrganizationName: 'frank',
          rootUsers,
          rootQuorumThreshold: 1,
          verificationToken: token,
        }),
      );
      expect(unsigned.message).toContain('invalid client signature');
      expect(await listed()).toEqual(before);

      const { subOrganizationId } = await kh.client.createSubOrganization({
        subOrganizationName: 'frank',
        rootUsers,
        rootQuorumThreshold: 1,
        verificationToken: token,
        clientSignature: clientSignatureFor(client, signupMessage(tokenIdOf(token))),
      });
      expect(
        (await kh.client.getVerifiedSubOrgIds({ filterType: 'EMAIL', filterValue: contact }))
          .organizationIds,
      ).toEqual([subOrganizationId]);
      expect((await kh.client.getVerifiedSubOrgIds({})).organizationIds).toContain(
        subOrganizationId,
      );
      // Sub-organizations without a verified contact (the end user's before its update) are not.
      const all = (await kh.client.getSubOrgIds({})).organizationIds;
      const verified = (await kh.client.getVerifiedSubOrgIds({})).organizationIds;
      expect(verified.length).toBeLessThan(all.length);
      expect(all).toEqual(expect.arrayContaining(verified));
      // The token is spent: a second sign-up with it is refused.
      const reused = await rejection(
        kh.client.createSubOrganization({
          subOrganizationName: 'frank again',
          rootUsers,
          rootQuorumThreshold: 1,
          verificationToken: token,
          clientSignature: clientSignatureFor(client, signupMessage(tokenIdOf(token))),
        }),
      );
      expect(reused.message).toContain('verification token has already been used');
    });
  },
);

/**
 * `keyhold serve --smtp … --email-from …` as a user runs it, pointed at a real SMTP server
 * (`smtp-server`) started here: `@turnkey/sdk-server` runs INIT_OTP → the code read from the
 * mail that arrived → `encryptOtpCodeToBundle` (with the listening line's
 * `tlsFetcherSignPublicKey`) → VERIFY_OTP → `verifyOtpVerificationToken` → OTP_LOGIN for a
 * sub-organization's user, and the session verifies under `notarizerPublicKey`. Without
 * `--smtp`, development prints the message as a JSON line on stderr, production refuses it;
 * `--sms-url` sends SMS codes to an HTTP gateway; a bad `--smtp` or `--sms-url`, or a missing
 * `--email-from`, is a usage error.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateApiKeyPair } from '@keyhold/server';
import { p256 } from '@noble/curves/nist.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import {
  encryptOtpCodeToBundle,
  generateP256KeyPair,
  verifyOtpVerificationToken,
  verifySessionJwtSignature,
} from '@turnkey/crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The loopback SMTP server of the notifier's tests (test-only code, no package export).
import {
  type SmtpMailbox,
  startSmtpMailbox,
} from '../../../adapters/notifier-smtp/src/testing/smtp-mailbox.js';
import { sdkClient } from '../../server/src/__fixtures__/turnkey-server.js';
import {
  keyholdProcess,
  keyholdServe,
  killKeyholdProcesses,
  listeningLine,
} from './__fixtures__/keyhold-process.js';

let mailbox: SmtpMailbox;

beforeAll(async () => {
  mailbox = await startSmtpMailbox({ username: 'keyhold', password: 'pw' });
});
afterAll(async () => {
  killKeyholdProcesses();
  await mailbox.close();
});

describe('keyhold serve --smtp', () => {
  it('sends the code by mail; the published clients log the user in with it', async () => {
    const root = generateApiKeyPair();
    const run = keyholdServe(root, ['--smtp', mailbox.url, '--email-from', 'login@keyhold.test']);
    const line = await listeningLine(run);
    const api = sdkClient(line.url, line.organizationId, root);
    const { subOrganizationId, rootUserIds } = await api.createSubOrganization({
      subOrganizationName: 'alice',
      rootUsers: [
        {
          userName: 'alice',
          userEmail: 'alice@example.com',
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

    const session = generateP256KeyPair();
    const { otpId, otpEncryptionTargetBundle } = await api.initOtp({
      otpType: 'OTP_TYPE_EMAIL',
      contact: 'alice@example.com',
      appName: 'Acme',
    });
    const mail = mailbox.received.at(-1)!;
    expect(mail.to).toEqual(['alice@example.com']);
    const code = mail.raw.match(/sign-in code is ([0-9A-Z]{9})/)![1]!;
    const encryptedOtpBundle = await encryptOtpCodeToBundle(
      code,
      otpEncryptionTargetBundle,
      session.publicKey,
      line.tlsFetcherSignPublicKey,
    );
    const { verificationToken } = await api.verifyOtp({ otpId, encryptedOtpBundle });
    const claims = await verifyOtpVerificationToken(
      verificationToken,
      line.tlsFetcherSignPublicKey,
    );
    expect(claims.public_key).toBe(session.publicKey);
    const message = JSON.stringify({
      login: { publicKey: session.publicKey },
      tokenId: claims.id,
      type: 'USAGE_TYPE_LOGIN',
    });
    const signature = p256.sign(sha256(utf8ToBytes(message)), hexToBytes(session.privateKey), {
      prehash: false,
    });
    const login = await api.otpLogin({
      organizationId: subOrganizationId,
      verificationToken,
      publicKey: session.publicKey,
      clientSignature: {
        publicKey: session.publicKey,
        scheme: 'CLIENT_SIGNATURE_SCHEME_API_P256',
        message,
        signature: bytesToHex(signature),
      },
    });
    expect(await verifySessionJwtSignature(login.session, line.notarizerPublicKey)).toBe(true);
    const jwt = JSON.parse(atob(login.session.split('.')[1]!));
    expect(jwt).toMatchObject({ organization_id: subOrganizationId, user_id: rootUserIds![0] });
    // The code never reaches the server's logs.
    expect(run.stderr()).not.toContain(code);
    run.child.kill('SIGTERM');
    expect(await run.exit()).toBe(0);
  }, 60_000);

  it('without --smtp: a JSON line on stderr in development, a clear refusal in production', async () => {
    const root = generateApiKeyPair();
    const start = (env: string) =>
      keyholdServe(root, ['--env', env], { env: { KEYHOLD_MASTER_KEY: '42'.repeat(32) } });
    const dev = start('development');
    const devLine = await listeningLine(dev);
    await sdkClient(devLine.url, devLine.organizationId, root).initOtp({
      otpType: 'OTP_TYPE_SMS',
      contact: '+1 555 555 0100',
      appName: 'Acme',
      otpLength: 6,
      alphanumeric: false,
    });
    const printed = dev
      .stderr()
      .split('\n')
      .filter((l) => l.includes('"notifier":"keyhold-dev"'))
      .map((l) => JSON.parse(l));
    expect(printed).toHaveLength(1);
    expect(printed[0]).toMatchObject({ channel: 'sms', to: '+1 555 555 0100' });
    expect(printed[0].text).toMatch(/^Your Acme code is [0-9]{6}$/);
    dev.child.kill('SIGTERM');
    expect(await dev.exit()).toBe(0);

    const prod = start('production');
    const prodLine = await listeningLine(prod);
    const refused = await sdkClient(prodLine.url, prodLine.organizationId, root)
      .initOtp({ otpType: 'OTP_TYPE_EMAIL', contact: 'a@example.com', appName: 'Acme' })
      .catch((e: Error) => e);
    expect(String(refused)).toContain('no transport configured for this channel');
    prod.child.kill('SIGTERM');
    expect(await prod.exit()).toBe(0);
  }, 60_000);

  it('--sms-url sends SMS codes to the HTTP gateway', async () => {
    const texts: { to: string; text: string }[] = [];
    const gateway = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (c: Buffer) => chunks.push(c));
      request.on('end', () => {
        texts.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        response.statusCode = 202;
        response.end();
      });
    });
    await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
    try {
      const root = generateApiKeyPair();
      const run = keyholdServe(root, [
        '--sms-url',
        `http://key:pw@127.0.0.1:${(gateway.address() as AddressInfo).port}/send`,
      ]);
      const line = await listeningLine(run);
      await sdkClient(line.url, line.organizationId, root).initOtp({
        otpType: 'OTP_TYPE_SMS',
        contact: '+15555550100',
        appName: 'Acme',
        otpLength: 6,
        alphanumeric: false,
      });
      expect(texts).toHaveLength(1);
      expect(texts[0]!.to).toBe('+15555550100');
      expect(texts[0]!.text).toMatch(/^Your Acme code is [0-9]{6}$/);
      expect(run.stderr()).not.toContain(texts[0]!.text);
      run.child.kill('SIGTERM');
      expect(await run.exit()).toBe(0);
    } finally {
      await new Promise<void>((resolve) => gateway.close(() => resolve()));
    }
  }, 60_000);

  it.each([
    [
      ['--smtp', 'http://mail.example.com', '--email-from', 'a@b.c'],
      'must start with smtp:// or smtps://',
    ],
    [['--smtp', 'smtp://mail.example.com'], '--smtp needs --email-from ADDRESS'],
    [['--email-from', 'a@b.c'], '--email-from is the sender of --smtp emails'],
    [['--sms-url', 'ftp://sms.example.com'], '--sms-url: the SMS gateway URL must start with'],
  ])('usage error: %j', async (flags, message) => {
    const run = keyholdProcess(['serve', '--memory', '--port', '0', ...flags]);
    expect(await run.exit()).toBe(2);
    expect(run.stderr()).toContain(`keyhold serve: `);
    expect(run.stderr()).toContain(message);
  });
});

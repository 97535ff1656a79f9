/**
 * The SMTP notifier against a real SMTP server (`smtp-server`) on loopback: what it sends
 * arrives with the sender name, address, reply-to, subject and both bodies; a wrong login, a
 * server that is not there and an SMS are refused with the port's errors.
 */
import { NotifierChannelUnsupportedError, NotifierUnavailableError } from '@keyhold/activities';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSmtpUrl, smtpNotifier } from './smtp-notifier.js';
import { type SmtpMailbox, startSmtpMailbox } from './testing/smtp-mailbox.js';

let mailbox: SmtpMailbox;

beforeAll(async () => {
  mailbox = await startSmtpMailbox({ username: 'me', password: 'p@ss word' });
});
afterAll(() => mailbox.close());

const email = {
  channel: 'email' as const,
  to: 'alice@example.com',
  subject: 'Sign in to Acme',
  text: 'Your Acme sign-in code is 123456',
  html: '<p>Your Acme sign-in code is <strong>123456</strong></p>',
  fromName: 'Acme',
};

describe('smtpNotifier', () => {
  it('delivers an email with its sender, reply-to, subject and bodies', async () => {
    const notifier = smtpNotifier({
      url: `smtp://me:${encodeURIComponent('p@ss word')}@127.0.0.1:${mailbox.port}`,
      from: 'login@acme.test',
    });
    await notifier.send({ ...email, replyTo: 'help@acme.test' });
    await notifier.send({ ...email, fromAddress: 'other@acme.test' });
    await notifier.close?.();
    expect(mailbox.received).toHaveLength(2);
    const [first, second] = mailbox.received;
    expect(first!.from).toBe('login@acme.test');
    expect(first!.to).toEqual(['alice@example.com']);
    expect(first!.raw).toContain('From: Acme <login@acme.test>');
    expect(first!.raw).toContain('Reply-To: help@acme.test');
    expect(first!.raw).toContain('Subject: Sign in to Acme');
    expect(first!.raw).toContain('Your Acme sign-in code is 123456');
    expect(first!.raw).toContain('<strong>123456</strong>');
    expect(second!.from).toBe('other@acme.test');
  });

  it('a wrong login or an absent server is NotifierUnavailableError, never the message', async () => {
    const wrongLogin = smtpNotifier({
      url: `smtp://me:nope@127.0.0.1:${mailbox.port}`,
      from: 'a@acme.test',
    });
    const refused = await wrongLogin.send(email).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(NotifierUnavailableError);
    expect(String(refused)).not.toContain('123456');
    const absent = smtpNotifier({
      url: 'smtp://127.0.0.1:1',
      from: 'a@acme.test',
      timeoutMs: 1000,
    });
    expect(await absent.send(email).catch((e: unknown) => e)).toBeInstanceOf(
      NotifierUnavailableError,
    );
  });

  it('refuses SMS: it is not an SMTP channel', async () => {
    const notifier = smtpNotifier({ url: `smtp://127.0.0.1:${mailbox.port}`, from: 'a@acme.test' });
    await expect(notifier.send({ channel: 'sms', to: '+15555550100', text: 'x' })).rejects.toThrow(
      NotifierChannelUnsupportedError,
    );
  });

  it('parseSmtpUrl accepts smtp and smtps URLs only', () => {
    expect(parseSmtpUrl('smtps://u:p@mail.example.com:465').port).toBe('465');
    expect(() => parseSmtpUrl('http://mail.example.com')).toThrow(/smtp:\/\/ or smtps:\/\//);
    expect(() => parseSmtpUrl('not a url')).toThrow(/not a URL/);
  });
});

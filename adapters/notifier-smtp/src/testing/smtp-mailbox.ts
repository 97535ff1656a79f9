/**
 * A real SMTP server (`smtp-server`) on a free loopback port that requires one login and keeps
 * every mail it receives: the mailbox the notifier's tests, the OTP flows and `keyhold serve
 * --smtp` tests read codes from. Tests only (not in the package's files).
 * @module
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** One mail as it arrived: the envelope's sender and recipients, and the raw message. */
export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
}

export interface SmtpMailbox {
  readonly port: number;
  /** `smtp://user:password@127.0.0.1:port` with the login the server accepts. */
  readonly url: string;
  /** Every mail received so far, oldest first. */
  readonly received: ReceivedMail[];
  close(): Promise<void>;
}

/**
 * @example
 * const mailbox = await startSmtpMailbox({ username: 'keyhold', password: 's3cret' });
 * // … send through mailbox.url …
 * expect(mailbox.received.at(-1)?.to).toEqual(['user@example.com']);
 * await mailbox.close();
 */
export async function startSmtpMailbox(login: {
  username: string;
  password: string;
}): Promise<SmtpMailbox> {
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    onAuth(auth, _session, callback) {
      if (auth.username === login.username && auth.password === login.password)
        return callback(null, { user: login.username });
      return callback(new Error('invalid login'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  const user = encodeURIComponent(login.username);
  const password = encodeURIComponent(login.password);
  return {
    port,
    url: `smtp://${user}:${password}@127.0.0.1:${port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * The Notifier port over SMTP, through nodemailer: emails go to the server given by an
 * `smtp://` or `smtps://` URL (user and password in the URL, as `keyhold serve --smtp` takes
 * it). SMS is not this adapter's channel: it is refused with NotifierChannelUnsupportedError.
 * @module
 */
import {
  type Notifier,
  NotifierChannelUnsupportedError,
  type NotifierMessage,
  NotifierUnavailableError,
} from '@keyhold/activities';
import nodemailer from 'nodemailer';

/** Options of `smtpNotifier`. */
export interface SmtpNotifierOptions {
  /** `smtp[s]://user:pass@host:port`; `smtps` is TLS from the start, `smtp` upgrades with STARTTLS when offered. */
  readonly url: string;
  /** The sender address when a request names none (`--email-from`). */
  readonly from: string;
  /** Connection and greeting timeout; a server that does not answer in time is unavailable. Default 10 s. */
  readonly timeoutMs?: number;
  /** Accept a self-signed certificate (tests, a local relay). Default false. */
  readonly allowSelfSignedCertificate?: boolean;
}

/**
 * Parses and checks an SMTP URL, without connecting.
 * @throws TypeError for another scheme or a URL without a host
 * @example
 * parseSmtpUrl('smtps://me:secret@mail.example.com:465').port; // '465'
 */
export function parseSmtpUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError('the SMTP URL is not a URL (expected smtp[s]://user:pass@host:port)');
  }
  if (parsed.protocol !== 'smtp:' && parsed.protocol !== 'smtps:') {
    throw new TypeError(
      `the SMTP URL must start with smtp:// or smtps://, not ${parsed.protocol}//`,
    );
  }
  if (!parsed.hostname) throw new TypeError('the SMTP URL names no host');
  return parsed;
}

/**
 * A Notifier that sends email over SMTP. Each `send` opens what nodemailer's transport needs
 * and resolves when the server accepted the message; a refused connection, a timeout or a
 * rejected message is NotifierUnavailableError (the server's reason, never the message).
 * @example
 * const notifier = smtpNotifier({ url: 'smtp://user:pass@127.0.0.1:2525', from: 'login@example.com' });
 * await notifier.send({ channel: 'email', to: 'a@example.com', subject: 'Hi', text: 'Hi', html: '<p>Hi</p>', fromName: 'Notifications' });
 */
export function smtpNotifier(options: SmtpNotifierOptions): Notifier {
  const url = parseSmtpUrl(options.url);
  const timeout = options.timeoutMs ?? 10_000;
  const transport = nodemailer.createTransport({
    host: url.hostname,
    port: url.port ? Number(url.port) : url.protocol === 'smtps:' ? 465 : 587,
    secure: url.protocol === 'smtps:',
    ...(url.username
      ? {
          auth: {
            user: decodeURIComponent(url.username),
            pass: decodeURIComponent(url.password),
          },
        }
      : {}),
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout,
    tls: { rejectUnauthorized: !options.allowSelfSignedCertificate },
    // Never log: the messages carry one-time codes.
    logger: false,
    debug: false,
  });
  return {
    async send(message: NotifierMessage) {
      if (message.channel !== 'email') {
        throw new NotifierChannelUnsupportedError(
          message.channel,
          'the SMTP notifier sends email only',
        );
      }
      try {
        await transport.sendMail({
          from: { name: message.fromName, address: message.fromAddress ?? options.from },
          to: message.to,
          ...(message.replyTo ? { replyTo: message.replyTo } : {}),
          subject: message.subject,
          text: message.text,
          html: message.html,
        });
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        const reason = error instanceof Error ? error.message : String(error);
        throw new NotifierUnavailableError(
          typeof code === 'string' ? `${code}: ${reason}` : reason,
        );
      }
    },
    async close() {
      transport.close();
    },
  };
}

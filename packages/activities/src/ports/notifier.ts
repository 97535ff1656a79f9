/**
 * The Notifier port: how Keyhold reaches an end user outside the API — one-time codes by email
 * or SMS (INIT_OTP), later auth and recovery bundles and invitations. The domain renders the
 * message (`otp-message.ts`); an adapter only delivers it (SMTP, an SMS gateway, a log line in
 * development). A message carries a secret (the code): adapters never log its body.
 * @module
 */

/** An email, rendered. */
export interface EmailMessage {
  readonly channel: 'email';
  /** The recipient's address. */
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly html: string;
  /** The sender address the request asked for (`sendFromEmailAddress`); else the adapter's. */
  readonly fromAddress?: string;
  /** The sender's display name (`sendFromEmailSenderName`, default "Notifications"). */
  readonly fromName: string;
  /** `replyToEmailAddress`. */
  readonly replyTo?: string;
}

/** A text message, rendered. */
export interface SmsMessage {
  readonly channel: 'sms';
  /** The recipient's phone number as the request gave it. */
  readonly to: string;
  readonly text: string;
}

/** What a Notifier delivers. */
export type NotifierMessage = EmailMessage | SmsMessage;

/**
 * Delivers messages. `send` resolves once the transport accepted the message; it rejects with
 * NotifierUnavailableError when the transport cannot be reached or refuses (the request then
 * answers 503 and stores nothing), and with NotifierChannelUnsupportedError when this notifier
 * has no transport for the channel (or refuses to deliver at all, as the development notifier
 * does in production).
 * @example
 * await notifier.send({ channel: 'sms', to: '+15555550100', text: 'Your code is 123456' });
 */
export interface Notifier {
  send(message: NotifierMessage): Promise<void>;
  /** Releases connections. */
  close?(): Promise<void>;
}

/**
 * The inversify service identifier of the Notifier port.
 * @example
 * container.bind(Notifier).toConstantValue(smtpNotifier({ url, from }));
 */
export const Notifier: unique symbol = Symbol.for('keyhold.Notifier');

/**
 * The transport could not deliver (connection refused, timeout, the server refused the
 * message). The reason is the transport's, never the message.
 * @example
 * throw new NotifierUnavailableError('connect ECONNREFUSED 127.0.0.1:2525');
 */
export class NotifierUnavailableError extends Error {
  constructor(readonly reason: string) {
    super(`notifier unavailable: ${reason}`);
    this.name = 'NotifierUnavailableError';
  }
}

/**
 * No transport for this channel (an SMS with only SMTP configured; any message when the
 * server has no transport in production).
 * @example
 * throw new NotifierChannelUnsupportedError('sms', 'no SMS gateway configured (--sms-url)');
 */
export class NotifierChannelUnsupportedError extends Error {
  constructor(
    readonly channel: NotifierMessage['channel'],
    readonly reason: string,
  ) {
    super(`no ${channel} transport: ${reason}`);
    this.name = 'NotifierChannelUnsupportedError';
  }
}

/**
 * A notifier without any transport: every message is refused with
 * NotifierChannelUnsupportedError. What a server has when nothing was configured.
 * @example
 * await noNotifier('start keyhold serve with --smtp').send(message); // rejects
 */
export function noNotifier(reason: string): Notifier {
  return {
    async send(message) {
      throw new NotifierChannelUnsupportedError(message.channel, reason);
    },
  };
}

/**
 * One notifier per channel: email to `email`, SMS to `sms` (each defaulting to a refusal).
 * @example
 * const notifier = notifierByChannel({ email: smtpNotifier(options), sms: logNotifier() });
 */
export function notifierByChannel(channels: {
  readonly email?: Notifier;
  readonly sms?: Notifier;
}): Notifier {
  const none = noNotifier('no transport configured');
  return {
    send: (message) => (channels[message.channel] ?? none).send(message),
    async close() {
      await channels.email?.close?.();
      if (channels.sms !== channels.email) await channels.sms?.close?.();
    },
  };
}

/**
 * The development Notifier: each message is written as one JSON line on stderr (or a stream
 * given), code included, so a developer can log in without a mail server. It refuses to run
 * in production: there a flow that needs a transport answers a clear error instead of
 * printing one-time codes into the logs.
 * @module
 */
import {
  type Notifier,
  NotifierChannelUnsupportedError,
  type NotifierMessage,
} from '@keyhold/activities';

/** Options of `logNotifier`. */
export interface LogNotifierOptions {
  /** The server runs in production: every message is refused. Default false. */
  readonly production?: boolean;
  /** Where the line goes. Default: process.stderr. */
  readonly write?: (line: string) => void;
  /** The time stamped on each line (epoch ms). Default Date.now. */
  readonly now?: () => number;
}

/**
 * A Notifier that prints `{"notifier":"keyhold-dev","channel","to",…message,"at"}` lines.
 * @example
 * const notifier = logNotifier(); // development only
 * await notifier.send({ channel: 'sms', to: '+15555550100', text: 'Your code is 123456' });
 */
export function logNotifier(options: LogNotifierOptions = {}): Notifier {
  const write = options.write ?? ((line: string) => process.stderr.write(line));
  const now = options.now ?? Date.now;
  return {
    async send(message: NotifierMessage) {
      if (options.production) {
        throw new NotifierChannelUnsupportedError(
          message.channel,
          'the development notifier does not deliver in production: configure a transport (--smtp for email)',
        );
      }
      write(
        `${JSON.stringify({ notifier: 'keyhold-dev', ...message, at: new Date(now()).toISOString() })}\n`,
      );
    },
  };
}

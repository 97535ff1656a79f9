/**
 * The Notifier port over an HTTP SMS gateway: each text message is one
 * `POST <url>` with the JSON body `{"to","text"}` (the number as the request gave it), and any
 * 2xx answer means the gateway accepted it. Credentials in the URL (`https://user:pass@…`)
 * become a Basic `Authorization` header. Email is not this adapter's channel.
 * @module
 */
import {
  type Notifier,
  NotifierChannelUnsupportedError,
  type NotifierMessage,
  NotifierUnavailableError,
} from '@keyhold/activities';

/** Options of `httpSmsNotifier`. */
export interface HttpSmsNotifierOptions {
  /** The gateway's endpoint: `https://…` (or `http://` to a gateway on a private network). */
  readonly url: string;
  /** More headers (an API key header, say). */
  readonly headers?: Readonly<Record<string, string>>;
  /** How long the gateway has to answer. Default 10 s. */
  readonly timeoutMs?: number;
}

/**
 * Parses and checks a gateway URL, without connecting.
 * @throws TypeError for another scheme or a URL that is not one
 * @example
 * parseSmsGatewayUrl('https://key:secret@sms.example.com/send').hostname; // 'sms.example.com'
 */
export function parseSmsGatewayUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError('the SMS gateway URL is not a URL (expected https://…)');
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new TypeError(
      `the SMS gateway URL must start with https:// or http://, not ${parsed.protocol}//`,
    );
  }
  return parsed;
}

/**
 * A Notifier that sends SMS through an HTTP gateway. A gateway that cannot be reached, does not
 * answer in time or answers other than 2xx is NotifierUnavailableError (the status, never the
 * message).
 * @example
 * const notifier = httpSmsNotifier({ url: 'https://key:secret@sms.example.com/send' });
 * await notifier.send({ channel: 'sms', to: '+15555550100', text: 'Your code is 123456' });
 */
export function httpSmsNotifier(options: HttpSmsNotifierOptions): Notifier {
  const url = parseSmsGatewayUrl(options.url);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    ...options.headers,
  };
  if (url.username || url.password) {
    const user = decodeURIComponent(url.username);
    const pass = decodeURIComponent(url.password);
    headers.authorization = `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
    url.username = '';
    url.password = '';
  }
  const endpoint = url.toString();
  const timeout = options.timeoutMs ?? 10_000;
  return {
    async send(message: NotifierMessage) {
      if (message.channel !== 'sms') {
        throw new NotifierChannelUnsupportedError(
          message.channel,
          'the SMS gateway notifier sends SMS only',
        );
      }
      let response: Response;
      try {
        response = await fetch(endpoint, {
          method: 'POST',
          headers,
          body: JSON.stringify({ to: message.to, text: message.text }),
          redirect: 'error',
          signal: AbortSignal.timeout(timeout),
        });
      } catch (error) {
        const cause = (error as { cause?: { code?: unknown } }).cause?.code;
        const reason = error instanceof Error ? error.name : 'error';
        throw new NotifierUnavailableError(typeof cause === 'string' ? cause : reason);
      }
      await response.body?.cancel();
      if (!response.ok)
        throw new NotifierUnavailableError(`the gateway answered HTTP ${response.status}`);
    },
  };
}

/**
 * The up-front check of a webhook endpoint URL, for the create/update activities (wire-compat
 * §8; spec: "Production: must use https://. Local development also accepts http://localhost
 * and http://127.0.0.1"). It is synchronous and does no DNS: a hostname is resolved — and its
 * addresses checked again — by `HttpWebhookTransport` at every delivery.
 * @module
 */
import { nonPublicRange } from './address-classifier.js';

/** What {@link checkWebhookUrl} allows beyond public https URLs (both: development). */
export interface CheckWebhookUrlOptions {
  /** Accept `http://localhost` and `http://127.0.0.1` (any port, any path). */
  readonly allowHttp?: boolean;
  /** Accept hosts that are private/loopback IP literals or `localhost`. */
  readonly allowPrivateAddresses?: boolean;
}

/** The longest endpoint URL accepted. */
export const MAX_WEBHOOK_URL_LENGTH = 2048;

const HTTP_HOSTS = new Set(['localhost', '127.0.0.1']);

/**
 * Why `url` cannot be a webhook endpoint, or `undefined` if it can. Refused: unparsable or
 * longer than 2048 characters; credentials in the URL; any scheme but https (http only for
 * localhost/127.0.0.1 with `allowHttp`); a host that is `localhost`, `*.localhost` or a
 * non-public IP literal (unless `allowPrivateAddresses`).
 * @example
 * checkWebhookUrl('https://hooks.example.com/keyhold'); // undefined
 * checkWebhookUrl('http://hooks.example.com/'); // 'webhook URL must use https'
 * checkWebhookUrl('http://localhost:3000/hook', { allowHttp: true, allowPrivateAddresses: true }); // undefined
 * checkWebhookUrl('https://10.0.0.5/'); // 'webhook URL points to a private address (private)'
 */
export function checkWebhookUrl(
  url: string,
  options: CheckWebhookUrlOptions = {},
): string | undefined {
  if (typeof url !== 'string' || url.length > MAX_WEBHOOK_URL_LENGTH) {
    return `webhook URL must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`;
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'webhook URL is not a valid URL';
  }
  if (parsed.username !== '' || parsed.password !== '') {
    return 'webhook URL must not contain credentials';
  }
  const host = parsed.hostname.replace(/\.$/, '').toLowerCase();
  if (parsed.protocol === 'http:') {
    if (!options.allowHttp) return 'webhook URL must use https';
    if (!HTTP_HOSTS.has(host))
      return 'webhook URL must use https (http only for localhost and 127.0.0.1)';
  } else if (parsed.protocol !== 'https:') {
    return 'webhook URL must use https';
  }
  if (host === '') return 'webhook URL has no host';
  if (options.allowPrivateAddresses) return undefined;
  if (host === 'localhost' || host.endsWith('.localhost')) {
    return 'webhook URL points to a private address (loopback)';
  }
  const range = nonPublicRange(host);
  if (range !== undefined && range !== 'not an IP address') {
    return `webhook URL points to a private address (${range})`;
  }
  return undefined;
}

/**
 * The up-front check of a webhook endpoint URL, made by CREATE_WEBHOOK_ENDPOINT and
 * UPDATE_WEBHOOK_ENDPOINT (wire-compat §8: "Endpoint URLs must be https and resolve to a
 * public address"). It refuses every URL that can never be delivered to, so such an endpoint
 * is never stored. It is synchronous and does no DNS: what a host name resolves to is checked
 * by the transport at every delivery (DNS can change).
 *
 * Checks, in order (the first failing one is the reason):
 * 1. at most 2048 characters, and an absolute URL;
 * 2. no credentials (`user:password@`);
 * 3. `https:` — or `http:` when private destinations are allowed and the host is loopback
 *    (a loopback IP literal, `localhost`, `*.localhost`, or a single-label name);
 * 4. an IP literal (any spelling: the URL parser canonicalizes `127.1`, `0x7f.1`,
 *    `2130706433`, `[::ffff:127.0.0.1]`) must be public unicast; unspecified, multicast and
 *    broadcast/reserved are refused even when private destinations are allowed;
 * 5. a name must not be local — `localhost`, `*.localhost`, `*.local`, `*.internal`, or a
 *    single label (`receiver`) — unless private destinations are allowed.
 * @module
 */
import { neverADestination, nonPublicRange } from './address-classifier.js';

/** What {@link checkWebhookUrl} allows beyond public https URLs. */
export interface CheckWebhookUrlOptions {
  /**
   * Accept private, loopback and link-local destinations and local names, and `http:` to
   * loopback hosts (the server's `--allow-private-webhooks`). Default false.
   */
  readonly allowPrivateAddresses?: boolean;
}

/** The longest endpoint URL accepted. */
export const MAX_WEBHOOK_URL_LENGTH = 2048;

const LOCAL_SUFFIXES = ['.localhost', '.local', '.internal'];

/** Names that resolve only on this machine or its local network (or nowhere public). */
function isLocalName(host: string): boolean {
  return (
    host === 'localhost' || !host.includes('.') || LOCAL_SUFFIXES.some((s) => host.endsWith(s))
  );
}

/** Hosts that `http:` may go to when private destinations are allowed. */
function isLoopbackHost(host: string, range: string | undefined): boolean {
  if (range !== 'not an IP address') return range === 'loopback';
  return host === 'localhost' || host.endsWith('.localhost') || !host.includes('.');
}

/**
 * Why `url` can never be a webhook endpoint, or `undefined` if it can be. The reason reads
 * after "invalid webhook url: ".
 * @example
 * checkWebhookUrl('https://hooks.example.com/keyhold'); // undefined
 * checkWebhookUrl('http://hooks.example.com/'); // 'http:// is not accepted: use https://'
 * checkWebhookUrl('https://127.1:8443/'); // 'host 127.0.0.1 is not a public address (loopback)'
 * checkWebhookUrl('http://localhost:3000/hook', { allowPrivateAddresses: true }); // undefined
 */
export function checkWebhookUrl(
  url: string,
  options: CheckWebhookUrlOptions = {},
): string | undefined {
  const allowPrivate = options.allowPrivateAddresses ?? false;
  if (typeof url !== 'string') return 'not an absolute URL';
  if (url.length > MAX_WEBHOOK_URL_LENGTH) {
    return `longer than ${MAX_WEBHOOK_URL_LENGTH} characters`;
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'not an absolute URL';
  }
  if (parsed.username !== '' || parsed.password !== '') {
    return 'credentials in the URL are not accepted';
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    return `scheme ${parsed.protocol} is not accepted: use https://`;
  }
  // `hostname` is canonical: lower case, IPv4 as a dotted quad, IPv6 in brackets.
  const host = parsed.hostname.replace(/\.$/, '');
  if (host === '') return 'no host';
  const range = nonPublicRange(host);
  if (parsed.protocol === 'http:') {
    if (!allowPrivate) return 'http:// is not accepted: use https://';
    if (!isLoopbackHost(host, range)) {
      return 'http:// is accepted only for loopback hosts: use https://';
    }
  }
  if (range !== 'not an IP address') {
    if (range === undefined) return undefined;
    if (neverADestination(range)) return `host ${host} can never receive a delivery (${range})`;
    return allowPrivate ? undefined : `host ${host} is not a public address (${range})`;
  }
  if (!allowPrivate && isLocalName(host)) return `host ${host} is a local name, not a public one`;
  return undefined;
}

/**
 * The WebhookTransport over HTTP(S) with Node's global fetch: one POST per attempt, redirects
 * never followed (a 3xx comes back as its status), a hard timeout covering DNS and the
 * response headers, and — unless `allowPrivateAddresses` (development) — only endpoints whose
 * every resolved address is public (see `nonPublicRange`). It never rejects and never puts the
 * URL (which may carry a secret token) or a response body into its error strings.
 *
 * Known gap: the address check resolves the host, then fetch resolves it again to connect, so
 * a hostile DNS server could answer differently the second time (DNS rebinding). Closing it
 * needs connect-time checking (an undici dispatcher with a checked `lookup`, or an egress
 * proxy such as smokescreen); run dispatchers on a network that cannot reach internal services
 * as well.
 * @module
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { WebhookRequest, WebhookResponse, WebhookTransport } from '@keyhold/webhooks';
import { nonPublicRange } from './address-classifier.js';
import { parseRetryAfter } from './retry-after.js';

/** Resolves a hostname to all its addresses. */
export type WebhookHostLookup = (
  hostname: string,
) => Promise<readonly { readonly address: string }[]>;

/** How an {@link HttpWebhookTransport} is built. */
export interface HttpWebhookTransportOptions {
  /** The whole attempt (DNS, connect, response headers); default 10 000 ms. */
  readonly timeoutMs?: number;
  /** Deliver to loopback/private/link-local addresses too (development only); default false. */
  readonly allowPrivateAddresses?: boolean;
  /** Allow `http:` URLs; default = `allowPrivateAddresses` (https only in production). */
  readonly allowHttp?: boolean;
  /** Default: `node:dns` lookup of all addresses. */
  readonly lookup?: WebhookHostLookup;
}

/** The error returned for an endpoint that resolves to a non-public address. */
export const PRIVATE_ADDRESS_ERROR = 'endpoint resolves to a private address';

const defaultLookup: WebhookHostLookup = (hostname) =>
  dnsLookup(hostname, { all: true, verbatim: true });

class Timeout extends Error {}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Timeout()), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

function networkError(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown } } | null)?.cause;
  const code = typeof cause?.code === 'string' ? cause.code : undefined;
  return code !== undefined && /^[A-Z0-9_]{2,40}$/.test(code)
    ? `network error: ${code}`
    : 'network error';
}

/**
 * POSTs signed deliveries.
 * @example
 * const transport = new HttpWebhookTransport({ timeoutMs: 10_000 });
 * const response = await transport.send({ url, headers, body });
 * // { status: 200 } | { status: 429, retryAfterMs: 30000 } | { error: 'timeout after 10000 ms' }
 */
export class HttpWebhookTransport implements WebhookTransport {
  readonly #timeoutMs: number;
  readonly #allowPrivate: boolean;
  readonly #allowHttp: boolean;
  readonly #lookup: WebhookHostLookup;

  constructor(options: HttpWebhookTransportOptions = {}) {
    const timeoutMs = options.timeoutMs ?? 10_000;
    if (!(Number.isFinite(timeoutMs) && timeoutMs > 0))
      throw new RangeError('timeoutMs must be positive');
    this.#timeoutMs = timeoutMs;
    this.#allowPrivate = options.allowPrivateAddresses ?? false;
    this.#allowHttp = options.allowHttp ?? this.#allowPrivate;
    this.#lookup = options.lookup ?? defaultLookup;
  }

  /**
   * One POST; resolves with the status (and `retryAfterMs` when a valid `Retry-After` came
   * back) or with `{error}`; never rejects.
   * @example
   * await new HttpWebhookTransport().send({ url: 'https://hooks.example.com/x', headers, body });
   */
  async send(request: WebhookRequest): Promise<WebhookResponse> {
    const started = Date.now();
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return { error: 'invalid endpoint URL' };
    }
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && this.#allowHttp)) {
      return { error: 'endpoint URL must use https' };
    }
    if (url.username !== '' || url.password !== '') {
      return { error: 'endpoint URL must not contain credentials' };
    }
    if (!this.#allowPrivate) {
      const refused = await this.#checkHost(url.hostname);
      if (refused !== undefined) return { error: refused };
    }
    const remaining = this.#timeoutMs - (Date.now() - started);
    if (remaining <= 0) return { error: `timeout after ${this.#timeoutMs} ms` };
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: request.headers,
        body: request.body,
        redirect: 'manual',
        signal: AbortSignal.timeout(remaining),
      });
      const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'));
      // The body is never read: release the connection.
      await response.body?.cancel().catch(() => {});
      return retryAfterMs === undefined
        ? { status: response.status }
        : { status: response.status, retryAfterMs };
    } catch (error) {
      const name = (error as { name?: unknown } | null)?.name;
      if (name === 'TimeoutError' || name === 'AbortError') {
        return { error: `timeout after ${this.#timeoutMs} ms` };
      }
      return { error: networkError(error) };
    }
  }

  async #checkHost(hostname: string): Promise<string | undefined> {
    const host = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
    let addresses: readonly string[];
    if (isIP(host) !== 0) {
      addresses = [host];
    } else {
      try {
        addresses = (await withTimeout(this.#lookup(host), this.#timeoutMs)).map((a) => a.address);
      } catch (error) {
        if (error instanceof Timeout) return `timeout after ${this.#timeoutMs} ms`;
        return 'endpoint host did not resolve';
      }
      if (addresses.length === 0) return 'endpoint host did not resolve';
    }
    return addresses.some((a) => nonPublicRange(a) !== undefined)
      ? PRIVATE_ADDRESS_ERROR
      : undefined;
  }
}

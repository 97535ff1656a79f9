/**
 * The WebhookTransport over HTTP(S) with `node:http` / `node:https`: one POST per attempt,
 * redirects never followed (a 3xx comes back as its status), a hard timeout covering DNS,
 * connect and the response headers, and — unless `allowPrivateAddresses` (the server's
 * `--allow-private-webhooks`) — only endpoints whose every resolved address is public (see
 * `nonPublicRange` of `@keyhold/webhooks`); unspecified, multicast and broadcast addresses
 * are refused even then. Refusals of the URL itself (scheme, credentials, a refused IP
 * literal) are `permanent`: DNS cannot change them. A name resolving to a refused address is
 * retried: DNS can change. It never rejects
 * and never puts the URL (which may carry a secret token) or a response body into its error
 * strings.
 *
 * DNS rebinding is closed by resolving the host exactly once, at connect time: the request's
 * `lookup` (the `net.connect` option) resolves all addresses, refuses the connection if any is
 * not public, and hands the socket the addresses it checked — there is no second resolution
 * a hostile DNS server could answer differently. IP-literal hosts are checked without DNS
 * (`net.connect` does not look them up).
 * @module
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { type ClientRequest, request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import {
  neverADestination,
  nonPublicRange,
  type WebhookRequest,
  type WebhookResponse,
  type WebhookTransport,
} from '@keyhold/webhooks';
import { parseRetryAfter } from './retry-after.js';

/** Resolves a hostname to all its addresses. */
export type WebhookHostLookup = (
  hostname: string,
) => Promise<readonly { readonly address: string }[]>;

/** How an {@link HttpWebhookTransport} is built. */
export interface HttpWebhookTransportOptions {
  /** The whole attempt (DNS, connect, response headers); default 10 000 ms. */
  readonly timeoutMs?: number;
  /** Deliver to loopback/private/link-local addresses too (`--allow-private-webhooks`); default false. */
  readonly allowPrivateAddresses?: boolean;
  /** Allow `http:` URLs; default = `allowPrivateAddresses` (https only in production). */
  readonly allowHttp?: boolean;
  /**
   * Default: `node:dns` lookup of all addresses. Called once per attempt, at connect time; the
   * connection goes only to the addresses it returned (after they passed the check).
   */
  readonly lookup?: WebhookHostLookup;
}

/** The error returned for an endpoint that resolves to a non-public address. */
export const PRIVATE_ADDRESS_ERROR = 'endpoint resolves to a private address';

const UNRESOLVED_ERROR = 'endpoint host did not resolve';

const defaultLookup: WebhookHostLookup = (hostname) =>
  dnsLookup(hostname, { all: true, verbatim: true });

/** A refusal decided by the transport itself (its message is the `{error}` returned). */
class Refused extends Error {}

function networkError(error: unknown): string {
  const e = error as { code?: unknown; cause?: { code?: unknown } } | null;
  const code = typeof e?.code === 'string' ? e.code : e?.cause?.code;
  return typeof code === 'string' && /^[A-Z0-9_]{2,40}$/.test(code)
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
  send(request: WebhookRequest): Promise<WebhookResponse> {
    // What the URL alone refuses, no retry can change: `permanent` (the endpoint is disabled).
    const never = (error: string) => Promise.resolve({ error, permanent: true });
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return never('invalid endpoint URL');
    }
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && this.#allowHttp)) {
      return never('endpoint URL must use https');
    }
    if (url.username !== '' || url.password !== '') {
      return never('endpoint URL must not contain credentials');
    }
    const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    // An IP literal is connected to as is (no lookup): check it here.
    if (isIP(host) !== 0 && this.#refuses(host)) return never(PRIVATE_ADDRESS_ERROR);
    return this.#post(url, request);
  }

  /** Whether a connection to `address` is refused: non-public, or never a destination at all. */
  #refuses(address: string): boolean {
    const range = nonPublicRange(address);
    return range !== undefined && (!this.#allowPrivate || neverADestination(range));
  }

  #post(url: URL, request: WebhookRequest): Promise<WebhookResponse> {
    return new Promise<WebhookResponse>((resolve) => {
      let settled = false;
      let req: ClientRequest | undefined;
      const finish = (response: WebhookResponse) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(response);
        // Release the connection; the response body (if any) is discarded unread.
        req?.destroy();
      };
      const timer = setTimeout(
        () => finish({ error: `timeout after ${this.#timeoutMs} ms` }),
        this.#timeoutMs,
      );
      const onResponse = (res: IncomingMessage) => {
        res.on('error', () => {});
        const header = res.headers['retry-after'];
        const retryAfterMs = parseRetryAfter(Array.isArray(header) ? header[0] : header);
        const status = res.statusCode ?? 0;
        finish(retryAfterMs === undefined ? { status } : { status, retryAfterMs });
      };
      try {
        const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
        req = send(
          url,
          {
            method: 'POST',
            headers: { ...request.headers },
            lookup: this.#checkedLookup(),
            // A fresh connection per attempt (default TLS options: certificates verified, SNI =
            // the URL's hostname): never a pooled socket another transport connected.
            agent: false,
          },
          onResponse,
        );
      } catch (error) {
        finish({ error: networkError(error) });
        return;
      }
      req.on('error', (error) => {
        finish({ error: error instanceof Refused ? error.message : networkError(error) });
      });
      req.end(request.body, 'utf8');
    });
  }

  /**
   * The `lookup` handed to `net.connect`: one resolution, every address checked, and exactly
   * the checked addresses handed back, so the socket connects only where the check looked.
   */
  #checkedLookup(): LookupFunction {
    return (hostname, options, callback) => {
      const answer = (error: Error | null, addresses: { address: string; family: number }[]) => {
        if (error !== null) {
          (callback as (e: Error) => void)(error);
        } else if (options.all) {
          (callback as (e: null, a: typeof addresses) => void)(null, addresses);
        } else {
          const [first] = addresses as [{ address: string; family: number }];
          callback(null, first.address, first.family);
        }
      };
      Promise.resolve()
        .then(() => this.#lookup(hostname))
        .then(
          (resolved) => {
            const addresses = resolved.map(({ address }) => ({ address, family: isIP(address) }));
            if (addresses.length === 0 || addresses.some((a) => a.family === 0)) {
              answer(new Refused(UNRESOLVED_ERROR), []);
            } else if (addresses.some((a) => this.#refuses(a.address))) {
              answer(new Refused(PRIVATE_ADDRESS_ERROR), []);
            } else {
              // net.connect asks for a family only when told to (we never do); honour it anyway.
              const f = options.family;
              const family = f === 'IPv4' ? 4 : f === 'IPv6' ? 6 : f;
              const wanted =
                family === 4 || family === 6
                  ? addresses.filter((a) => a.family === family)
                  : addresses;
              if (wanted.length === 0) answer(new Refused(UNRESOLVED_ERROR), []);
              else answer(null, wanted);
            }
          },
          () => answer(new Refused(UNRESOLVED_ERROR), []),
        );
    };
  }
}

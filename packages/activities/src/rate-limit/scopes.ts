/**
 * Rate-limit scopes: whose bucket a request draws from. The client address is read before
 * anything else, from what the transport says; the user and the organization only once the
 * stamp has verified and its API key was found, so nobody can spend them by naming them.
 * @module
 */

/**
 * `ip` (the client address), `user` (the user whose API key stamped the request) or
 * `organization` (the organization the request targets).
 * @example
 * const scope: RateLimitScope = 'organization';
 */
export type RateLimitScope = 'ip' | 'user' | 'organization';

/**
 * Every scope, in the order a request draws from them: the address before authentication,
 * then the user and their organization after it (the user first, so a user refused for their
 * own flood spends nothing of their organization's budget).
 * @example
 * RATE_LIMIT_SCOPES; // ['ip', 'user', 'organization']
 */
export const RATE_LIMIT_SCOPES: readonly RateLimitScope[] = ['ip', 'user', 'organization'];

const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;
const HEXTET = /^[0-9a-fA-F]{1,4}$/;

/** The eight hextets of an IPv6 address, or undefined when it is not one. */
function ipv6Hextets(address: string): number[] | undefined {
  let text = address;
  const tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  if (lastColon < 0) return undefined;
  const dotted = text.slice(lastColon + 1);
  if (IPV4.test(dotted)) {
    // An embedded IPv4 tail (::ffff:192.0.2.1) is the last two hextets.
    const [a, b, c, d] = dotted.split('.').map(Number) as [number, number, number, number];
    if (a > 255 || b > 255 || c > 255 || d > 255) return undefined;
    tail.push((a << 8) | b, (c << 8) | d);
    // Keep a '::' that ends right before the tail ('::1.2.3.4'), drop a single ':'.
    text = text.slice(0, text[lastColon - 1] === ':' ? lastColon + 1 : lastColon);
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const parse = (part: string) => (part === '' ? [] : part.split(':'));
  const head = parse(halves[0] ?? '');
  const rest = halves.length === 2 ? parse(halves[1] ?? '') : [];
  if (![...head, ...rest].every((h) => HEXTET.test(h))) return undefined;
  const given = head.length + rest.length + tail.length;
  if (halves.length === 2 ? given > 7 : given !== 8) return undefined;
  const zeros = new Array<number>(8 - given).fill(0);
  return [
    ...head.map((h) => Number.parseInt(h, 16)),
    ...(halves.length === 2 ? zeros : []),
    ...rest.map((h) => Number.parseInt(h, 16)),
    ...tail,
  ];
}

/**
 * The bucket name of a client address. IPv4 (and IPv4-mapped IPv6) addresses are their own
 * bucket; an IPv6 address shares the bucket of its /64, because one subscriber usually holds
 * a whole /64 and could otherwise rotate through 2^64 buckets. Anything unparseable is its
 * own bucket, truncated to keep keys short.
 * @example
 * ipBucketOf('::ffff:203.0.113.7'); // '203.0.113.7'
 * ipBucketOf('2001:db8:1:2:3:4:5:6'); // '2001:db8:1:2::/64'
 */
export function ipBucketOf(address: string): string {
  const bare = address.split('%')[0] ?? address;
  if (IPV4.test(bare)) return bare;
  const hextets = ipv6Hextets(bare);
  if (!hextets) return bare.slice(0, 64);
  const [a, b, c, d, e, f] = hextets as [number, number, number, number, number, number];
  if (a === 0 && b === 0 && c === 0 && d === 0 && e === 0 && f === 0xffff) {
    const g = hextets[6] ?? 0;
    const h = hextets[7] ?? 0;
    return `${g >> 8}.${g & 0xff}.${h >> 8}.${h & 0xff}`;
  }
  return `${[a, b, c, d].map((x) => x.toString(16)).join(':')}::/64`;
}

/**
 * Which IP addresses a webhook may be delivered to. Only public unicast addresses are allowed;
 * everything else is named by its range so logs and refusals say why. Parsing and prefix
 * matching are `ipaddr.js`'s (no hand-written address arithmetic); the table below only names
 * the ranges. IPv4-mapped (`::ffff:a.b.c.d`), NAT64 (`64:ff9b::/96`) and 6to4 (`2002::/16`)
 * IPv6 addresses are judged by the IPv4 address they embed. IPv6 outside global unicast
 * `2000::/3` is never public.
 *
 * Input is an address as DNS answers it or as the WHATWG URL parser prints a host: dotted
 * quad or RFC 4291 text. Other IPv4 spellings (`127.1`, `0x7f.1`, `2130706433`) are not
 * addresses here — the URL parser has already turned them into `127.0.0.1`.
 * @module
 */
import ipaddr from 'ipaddr.js';

type Range<A> = readonly [name: string, cidrs: readonly [A, number][]];

const v4 = (...cidrs: string[]) => cidrs.map((c) => ipaddr.IPv4.parseCIDR(c));
const v6 = (...cidrs: string[]) => cidrs.map((c) => ipaddr.IPv6.parseCIDR(c));

/** Non-public IPv4 ranges (IANA special-purpose registry), disjoint, by name. */
const V4_RANGES: readonly Range<ipaddr.IPv4>[] = [
  ['this network / unspecified', v4('0.0.0.0/8')],
  ['private', v4('10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16')],
  ['carrier-grade NAT', v4('100.64.0.0/10')],
  ['loopback', v4('127.0.0.0/8')],
  ['link-local', v4('169.254.0.0/16')],
  ['IETF protocol assignments', v4('192.0.0.0/24')],
  ['documentation', v4('192.0.2.0/24', '198.51.100.0/24', '203.0.113.0/24')],
  ['6to4 relay anycast', v4('192.88.99.0/24')],
  ['benchmarking', v4('198.18.0.0/15')],
  ['multicast', v4('224.0.0.0/4')],
  ['reserved / broadcast', v4('240.0.0.0/4')],
];

/** Non-public IPv6 ranges inside global unicast `2000::/3`. */
const V6_GLOBAL_EXCEPTIONS: readonly Range<ipaddr.IPv6>[] = [
  ['documentation', v6('2001:db8::/32', '3fff::/20')],
  ['IETF protocol assignments', v6('2001::/23')],
];

/** Non-public IPv6 ranges outside it that have a better name than "not global unicast". */
const V6_NAMED: readonly Range<ipaddr.IPv6>[] = [
  ['unspecified', v6('::/128')],
  ['loopback', v6('::1/128')],
  ['IPv4-compatible (deprecated)', v6('::/96')],
  ['unique-local', v6('fc00::/7')],
  ['link-local', v6('fe80::/10')],
  ['site-local (deprecated)', v6('fec0::/10')],
  ['multicast', v6('ff00::/8')],
];

const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3');
const MAPPED = ipaddr.IPv6.parseCIDR('::ffff:0:0/96');
const NAT64 = ipaddr.IPv6.parseCIDR('64:ff9b::/96');
const SIX_TO_FOUR = ipaddr.IPv6.parseCIDR('2002::/16');

function nameOf<A extends ipaddr.IPv4 | ipaddr.IPv6>(
  address: A,
  table: readonly Range<A>[],
): string | undefined {
  for (const [name, cidrs] of table) {
    if (cidrs.some((cidr) => address.match(cidr))) return name;
  }
  return undefined;
}

/** The IPv4 address held in IPv6 groups `hi:lo`. */
function embedded(hi: number, lo: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
}

function classify6(address: ipaddr.IPv6): string | undefined {
  const [, p1 = 0, p2 = 0, , , , p6 = 0, p7 = 0] = address.parts;
  if (address.match(MAPPED) || address.match(NAT64)) return nameOf(embedded(p6, p7), V4_RANGES);
  if (address.match(SIX_TO_FOUR)) return nameOf(embedded(p1, p2), V4_RANGES);
  const named = nameOf(address, V6_NAMED);
  if (named !== undefined) return named;
  if (!address.match(GLOBAL_UNICAST)) return 'not global unicast';
  return nameOf(address, V6_GLOBAL_EXCEPTIONS);
}

/**
 * `a` in the URL parser's IPv6 form (zone id dropped): ipaddr.js reads a dotted tail after
 * `::` (`::127.0.0.1`, IPv4-compatible) as IPv4-mapped; the URL parser keeps the two apart.
 */
function canonical6(a: string): string {
  return new URL(`http://[${a.split('%')[0]}]/`).hostname.slice(1, -1);
}

/**
 * The name of the non-public range `address` falls in, or `undefined` for a public unicast
 * address. A string that is not an IP address is `'not an IP address'`.
 * @example
 * nonPublicRange('10.1.2.3'); // 'private'
 * nonPublicRange('::ffff:127.0.0.1'); // 'loopback'
 * nonPublicRange('8.8.8.8'); // undefined
 */
export function nonPublicRange(address: string): string | undefined {
  const a = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  // Dotted quads only: ipaddr.js would also read `1.2.3` or `0x7f.1`, which DNS never answers.
  if (ipaddr.IPv4.isValidFourPartDecimal(a)) return nameOf(ipaddr.IPv4.parse(a), V4_RANGES);
  if (ipaddr.IPv6.isValid(a)) return classify6(ipaddr.IPv6.parse(canonical6(a)));
  return 'not an IP address';
}

/**
 * Whether a webhook may be delivered to `address` (a public unicast IPv4 or IPv6 address).
 * @example
 * isPublicAddress('1.1.1.1'); // true
 * isPublicAddress('fd00::1'); // false
 */
export function isPublicAddress(address: string): boolean {
  return nonPublicRange(address) === undefined;
}

/** Ranges that no TCP connection can ever reach (or that mean "this host"), whatever is allowed. */
const NEVER_A_DESTINATION = new Set([
  'this network / unspecified',
  'unspecified',
  'multicast',
  'reserved / broadcast',
]);

/**
 * Whether `range` (a {@link nonPublicRange} name) can never be a delivery destination, even
 * when private destinations are allowed: unspecified (`0.0.0.0`, `::` — "this host"),
 * multicast and broadcast/reserved.
 * @example
 * neverADestination('multicast'); // true
 * neverADestination('loopback'); // false
 */
export function neverADestination(range: string): boolean {
  return NEVER_A_DESTINATION.has(range);
}

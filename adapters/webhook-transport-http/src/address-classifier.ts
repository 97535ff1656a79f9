/**
 * Which IP addresses a webhook may be delivered to. Only public unicast addresses are allowed;
 * everything else is named by its range so logs say why. IPv4-mapped (`::ffff:a.b.c.d`),
 * NAT64 (`64:ff9b::/96`) and 6to4 (`2002::/16`) IPv6 addresses are judged by the IPv4 address
 * they embed. IPv6 outside global unicast `2000::/3` is never public.
 * @module
 */
import { isIPv4, isIPv6 } from 'node:net';

type Range4 = readonly [base: number, prefix: number, name: string];

const ip4 = (a: number, b: number, c: number, d: number): number =>
  ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;

const V4_RANGES: readonly Range4[] = [
  [ip4(0, 0, 0, 0), 8, 'this network / unspecified'],
  [ip4(10, 0, 0, 0), 8, 'private'],
  [ip4(100, 64, 0, 0), 10, 'carrier-grade NAT'],
  [ip4(127, 0, 0, 0), 8, 'loopback'],
  [ip4(169, 254, 0, 0), 16, 'link-local'],
  [ip4(172, 16, 0, 0), 12, 'private'],
  [ip4(192, 0, 0, 0), 24, 'IETF protocol assignments'],
  [ip4(192, 0, 2, 0), 24, 'documentation'],
  [ip4(192, 88, 99, 0), 24, '6to4 relay anycast'],
  [ip4(192, 168, 0, 0), 16, 'private'],
  [ip4(198, 18, 0, 0), 15, 'benchmarking'],
  [ip4(198, 51, 100, 0), 24, 'documentation'],
  [ip4(203, 0, 113, 0), 24, 'documentation'],
  [ip4(224, 0, 0, 0), 4, 'multicast'],
  [ip4(240, 0, 0, 0), 4, 'reserved / broadcast'],
];

function inRange4(address: number, base: number, prefix: number): boolean {
  const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  return (address & mask) >>> 0 === base;
}

function classify4(address: number): string | undefined {
  for (const [base, prefix, name] of V4_RANGES) {
    if (inRange4(address, base, prefix)) return name;
  }
  return undefined;
}

function parse4(text: string): number {
  const [a, b, c, d] = text.split('.').map(Number) as [number, number, number, number];
  return ip4(a, b, c, d);
}

/** The eight 16-bit groups of a valid IPv6 address (zone id dropped). */
function parse6(text: string): number[] {
  let t = text.split('%')[0]!;
  const tail: number[] = [];
  const lastColon = t.lastIndexOf(':');
  const last = t.slice(lastColon + 1);
  if (last.includes('.')) {
    // A trailing dotted IPv4 (`::ffff:1.2.3.4`): two groups; keep a `::` before it intact.
    const v4 = parse4(last);
    tail.push(v4 >>> 16, v4 & 0xffff);
    t = t.slice(0, lastColon + 1);
    if (!t.endsWith('::')) t = t.slice(0, -1);
  }
  const groups = (s: string) => (s === '' ? [] : s.split(':').map((g) => Number.parseInt(g, 16)));
  const [head, rest] = t.split('::') as [string, string | undefined];
  const left = groups(head);
  const right = rest === undefined ? [] : groups(rest);
  const fill = 8 - tail.length - left.length - right.length;
  return [...left, ...Array<number>(rest === undefined ? 0 : fill).fill(0), ...right, ...tail];
}

function classify6(g: number[]): string | undefined {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g;
  const v4 = ((g6 << 16) | g7) >>> 0;
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0) {
    if (g5 === 0xffff) return classify4(v4); // IPv4-mapped
    if (g5 === 0 && g6 === 0 && g7 === 0) return 'unspecified';
    if (g5 === 0 && g6 === 0 && g7 === 1) return 'loopback';
    return 'IPv4-compatible (deprecated)';
  }
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) {
    return classify4(v4); // NAT64 well-known prefix
  }
  if ((g0 & 0xfe00) === 0xfc00) return 'unique-local';
  if ((g0 & 0xffc0) === 0xfe80) return 'link-local';
  if ((g0 & 0xffc0) === 0xfec0) return 'site-local (deprecated)';
  if ((g0 & 0xff00) === 0xff00) return 'multicast';
  if ((g0 & 0xe000) !== 0x2000) return 'not global unicast';
  if (g0 === 0x2001 && g1 <= 0x01ff) return 'IETF protocol assignments';
  if (g0 === 0x2001 && g1 === 0x0db8) return 'documentation';
  if (g0 === 0x3fff && g1 <= 0x0fff) return 'documentation';
  if (g0 === 0x2002) return classify4(((g1 << 16) | g2) >>> 0); // 6to4
  return undefined;
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
  if (isIPv4(a)) return classify4(parse4(a));
  if (isIPv6(a)) return classify6(parse6(a));
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

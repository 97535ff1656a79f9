import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isPublicAddress, neverADestination, nonPublicRange } from './address-classifier.js';

describe('nonPublicRange', () => {
  it.each([
    ['0.0.0.0', 'this network / unspecified'],
    ['0.1.2.3', 'this network / unspecified'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.255', 'carrier-grade NAT'],
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['169.254.169.254', 'link-local'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.0.0.8', 'IETF protocol assignments'],
    ['192.0.2.1', 'documentation'],
    ['192.168.1.1', 'private'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.7', 'documentation'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved / broadcast'],
    ['255.255.255.255', 'reserved / broadcast'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['::127.0.0.1', 'IPv4-compatible (deprecated)'],
    ['64:ff9b::10.0.0.1', 'private'],
    ['64:ff9b::a00:1', 'private'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456:789a::1', 'unique-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf::1', 'link-local'],
    ['fec0::1', 'site-local (deprecated)'],
    ['ff02::1', 'multicast'],
    ['100::1', 'not global unicast'],
    ['2001::1', 'IETF protocol assignments'],
    ['2001:db8::1', 'documentation'],
    ['3fff::1', 'documentation'],
    ['2002:a00:1::1', 'private'],
    ['2002:7f00:1::', 'loopback'],
    ['localhost', 'not an IP address'],
    ['example.com', 'not an IP address'],
    ['1.2.3', 'not an IP address'],
  ])('%s → %s', (address, range) => {
    expect(nonPublicRange(address)).toBe(range);
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each([
    '1.1.1.1',
    '8.8.8.8',
    '9.255.255.255',
    '11.0.0.0',
    '100.63.255.255',
    '100.128.0.0',
    '172.15.255.255',
    '172.32.0.0',
    '192.167.255.255',
    '192.169.0.0',
    '223.255.255.255',
    '2606:4700:4700::1111',
    '2001:4860:4860::8888',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ])('%s is public', (address) => {
    expect(nonPublicRange(address)).toBeUndefined();
  });

  const octet = fc.integer({ min: 0, max: 255 });
  const inRange = (
    a: number,
    b: number,
    c: number,
    d: number,
    base: [number, number, number, number],
    prefix: number,
  ) => {
    const n = ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;
    const m = ((base[0] << 24) | (base[1] << 16) | (base[2] << 8) | base[3]) >>> 0;
    const mask = (0xffffffff << (32 - prefix)) >>> 0;
    return (n & mask) >>> 0 === (m & mask) >>> 0;
  };
  const refused: [[number, number, number, number], number][] = [
    [[0, 0, 0, 0], 8],
    [[10, 0, 0, 0], 8],
    [[100, 64, 0, 0], 10],
    [[127, 0, 0, 0], 8],
    [[169, 254, 0, 0], 16],
    [[172, 16, 0, 0], 12],
    [[192, 0, 0, 0], 24],
    [[192, 0, 2, 0], 24],
    [[192, 88, 99, 0], 24],
    [[192, 168, 0, 0], 16],
    [[198, 18, 0, 0], 15],
    [[198, 51, 100, 0], 24],
    [[203, 0, 113, 0], 24],
    [[224, 0, 0, 0], 4],
    [[240, 0, 0, 0], 4],
  ];

  it('classifies every IPv4 address by an independent range table, mapped forms alike', () => {
    fc.assert(
      fc.property(octet, octet, octet, octet, (a, b, c, d) => {
        const expectedPublic = !refused.some(([base, prefix]) => inRange(a, b, c, d, base, prefix));
        const v4 = `${a}.${b}.${c}.${d}`;
        expect(isPublicAddress(v4)).toBe(expectedPublic);
        expect(isPublicAddress(`::ffff:${v4}`)).toBe(expectedPublic);
        const hex = (x: number, y: number) => ((x << 8) | y).toString(16);
        expect(isPublicAddress(`::ffff:${hex(a, b)}:${hex(c, d)}`)).toBe(expectedPublic);
        expect(isPublicAddress(`64:ff9b::${v4}`)).toBe(expectedPublic);
      }),
      { numRuns: 2000 },
    );
  });

  it('biased toward range edges', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...refused),
        fc.integer({ min: 0, max: 0xffffffff }),
        ([base, prefix], rand) => {
          const m = ((base[0] << 24) | (base[1] << 16) | (base[2] << 8) | base[3]) >>> 0;
          const size = 2 ** (32 - prefix);
          for (const n of [m, m + size - 1, m + (rand % size)]) {
            const v4 = [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
            expect(isPublicAddress(v4)).toBe(false);
          }
          for (const n of [m - 1, m + size]) {
            if (n < 0 || n > 0xffffffff) continue;
            const v4 = [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
            const expected = !refused.some(([b2, p2]) =>
              inRange(n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255, b2, p2),
            );
            expect(isPublicAddress(v4)).toBe(expected);
          }
        },
      ),
    );
  });
});

describe('neverADestination', () => {
  it('is true for unspecified, multicast and broadcast/reserved ranges only', () => {
    const never = ['0.0.0.0', '0.1.2.3', '::', '224.0.0.1', 'ff02::1', '255.255.255.255'];
    for (const address of never) expect(neverADestination(nonPublicRange(address)!)).toBe(true);
    for (const address of ['127.0.0.1', '::1', '10.0.0.1', 'fe80::1', 'fd00::1']) {
      expect(neverADestination(nonPublicRange(address)!)).toBe(false);
    }
  });
});

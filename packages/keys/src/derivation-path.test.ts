import { describe, expect, it } from 'vitest';
import {
  formatDerivationPath,
  HARDENED_OFFSET,
  isHardenedIndex,
  parseDerivationPath,
} from './derivation-path.js';

const H = HARDENED_OFFSET;
const invalidPath = expect.objectContaining({ key: 'INVALID_PATH' });

describe('parseDerivationPath', () => {
  it.each([
    ['m', []],
    ["m/44'/60'/0'/0/0", [H + 44, H + 60, H, 0, 0]],
    ['m/44h/60h/0h/0/0', [H + 44, H + 60, H, 0, 0]],
    ['m/44H/501H/0H/0H', [H + 44, H + 501, H, H]],
    ["m/0/2147483647'/1/2147483646'/2", [0, H + 2147483647, 1, H + 2147483646, 2]],
    ['m/2147483647', [2147483647]],
    ["m/0'/1/2'/2/1000000000", [H, 1, H + 2, 2, 1000000000]],
  ])('parses %s', (path, indices) => {
    expect(parseDerivationPath(path)).toEqual(indices);
  });

  it.each([
    ['', "path must start with 'm'"],
    ['M/0', "path must start with 'm'"],
    ["44'/60'", "path must start with 'm'"],
    ['/0', "path must start with 'm'"],
    ['m/', 'segment 1 is not a BIP32 index'],
    ['m//0', 'segment 1 is not a BIP32 index'],
    ['m/0/', 'segment 2 is not a BIP32 index'],
    ['m/01', 'segment 1 is not a BIP32 index'],
    ['m/-1', 'segment 1 is not a BIP32 index'],
    ['m/+1', 'segment 1 is not a BIP32 index'],
    ['m/ 1', 'segment 1 is not a BIP32 index'],
    ['m/1 ', 'segment 1 is not a BIP32 index'],
    ["m/1''", 'segment 1 is not a BIP32 index'],
    ['m/0x10', 'segment 1 is not a BIP32 index'],
    ['m/1.5', 'segment 1 is not a BIP32 index'],
    ['m/1e3', 'segment 1 is not a BIP32 index'],
    ['m/٣', 'segment 1 is not a BIP32 index'],
    ['m/2147483648', 'segment 1 is 2^31 or more'],
    ["m/2147483648'", 'segment 1 is 2^31 or more'],
    ['m/4294967296', 'segment 1 is 2^31 or more'],
    ['m/99999999999', 'segment 1 is not a BIP32 index'],
  ])('refuses %j', (path, reason) => {
    expect(() => parseDerivationPath(path)).toThrow(invalidPath);
    try {
      parseDerivationPath(path);
    } catch (error) {
      expect((error as { context: { reason: string } }).context.reason).toBe(reason);
    }
  });

  // A path deeper than 255 segments is necessarily longer than 255 characters.
  it('refuses a path over 255 characters', () => {
    const long = `m${'/0'.repeat(128)}`; // 257 characters
    expect(long.length).toBe(257);
    expect(() => parseDerivationPath(long)).toThrow(invalidPath);
    const deepButShort = `m${'/0'.repeat(127)}`; // 255 characters, depth 127
    expect(deepButShort.length).toBe(255);
    expect(parseDerivationPath(deepButShort)).toHaveLength(127);
  });

  it('truncates a very long path in the error context', () => {
    try {
      parseDerivationPath(`m/${'1'.repeat(10_000)}`);
      expect.unreachable();
    } catch (error) {
      const context = (error as { context: { path: string } }).context;
      expect(context.path.length).toBeLessThanOrEqual(256);
    }
  });

  it('refuses a non-string', () => {
    expect(() => parseDerivationPath(42 as unknown as string)).toThrow(invalidPath);
  });

  describe('for ed25519 (SLIP-10)', () => {
    it('accepts fully hardened paths', () => {
      expect(parseDerivationPath("m/44'/501'/0'/0'", 'CURVE_ED25519')).toEqual([
        H + 44,
        H + 501,
        H,
        H,
      ]);
      expect(parseDerivationPath('m', 'CURVE_ED25519')).toEqual([]);
    });

    it.each(["m/44'/501'/0'/0", 'm/0', "m/44'/60'/0'/0/0"])('refuses %s', (path) => {
      expect(() => parseDerivationPath(path, 'CURVE_ED25519')).toThrow(invalidPath);
    });

    it('allows non-hardened segments on the other curves', () => {
      expect(parseDerivationPath("m/44'/60'/0'/0/0", 'CURVE_SECP256K1')).toHaveLength(5);
      expect(parseDerivationPath("m/28578'/33941", 'CURVE_P256')).toEqual([H + 28578, 33941]);
    });
  });
});

describe('formatDerivationPath', () => {
  it('formats hardened segments with an apostrophe', () => {
    expect(formatDerivationPath([H + 44, H + 60, H, 0, 0])).toBe("m/44'/60'/0'/0/0");
    expect(formatDerivationPath([])).toBe('m');
  });

  it('refuses out-of-range indices', () => {
    expect(() => formatDerivationPath([-1])).toThrow(RangeError);
    expect(() => formatDerivationPath([2 ** 32])).toThrow(RangeError);
    expect(() => formatDerivationPath([1.5])).toThrow(RangeError);
  });
});

describe('isHardenedIndex', () => {
  it('splits at 2^31', () => {
    expect(isHardenedIndex(H - 1)).toBe(false);
    expect(isHardenedIndex(H)).toBe(true);
  });
});

import { ADDRESS_FORMATS, type AddressFormat } from '@keyhold/protocol';
import { addressFormatConfig } from '@turnkey/sdk-server';
import { describe, expect, it } from 'vitest';
import { curvesForAddressFormat, defaultPathFor } from './address-format.js';
import { parseDerivationPath } from './derivation-path.js';

interface TurnkeyConfig {
  defaultAccounts: { curve: string; path: string }[] | null;
}
const turnkey = addressFormatConfig as unknown as Record<string, TurnkeyConfig | undefined>;

describe('defaultPathFor (wire-compat §7.5)', () => {
  it.each(ADDRESS_FORMATS.filter((f) => f !== 'ADDRESS_FORMAT_UNSPECIFIED'))(
    '%s matches @turnkey/sdk-server',
    (format) => {
      const account = turnkey[format]?.defaultAccounts?.[0];
      expect(turnkey[format]).toBeDefined();
      expect(defaultPathFor(format, 0)).toBe(account?.path);
      if (account) {
        expect(curvesForAddressFormat(format)).toEqual([account.curve]);
        // The SDK's own rule for account i: replace the fourth segment.
        const atSeven = account.path.replace(/^((?:[^/]*\/){3})(\d+)/, '$17');
        expect(defaultPathFor(format, 7)).toBe(atSeven);
        expect(() => parseDerivationPath(atSeven, curvesForAddressFormat(format)[0])).not.toThrow();
      }
    },
  );

  it.each([
    ['ADDRESS_FORMAT_ETHEREUM', 3, "m/44'/60'/3'/0/0"],
    ['ADDRESS_FORMAT_SOLANA', 1, "m/44'/501'/1'/0'"],
    ['ADDRESS_FORMAT_BITCOIN_TESTNET_P2WSH', 2, "m/48'/1'/2'/2'/0/0"],
    ['ADDRESS_FORMAT_TRON', 2147483647, "m/44'/195'/2147483647'"],
  ] as const)('%s at %i is %s', (format, index, path) => {
    expect(defaultPathFor(format, index)).toBe(path);
  });

  it.each([
    'ADDRESS_FORMAT_UNCOMPRESSED',
    'ADDRESS_FORMAT_COMPRESSED',
    'ADDRESS_FORMAT_TON_V5R1',
    'ADDRESS_FORMAT_UNSPECIFIED',
    'ADDRESS_FORMAT_NOPE',
    'constructor',
    '__proto__',
  ])('has no default for %s', (format) => {
    expect(defaultPathFor(format as AddressFormat, 0)).toBeUndefined();
  });

  it.each([-1, 1.5, 2 ** 31, Number.NaN, Number.POSITIVE_INFINITY])(
    'refuses account index %s',
    (index) => {
      expect(() => defaultPathFor('ADDRESS_FORMAT_ETHEREUM', index)).toThrow(
        expect.objectContaining({ key: 'INVALID_PATH' }),
      );
    },
  );
});

describe('curvesForAddressFormat', () => {
  it.each([
    ['ADDRESS_FORMAT_COMPRESSED', ['CURVE_SECP256K1', 'CURVE_ED25519', 'CURVE_P256']],
    ['ADDRESS_FORMAT_UNCOMPRESSED', ['CURVE_SECP256K1', 'CURVE_P256']],
    ['ADDRESS_FORMAT_TON_V5R1', ['CURVE_ED25519']],
    ['ADDRESS_FORMAT_UNSPECIFIED', []],
    ['ADDRESS_FORMAT_NOPE', []],
  ])('%s → %j', (format, curves) => {
    expect(curvesForAddressFormat(format as AddressFormat)).toEqual(curves);
  });
});

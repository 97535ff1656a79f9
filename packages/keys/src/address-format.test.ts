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
  // Turnkey's table (docs.turnkey.com "Address formats and curves", the curve of each default
  // account of @turnkey/sdk-server, docs.turnkey.com/networks/{sui,spark}). Its docs table
  // lists SEI under CURVE_ED25519, but the SDK's default Sei account, Sei itself (a Cosmos SDK
  // chain) and the default path m/44'/118'/… are secp256k1: secp256k1 it is.
  const ed25519Formats = ['SOLANA', 'SUI', 'APTOS', 'XLM', 'TON_V3R2', 'TON_V4R2', 'TON_V5R1'];
  const secp256k1Formats = [
    'ETHEREUM',
    'COSMOS',
    'TRON',
    'SEI',
    'DOGE_MAINNET',
    'DOGE_TESTNET',
    'XRP',
    'SPARK_MAINNET',
    'SPARK_REGTEST',
    ...['MAINNET', 'TESTNET', 'SIGNET', 'REGTEST'].flatMap((network) =>
      ['P2PKH', 'P2SH', 'P2WPKH', 'P2WSH', 'P2TR'].map((type) => `BITCOIN_${network}_${type}`),
    ),
  ];

  it('covers every format of wire-compat §7.4 exactly once', () => {
    const listed = [
      'UNSPECIFIED',
      'COMPRESSED',
      'UNCOMPRESSED',
      ...ed25519Formats,
      ...secp256k1Formats,
    ].map((f) => `ADDRESS_FORMAT_${f}`);
    expect([...listed].sort()).toEqual([...ADDRESS_FORMATS].sort());
  });

  it.each(ed25519Formats)('ADDRESS_FORMAT_%s → Ed25519 only', (format) => {
    expect(curvesForAddressFormat(`ADDRESS_FORMAT_${format}` as AddressFormat)).toEqual([
      'CURVE_ED25519',
    ]);
  });

  it.each(secp256k1Formats)('ADDRESS_FORMAT_%s → secp256k1 only', (format) => {
    expect(curvesForAddressFormat(`ADDRESS_FORMAT_${format}` as AddressFormat)).toEqual([
      'CURVE_SECP256K1',
    ]);
  });

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

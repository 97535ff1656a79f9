import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { HDKey } from '@scure/bip32';
import { describe, expect, it } from 'vitest';
import bip32 from './__fixtures__/bip32-vectors.json' with { type: 'json' };
import known from './__fixtures__/known-wallets.json' with { type: 'json' };
import slip10 from './__fixtures__/slip10-vectors.json' with { type: 'json' };
import { deriveAddress } from './address.js';
import { HARDENED_OFFSET } from './derivation-path.js';
import { deriveKeyFromSeed } from './hd-derivation.js';
import { mnemonicToSeedSync } from './mnemonic.js';
import { slip10ChildKey, slip10MasterKey } from './slip10.js';

type FixtureCurve = 'CURVE_SECP256K1' | 'CURVE_ED25519' | 'CURVE_P256';

describe('BIP32 official test vectors 1, 2 and 3 (secp256k1)', () => {
  it('has the three vectors', () => {
    expect(bip32.vectors.map((v) => v.chains.length)).toEqual([6, 6, 2]);
  });

  for (const vector of bip32.vectors) {
    describe(vector.name, () => {
      it.each(vector.chains)('$path', ({ path, xprv, xpub }) => {
        const expected = HDKey.fromExtendedKey(xprv);
        const expectedPublic = HDKey.fromExtendedKey(xpub);
        const derived = deriveKeyFromSeed(hexToBytes(vector.seed), 'CURVE_SECP256K1', path);
        expect(bytesToHex(derived.privateKey)).toBe(bytesToHex(expected.privateKey!));
        expect(bytesToHex(derived.chainCode)).toBe(bytesToHex(expected.chainCode!));
        expect(bytesToHex(derived.publicKey)).toBe(bytesToHex(expectedPublic.publicKey!));
      });
    });
  }
});

describe('SLIP-10 official test vectors', () => {
  it('covers ed25519 1 and 2, nist256p1 1 and 2 and both retry vectors', () => {
    expect(slip10.vectors.map((v) => v.name)).toEqual([
      'Test vector 1 for secp256k1',
      'Test vector 1 for nist256p1',
      'Test vector 1 for ed25519',
      'Test vector 2 for secp256k1',
      'Test vector 2 for nist256p1',
      'Test vector 2 for ed25519',
      'Test derivation retry for nist256p1',
      'Test seed retry for nist256p1',
    ]);
  });

  for (const vector of slip10.vectors) {
    describe(vector.name, () => {
      it.each(vector.chains)('$path', ({ path, chainCode, privateKey, publicKey }) => {
        const curve = vector.curve as FixtureCurve;
        const derived = deriveKeyFromSeed(hexToBytes(vector.seed), curve, path);
        expect(bytesToHex(derived.privateKey)).toBe(privateKey);
        expect(bytesToHex(derived.chainCode)).toBe(chainCode);
        // SLIP-10 lists ed25519 public keys with a 0x00 prefix; Keyhold stores the 32 bytes.
        const expectedPublic = curve === 'CURVE_ED25519' ? publicKey.slice(2) : publicKey;
        expect(bytesToHex(derived.publicKey)).toBe(expectedPublic);
      });
    });
  }
});

describe('SLIP-10 internals', () => {
  it('refuses a normal (non-hardened) ed25519 child', () => {
    const master = slip10MasterKey('ed25519', new Uint8Array(16));
    expect(() => slip10ChildKey('ed25519', master, 0)).toThrow(RangeError);
  });

  it('refuses an out-of-range index and a seed of the wrong size', () => {
    const master = slip10MasterKey('nist256p1', new Uint8Array(16));
    expect(() => slip10ChildKey('nist256p1', master, 2 * HARDENED_OFFSET)).toThrow(RangeError);
    expect(() => slip10ChildKey('nist256p1', master, -1)).toThrow(RangeError);
    expect(() => slip10MasterKey('ed25519', new Uint8Array(15))).toThrow(RangeError);
    expect(() => slip10MasterKey('ed25519', new Uint8Array(65))).toThrow(RangeError);
  });

  it('does not modify the parent', () => {
    const master = slip10MasterKey('nist256p1', new Uint8Array(32).fill(7));
    const before = bytesToHex(master.privateKey);
    slip10ChildKey('nist256p1', master, 1);
    slip10ChildKey('nist256p1', master, HARDENED_OFFSET + 1);
    expect(bytesToHex(master.privateKey)).toBe(before);
  });
});

describe('deriveKeyFromSeed', () => {
  const seed = hexToBytes(known.seed);

  it('derives the well-known accounts of "abandon … about"', () => {
    expect(bytesToHex(mnemonicToSeedSync(known.mnemonic))).toBe(known.seed);
    for (const account of known.accounts) {
      const curve = account.curve as FixtureCurve;
      const key = deriveKeyFromSeed(seed, curve, account.path);
      if (account.privateKey) expect(bytesToHex(key.privateKey)).toBe(account.privateKey);
      expect(
        deriveAddress(account.addressFormat as 'ADDRESS_FORMAT_ETHEREUM', curve, key.publicKey),
      ).toBe(account.address);
    }
  });

  it('refuses a non-hardened ed25519 path with INVALID_PATH', () => {
    expect(() => deriveKeyFromSeed(seed, 'CURVE_ED25519', "m/44'/501'/0'/0")).toThrow(
      expect.objectContaining({ key: 'INVALID_PATH' }),
    );
  });

  it('refuses a malformed path and an unknown curve', () => {
    expect(() => deriveKeyFromSeed(seed, 'CURVE_SECP256K1', "m/44'//0")).toThrow(
      expect.objectContaining({ key: 'INVALID_PATH' }),
    );
    expect(() => deriveKeyFromSeed(seed, 'CURVE_X' as FixtureCurve, 'm/0')).toThrow(
      expect.objectContaining({ key: 'INVALID_CURVE' }),
    );
  });

  it('refuses a seed that is not 16 to 64 bytes', () => {
    expect(() => deriveKeyFromSeed(new Uint8Array(15), 'CURVE_P256', 'm')).toThrow(RangeError);
    expect(() => deriveKeyFromSeed(new Uint8Array(65), 'CURVE_SECP256K1', 'm')).toThrow(RangeError);
  });

  it('gives different keys on different curves for the same seed and path', () => {
    const path = "m/44'/0'/0'";
    const keys = (['CURVE_SECP256K1', 'CURVE_P256', 'CURVE_ED25519'] as const).map((curve) =>
      bytesToHex(deriveKeyFromSeed(seed, curve, path).privateKey),
    );
    expect(new Set(keys).size).toBe(3);
  });
});

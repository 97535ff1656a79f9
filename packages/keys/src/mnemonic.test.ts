import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { HDKey } from '@scure/bip32';
import { describe, expect, it } from 'vitest';
import trezor from './__fixtures__/bip39-trezor-english.json' with { type: 'json' };
import {
  assertValidMnemonic,
  entropyToMnemonic,
  generateMnemonic,
  isValidMnemonic,
  mnemonicEntropyLength,
  mnemonicToEntropy,
  mnemonicToSeed,
  mnemonicToSeedSync,
  normalizeMnemonic,
} from './mnemonic.js';

const ABANDON =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

describe('BIP39 — official Trezor vectors (english, passphrase "TREZOR")', () => {
  it('has the full english set', () => {
    expect(trezor.vectors).toHaveLength(24);
    expect(trezor.passphrase).toBe('TREZOR');
  });

  describe.each(trezor.vectors)('$mnemonic', ({ entropy, mnemonic, seed, rootXprv }) => {
    it('entropy → mnemonic', () => {
      expect(entropyToMnemonic(hexToBytes(entropy))).toBe(mnemonic);
    });
    it('mnemonic → entropy', () => {
      expect(bytesToHex(mnemonicToEntropy(mnemonic))).toBe(entropy);
    });
    it('mnemonic + passphrase → seed → BIP32 root', () => {
      const derived = mnemonicToSeedSync(mnemonic, trezor.passphrase);
      expect(bytesToHex(derived)).toBe(seed);
      expect(HDKey.fromMasterSeed(derived).privateExtendedKey).toBe(rootXprv);
    });
    it('is valid', () => {
      expect(isValidMnemonic(mnemonic)).toBe(true);
    });
  });

  it('the async seed matches the sync seed', async () => {
    const [first] = trezor.vectors;
    expect(bytesToHex(await mnemonicToSeed(first!.mnemonic, 'TREZOR'))).toBe(first!.seed);
  });
});

describe('seeds with the empty passphrase (what wallets use)', () => {
  it('abandon … about → the well-known seed', () => {
    expect(bytesToHex(mnemonicToSeedSync(ABANDON))).toBe(
      '5eb00bbddcf069084889a8ab9155568165f5c453ccb85e70811aaed6f6da5fc19a5ac40b389cd370d086206dec8aa6c43daea6690f20ad3d8d48b2d2ce9e38e4',
    );
  });

  it('differs from the TREZOR-passphrase seed', () => {
    expect(bytesToHex(mnemonicToSeedSync(ABANDON))).not.toBe(trezor.vectors[0]!.seed);
  });
});

describe('generateMnemonic', () => {
  it.each([12, 15, 18, 21, 24])('generates %i valid words', (words) => {
    const mnemonic = generateMnemonic(words);
    expect(mnemonic.split(' ')).toHaveLength(words);
    expect(isValidMnemonic(mnemonic)).toBe(true);
    expect(mnemonicToEntropy(mnemonic)).toHaveLength(mnemonicEntropyLength(words));
  });

  it('defaults to 12 words and is random', () => {
    expect(generateMnemonic().split(' ')).toHaveLength(12);
    expect(generateMnemonic()).not.toBe(generateMnemonic());
  });

  it.each([0, 3, 11, 13, 25, 48, -12, 12.5, Number.NaN])('refuses %s words', (words) => {
    expect(() => generateMnemonic(words)).toThrow(
      expect.objectContaining({ key: 'INVALID_MNEMONIC_LENGTH' }),
    );
  });
});

describe('validation', () => {
  it.each([
    ['a bad checksum', ABANDON.replace(/about$/, 'abandon')],
    ['a word outside the list', ABANDON.replace(/about$/, 'bitcoin')],
    ['11 words', ABANDON.split(' ').slice(1).join(' ')],
    ['13 words', `abandon ${ABANDON}`],
    ['the empty string', ''],
  ])('refuses %s with INVALID_MNEMONIC', (_name, mnemonic) => {
    expect(isValidMnemonic(mnemonic)).toBe(false);
    expect(() => assertValidMnemonic(mnemonic)).toThrow(
      expect.objectContaining({ key: 'INVALID_MNEMONIC' }),
    );
    expect(() => mnemonicToSeedSync(mnemonic)).toThrow(
      expect.objectContaining({ key: 'INVALID_MNEMONIC' }),
    );
  });

  it('never puts the mnemonic in the error', () => {
    const secretish = ABANDON.replace(/about$/, 'zoo');
    try {
      assertValidMnemonic(secretish);
      expect.unreachable();
    } catch (error) {
      const text = JSON.stringify({ message: (error as Error).message, ...(error as object) });
      expect(text).not.toContain('abandon');
    }
  });

  it('normalizes case and whitespace', () => {
    const messy = `  ${ABANDON.toUpperCase().replaceAll(' ', ' \n\t ')}  `;
    expect(normalizeMnemonic(messy)).toBe(ABANDON);
    expect(assertValidMnemonic(messy)).toBe(ABANDON);
    expect(bytesToHex(mnemonicToSeedSync(messy))).toBe(bytesToHex(mnemonicToSeedSync(ABANDON)));
  });
});

describe('mnemonicEntropyLength', () => {
  it.each([
    [12, 16],
    [15, 20],
    [18, 24],
    [21, 28],
    [24, 32],
  ])('%i words ↔ %i bytes', (words, bytes) => {
    expect(mnemonicEntropyLength(words)).toBe(bytes);
  });
});

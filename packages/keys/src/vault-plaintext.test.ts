import { bytesToHex } from '@noble/hashes/utils.js';
import { describe, expect, it } from 'vitest';
import { deriveAddress } from './address.js';
import {
  BIP39_SEED_LENGTH,
  deriveFromSeedPlaintext,
  isSeedPlaintextLength,
  keyPlaintext,
  mnemonicOfSeedPlaintext,
  seedPlaintext,
} from './vault-plaintext.js';

/** "abandon … about": 16 zero bytes of entropy, and its BIP39 seed (empty passphrase). */
const ZERO_ENTROPY = new Uint8Array(16);
const ABANDON_SEED =
  '5eb00bbddcf069084889a8ab9155568165f5c453ccb85e70811aaed6f6da5fc19a5ac40b389cd370d086206dec8aa6c43daea6690f20ad3d8d48b2d2ce9e38e4';

describe('vault plaintext layouts', () => {
  it('a seed is entropy ‖ its BIP39 seed, and gives the mnemonic back', async () => {
    const plaintext = await seedPlaintext(ZERO_ENTROPY);
    expect(plaintext).toHaveLength(16 + BIP39_SEED_LENGTH);
    expect(bytesToHex(plaintext.subarray(0, 16))).toBe('00'.repeat(16));
    expect(bytesToHex(plaintext.subarray(16))).toBe(ABANDON_SEED);
    expect(mnemonicOfSeedPlaintext(plaintext)).toBe(
      'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about',
    );
    expect(isSeedPlaintextLength(plaintext.length)).toBe(true);
  });

  it('derives from the stored seed, handing over the key and zeroing it afterwards', async () => {
    const plaintext = await seedPlaintext(ZERO_ENTROPY);
    let handed: Uint8Array | undefined;
    const address = deriveFromSeedPlaintext(
      plaintext,
      'CURVE_SECP256K1',
      "m/44'/60'/0'/0/0",
      (privateKey, publicKey) => {
        handed = privateKey;
        expect(privateKey.some((b) => b !== 0)).toBe(true);
        return deriveAddress('ADDRESS_FORMAT_ETHEREUM', 'CURVE_SECP256K1', publicKey);
      },
    );
    expect(address).toBe('0x9858EfFD232B4033E47d90003D41EC34EcaEda94');
    expect(handed?.every((b) => b === 0)).toBe(true);
  });

  it('accepts only the five BIP39 entropy lengths plus 64', () => {
    for (const entropy of [16, 20, 24, 28, 32]) {
      expect(isSeedPlaintextLength(entropy + 64)).toBe(true);
    }
    for (const length of [0, 64, 79, 81, 97, 112])
      expect(isSeedPlaintextLength(length)).toBe(false);
  });

  it('a key is private key ‖ public key', () => {
    const plaintext = keyPlaintext(new Uint8Array(32).fill(1), new Uint8Array(33).fill(2));
    expect(plaintext).toHaveLength(65);
    expect(plaintext.subarray(0, 32).every((b) => b === 1)).toBe(true);
    expect(plaintext.subarray(32).every((b) => b === 2)).toBe(true);
  });
});

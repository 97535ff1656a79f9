import { describe, expect, it } from 'vitest';
import { generateMasterKey } from './master-key.js';
import {
  isSoftwareSealed,
  openDerivationRoot,
  resealSecret,
  sealDerivationRoot,
} from './master-key-rotation.js';
import { SoftwareKeyVault } from './software-key-vault.js';

describe('master-key rotation helpers', () => {
  const from = generateMasterKey();
  const to = generateMasterKey();
  const oldVault = new SoftwareKeyVault({ masterKey: from });
  const newVault = new SoftwareKeyVault({ masterKey: to });

  it('re-seals a seed and keys for the same purpose; only the new key opens them', async () => {
    const seed = await oldVault.createSeed(12);
    const mnemonic = await oldVault.revealMnemonic(seed);
    const movedSeed = resealSecret(from, to, seed);
    expect(movedSeed).not.toBe(seed);
    expect(await newVault.revealMnemonic(movedSeed)).toBe(mnemonic);
    await expect(oldVault.revealMnemonic(movedSeed)).rejects.toThrow('could not be opened');
    // A seed stays a seed: it does not open as a key.
    await expect(newVault.revealKey(movedSeed)).rejects.toThrow('could not be opened');

    for (const curve of ['CURVE_SECP256K1', 'CURVE_ED25519'] as const) {
      const key = await oldVault.createKey(curve);
      const moved = resealSecret(from, to, key.key);
      expect(await newVault.revealKey(moved)).toEqual(await oldVault.revealKey(key.key));
      const digest = new Uint8Array(32).fill(7);
      await expect(newVault.sign(moved, curve, digest)).resolves.toBeDefined();
    }
  });

  it('refuses a secret the old key does not open, and tells vaults apart', async () => {
    const key = await newVault.createKey('CURVE_P256');
    expect(() => resealSecret(from, to, key.key)).toThrow('sealed secret could not be opened');
    expect(isSoftwareSealed(key.key)).toBe(true);
    expect(isSoftwareSealed('kp11.key.k1.00')).toBe(false);
  });

  it('seals the derivation root so that only the master key opens it', () => {
    const sealed = sealDerivationRoot(to, from);
    expect(openDerivationRoot(to, sealed)).toEqual(from);
    expect(() => openDerivationRoot(from, sealed)).toThrow('could not be opened');
    expect(() => sealDerivationRoot(to, new Uint8Array(31))).toThrow('32 bytes');
  });
});

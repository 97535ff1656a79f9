/**
 * Properties of the PKCS#11 vault's wrapped formats: any flipped bit of a wrapped key or seed
 * is refused, and a sealed secret is bound to its purpose, its curve and its token. Signatures
 * of HSM-born and wrapped keys, derivation and round trips are properties of the KeyVault
 * contract (pkcs11-key-vault.contract.test.ts).
 */
import type { Curve } from '@keyhold/protocol';
import { p256 } from '@noble/curves/nist.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSoftHsm, type SoftHsm, softHsmAvailable } from './__fixtures__/softhsm.js';
import { openPkcs11KeyVault, type Pkcs11KeyVault } from './pkcs11-key-vault.js';

const curves: readonly Curve[] = ['CURVE_SECP256K1', 'CURVE_P256', 'CURVE_ED25519'];
const keySeed = fc.uint8Array({ minLength: 48, maxLength: 48 });
const opened = 'sealed secret could not be opened';

/** Flips one bit of the base64url body of a wrapped key or seed. */
function flipBit(sealed: string, bit: number): string {
  const cut = sealed.lastIndexOf('.') + 1;
  const body = Buffer.from(sealed.slice(cut), 'base64url');
  const position = bit % (body.length * 8);
  body[position >> 3]! ^= 1 << (position & 7);
  return `${sealed.slice(0, cut)}${body.toString('base64url')}`;
}

describe.skipIf(!softHsmAvailable())('Pkcs11KeyVault (properties, SoftHSM2)', () => {
  let hsm: SoftHsm;
  let vault: Pkcs11KeyVault;
  let other: Pkcs11KeyVault;

  beforeAll(async () => {
    hsm = createSoftHsm(['prop-main', 'prop-other']);
    const open = (label: string) =>
      openPkcs11KeyVault({
        modulePath: hsm.modulePath,
        tokenLabel: label,
        pin: hsm.tokens[label]!.pin,
      });
    vault = await open('prop-main');
    other = await open('prop-other');
  });

  afterAll(async () => {
    await vault?.close();
    await other?.close();
    hsm?.cleanup();
  });

  it('wrapped keys round-trip, and any flipped bit is refused', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...curves), keySeed, fc.nat(), async (curve, seed, bit) => {
        const priv =
          curve === 'CURVE_ED25519'
            ? seed.slice(0, 32)
            : (curve === 'CURVE_P256' ? p256 : secp256k1).utils.randomSecretKey(seed);
        const { key } = await vault.importKey(curve, priv);
        expect(key).not.toContain(bytesToHex(priv));
        expect(bytesToHex(await vault.revealKey(key))).toBe(bytesToHex(priv));
        const tampered = flipBit(key, bit);
        await expect(vault.revealKey(tampered)).rejects.toThrow(opened);
        await expect(vault.sign(tampered, curve, new Uint8Array(32))).rejects.toThrow(opened);
      }),
      { numRuns: 30 },
    );
  });

  it('seeds round-trip, and any flipped bit is refused', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(12, 15, 18, 21, 24), fc.nat(), async (words, bit) => {
        const seed = await vault.createSeed(words);
        const mnemonic = await vault.revealMnemonic(seed);
        const again = await vault.importSeed(mnemonic);
        expect(await vault.revealMnemonic(again)).toBe(mnemonic);
        const path = "m/44'/60'/0'/0/0";
        const a = await vault.deriveKey(seed, 'CURVE_SECP256K1', path);
        const b = await vault.deriveKey(again, 'CURVE_SECP256K1', path);
        expect(bytesToHex(a.publicKey)).toBe(bytesToHex(b.publicKey));
        const tampered = flipBit(seed, bit);
        await expect(vault.revealMnemonic(tampered)).rejects.toThrow(opened);
        await expect(vault.deriveKey(tampered, 'CURVE_SECP256K1', path)).rejects.toThrow(opened);
      }),
      { numRuns: 8 },
    );
  });

  it('a sealed secret is bound to its purpose, its curve and its token', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...curves),
        fc.constantFrom(...curves),
        fc.boolean(),
        async (a, b, inToken) => {
          const { key } = inToken
            ? await vault.createKey(a)
            : await vault.importKey(
                a,
                a === 'CURVE_ED25519'
                  ? new Uint8Array(32).fill(4)
                  : (a === 'CURVE_P256' ? p256 : secp256k1).utils.randomSecretKey(),
              );
          if (a !== b) await expect(vault.sign(key, b, new Uint8Array(32))).rejects.toThrow(opened);
          await expect(vault.revealMnemonic(key)).rejects.toThrow(opened);
          await expect(vault.deriveKey(key, b, "m/0'")).rejects.toThrow(opened);
          await expect(other.revealKey(key)).rejects.toThrow(opened);
          await expect(other.sign(key, a, new Uint8Array(32))).rejects.toThrow(opened);
        },
      ),
      { numRuns: 15 },
    );
  });
});

import { createPublicKey, verify as nodeVerify } from 'node:crypto';
import { formatSignature } from '@keyhold/keys';
import type { Curve } from '@keyhold/protocol';
import { ed25519 } from '@noble/curves/ed25519.js';
import { p256 } from '@noble/curves/nist.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateMasterKey } from './master-key.js';
import { SoftwareKeyVault } from './software-key-vault.js';

const vault = new SoftwareKeyVault({ masterKey: generateMasterKey() });
const ecdsaCurves = [
  ['CURVE_SECP256K1', secp256k1],
  ['CURVE_P256', p256],
] as const;
const curves: readonly Curve[] = ['CURVE_SECP256K1', 'CURVE_P256', 'CURVE_ED25519'];
const digest = fc.uint8Array({ minLength: 32, maxLength: 32 });
const message = fc.uint8Array({ minLength: 0, maxLength: 256 });
const keySeed = fc.uint8Array({ minLength: 48, maxLength: 48 });
const opened = 'sealed secret could not be opened';

/** Flips one bit of the base64url body of a sealed secret. */
function flipBit(sealed: string, bit: number): string {
  const body = Buffer.from(sealed.slice(5), 'base64url');
  const position = bit % (body.length * 8);
  body[position >> 3]! ^= 1 << (position & 7);
  return `ksw1.${body.toString('base64url')}`;
}

describe('SoftwareKeyVault (properties)', () => {
  describe.each(ecdsaCurves)('%s', (curve, impl) => {
    it('every signature verifies, is low-S, and its recovery id recovers the public key', async () => {
      await fc.assert(
        fc.asyncProperty(keySeed, digest, async (seed, hash) => {
          const { key, publicKey } = await vault.importKey(curve, impl.utils.randomSecretKey(seed));
          const raw = await vault.sign(key, curve, hash);
          const { r, s, v } = formatSignature(raw);
          const compact = `${r}${s}`;
          const sig = impl.Signature.fromHex(compact);
          expect(impl.verify(sig.toBytes(), hash, publicKey, { prehash: false, lowS: true })).toBe(
            true,
          );
          expect(sig.hasHighS()).toBe(false);
          expect(raw.recovery === 0 || raw.recovery === 1).toBe(true);
          const recovered = sig.addRecoveryBit(Number(v)).recoverPublicKey(hash);
          expect(bytesToHex(recovered.toBytes(true))).toBe(bytesToHex(publicKey));
        }),
        { numRuns: 40 },
      );
    });

    it('signing is deterministic (RFC 6979) and depends on the digest', async () => {
      await fc.assert(
        fc.asyncProperty(keySeed, digest, digest, async (seed, a, b) => {
          fc.pre(bytesToHex(a) !== bytesToHex(b));
          const { key } = await vault.importKey(curve, impl.utils.randomSecretKey(seed));
          const one = formatSignature(await vault.sign(key, curve, a));
          expect(formatSignature(await vault.sign(key, curve, a))).toEqual(one);
          expect(formatSignature(await vault.sign(key, curve, b))).not.toEqual(one);
        }),
        { numRuns: 20 },
      );
    });
  });

  it('every Ed25519 signature verifies (noble and OpenSSL) over the message itself', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        message,
        async (priv, msg) => {
          const { key, publicKey } = await vault.importKey('CURVE_ED25519', priv);
          const { r, s, v } = formatSignature(await vault.sign(key, 'CURVE_ED25519', msg));
          expect(v).toBe('00');
          const signature = Buffer.from(`${r}${s}`, 'hex');
          expect(ed25519.verify(signature, msg, publicKey)).toBe(true);
          const spki = createPublicKey({
            key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(publicKey).toString('base64url') },
            format: 'jwk',
          });
          expect(nodeVerify(null, msg, spki, signature)).toBe(true);
          // Identical to noble's RFC 8032 signature: Node used the right key.
          expect(`${r}${s}`).toBe(bytesToHex(ed25519.sign(msg, priv)));
        },
      ),
      { numRuns: 40 },
    );
  });

  it('derived keys sign under the public key deriveKey returned', async () => {
    const seed = await vault.createSeed(12);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...curves),
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        digest,
        async (curve, index, hash) => {
          const { key, publicKey } = await vault.deriveKey(seed, curve, `m/44'/${index}'/0'`);
          const { r, s } = formatSignature(await vault.sign(key, curve, hash));
          const signature = Buffer.from(`${r}${s}`, 'hex');
          const ok =
            curve === 'CURVE_ED25519'
              ? ed25519.verify(signature, hash, publicKey)
              : (curve === 'CURVE_P256' ? p256 : secp256k1).verify(signature, hash, publicKey, {
                  prehash: false,
                });
          expect(ok).toBe(true);
        },
      ),
      { numRuns: 30 },
    );
  });

  it('sealed keys round-trip, and any flipped bit is refused', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...curves), keySeed, fc.nat(), async (curve, seed, bit) => {
        const priv =
          curve === 'CURVE_ED25519'
            ? seed.slice(0, 32)
            : (curve === 'CURVE_P256' ? p256 : secp256k1).utils.randomSecretKey(seed);
        const { key } = await vault.importKey(curve, priv);
        expect(bytesToHex(await vault.revealKey(key))).toBe(bytesToHex(priv));
        const tampered = flipBit(key, bit);
        await expect(vault.revealKey(tampered)).rejects.toThrow(opened);
        await expect(vault.sign(tampered, curve, new Uint8Array(32))).rejects.toThrow(opened);
      }),
      { numRuns: 60 },
    );
  });

  it('sealed seeds round-trip, and any flipped bit is refused', async () => {
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
      { numRuns: 15 },
    );
  });

  it('a sealed secret is bound to its purpose and to its master key', async () => {
    const other = new SoftwareKeyVault({ masterKey: generateMasterKey() });
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...curves), fc.constantFrom(...curves), async (a, b) => {
        const { key } = await vault.createKey(a);
        if (a !== b) await expect(vault.sign(key, b, new Uint8Array(32))).rejects.toThrow(opened);
        await expect(vault.revealMnemonic(key)).rejects.toThrow(opened);
        await expect(vault.deriveKey(key, b, "m/0'")).rejects.toThrow(opened);
        await expect(other.revealKey(key)).rejects.toThrow(opened);
        await expect(other.sign(key, a, new Uint8Array(32))).rejects.toThrow(opened);
      }),
      { numRuns: 20 },
    );
  });
});

import { createPublicKey, verify as nodeVerify } from 'node:crypto';
import { formatSignature } from '@keyhold/keys';
import type { Curve } from '@keyhold/protocol';
import { ed25519 } from '@noble/curves/ed25519.js';
import { p256 } from '@noble/curves/nist.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSoftHsm, type SoftHsm, softHsmAvailable } from './__fixtures__/softhsm.js';
import { openPkcs11KeyVault, type Pkcs11KeyVault } from './pkcs11-key-vault.js';

const ecdsaCurves = [
  ['CURVE_SECP256K1', secp256k1],
  ['CURVE_P256', p256],
] as const;
const curves: readonly Curve[] = ['CURVE_SECP256K1', 'CURVE_P256', 'CURVE_ED25519'];
const digest = fc.uint8Array({ minLength: 32, maxLength: 32 });
const message = fc.uint8Array({ minLength: 0, maxLength: 256 });
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

function verifies(curve: Curve, publicKey: Uint8Array, msg: Uint8Array, r: string, s: string) {
  const signature = Buffer.from(`${r}${s}`, 'hex');
  return curve === 'CURVE_ED25519'
    ? ed25519.verify(signature, msg, publicKey)
    : (curve === 'CURVE_P256' ? p256 : secp256k1).verify(signature, msg, publicKey, {
        prehash: false,
      });
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

  describe.each(ecdsaCurves)('%s', (curve, impl) => {
    it('HSM-born keys: every signature verifies, is low-S, and recovers the public key', async () => {
      const keys = await Promise.all([vault.createKey(curve), vault.createKey(curve)]);
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...keys), digest, async ({ key, publicKey }, hash) => {
          const raw = await vault.sign(key, curve, hash);
          const { r, s, v } = formatSignature(raw);
          const sig = impl.Signature.fromHex(`${r}${s}`);
          expect(sig.hasHighS()).toBe(false);
          expect(impl.verify(sig.toBytes(), hash, publicKey, { prehash: false, lowS: true })).toBe(
            true,
          );
          expect(raw.recovery === 0 || raw.recovery === 1).toBe(true);
          const recovered = sig.addRecoveryBit(Number(v)).recoverPublicKey(hash);
          expect(bytesToHex(recovered.toBytes(true))).toBe(bytesToHex(publicKey));
        }),
        { numRuns: 25 },
      );
    });

    it('wrapped keys sign as @noble does (RFC 6979, low-S, recovery id)', async () => {
      await fc.assert(
        fc.asyncProperty(keySeed, digest, async (seed, hash) => {
          const secret = impl.utils.randomSecretKey(seed);
          const { key } = await vault.importKey(curve, secret);
          const raw = await vault.sign(key, curve, hash);
          const expected = impl.sign(hash, secret, { prehash: false, format: 'recovered' });
          expect(bytesToHex(Uint8Array.of(raw.recovery!, ...raw.r, ...raw.s))).toBe(
            bytesToHex(expected),
          );
        }),
        { numRuns: 15 },
      );
    });
  });

  it('HSM-born Ed25519 keys: every signature verifies (noble and OpenSSL) over the message', async () => {
    const keys = await Promise.all([
      vault.createKey('CURVE_ED25519'),
      vault.createKey('CURVE_ED25519'),
    ]);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...keys), message, async ({ key, publicKey }, msg) => {
        const { r, s, v } = formatSignature(await vault.sign(key, 'CURVE_ED25519', msg));
        expect(v).toBe('00');
        const signature = Buffer.from(`${r}${s}`, 'hex');
        expect(ed25519.verify(signature, msg, publicKey)).toBe(true);
        const spki = createPublicKey({
          key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(publicKey).toString('base64url') },
          format: 'jwk',
        });
        expect(nodeVerify(null, msg, spki, signature)).toBe(true);
      }),
      { numRuns: 25 },
    );
  });

  it('wrapped Ed25519 keys sign byte-for-byte as RFC 8032 (noble)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        message,
        async (priv, msg) => {
          const { key, publicKey } = await vault.importKey('CURVE_ED25519', priv);
          expect(bytesToHex(publicKey)).toBe(bytesToHex(ed25519.getPublicKey(priv)));
          const { r, s } = formatSignature(await vault.sign(key, 'CURVE_ED25519', msg));
          expect(`${r}${s}`).toBe(bytesToHex(ed25519.sign(msg, priv)));
        },
      ),
      { numRuns: 15 },
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
          expect(verifies(curve, publicKey, hash, r, s)).toBe(true);
        },
      ),
      { numRuns: 15 },
    );
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

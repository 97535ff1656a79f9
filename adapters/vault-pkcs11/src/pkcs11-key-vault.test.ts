/**
 * What is specific to the PKCS#11 vault on SoftHSM2: the sealed formats (`kp11.key`,
 * `kp11.wrapped`, `kp11.seed`), the token attributes of HSM-born keys, their random-nonce
 * ECDSA, concurrency on one session, token objects removed by destroyKey, and the one plain
 * Error for anything that does not open (another token, a relabelled curve, a forged id, a
 * malformed string). Everything the KeyVault port promises (seeds, derivation, keys,
 * signatures and their vectors, refusals) is checked by the contract in
 * pkcs11-key-vault.contract.test.ts.
 */
import { type CryptoWorkPool, formatSignature, inlineCryptoWorkPool } from '@keyhold/keys';
import type { Curve } from '@keyhold/protocol';
import { ed25519 } from '@noble/curves/ed25519.js';
import { p256 } from '@noble/curves/nist.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createSoftHsm,
  type RawSession,
  rawSession,
  type SoftHsm,
  softHsmAvailable,
} from './__fixtures__/softhsm.js';
import {
  HSM_KEY_NOT_EXPORTABLE_MESSAGE,
  openPkcs11KeyVault,
  type Pkcs11KeyVault,
} from './pkcs11-key-vault.js';

const ABANDON =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const opened = 'sealed secret could not be opened';
const curves = ['CURVE_SECP256K1', 'CURVE_P256', 'CURVE_ED25519'] as const;
const shortName = { CURVE_SECP256K1: 'secp256k1', CURVE_P256: 'p256', CURVE_ED25519: 'ed25519' };
const ecdsaOf = (curve: Curve) => (curve === 'CURVE_P256' ? p256 : secp256k1);
const idOf = (reference: string) => Buffer.from(reference.split('.').at(-1)!, 'hex');
const randomKey = (curve: Curve) =>
  curve === 'CURVE_ED25519'
    ? ed25519.utils.randomSecretKey()
    : ecdsaOf(curve).utils.randomSecretKey();

/** Verifies a signature as a chain would: ECDSA low-S + recovery, or Ed25519. */
function expectValid(curve: Curve, publicKey: Uint8Array, message: Uint8Array, raw: object) {
  const { r, s, v } = formatSignature(raw as Parameters<typeof formatSignature>[0]);
  const compact = hexToBytes(`${r}${s}`);
  if (curve === 'CURVE_ED25519') {
    expect(v).toBe('00');
    expect(ed25519.verify(compact, message, publicKey, { zip215: false })).toBe(true);
    return;
  }
  const ecdsa = ecdsaOf(curve);
  const signature = ecdsa.Signature.fromBytes(compact, 'compact');
  expect(signature.hasHighS()).toBe(false);
  expect(ecdsa.verify(compact, message, publicKey, { prehash: false, lowS: true })).toBe(true);
  const recovered = signature.addRecoveryBit(Number(v)).recoverPublicKey(message);
  expect(bytesToHex(recovered.toBytes(true))).toBe(bytesToHex(publicKey));
}

/** The one plain Error every failed open throws, with no catalogue key. */
async function expectOpenFailed(attempt: () => Promise<unknown>) {
  const error = await attempt().catch((e: unknown) => e);
  expect(error).toBeInstanceOf(Error);
  expect((error as Error).message).toBe(opened);
  expect(error).not.toHaveProperty('key');
}

describe.skipIf(!softHsmAvailable())('Pkcs11KeyVault on SoftHSM2', () => {
  let hsm: SoftHsm;
  let vault: Pkcs11KeyVault;
  let other: Pkcs11KeyVault; // another token, hence another wrapping key
  let raw: RawSession;

  beforeAll(async () => {
    hsm = createSoftHsm(['keyhold-main', 'keyhold-other']);
    const open = (label: string) =>
      openPkcs11KeyVault({
        modulePath: hsm.modulePath,
        tokenLabel: label,
        pin: hsm.tokens[label]!.pin,
      });
    vault = await open('keyhold-main');
    other = await open('keyhold-other');
    raw = rawSession(hsm.modulePath, 'keyhold-main');
  });

  afterAll(async () => {
    raw?.close();
    await vault?.close();
    await other?.close();
    hsm?.cleanup();
  });

  it('says it is a pkcs11 vault, on the token it was given', () => {
    expect(vault.kind).toBe('pkcs11');
    expect(vault.tokenLabel).toBe('keyhold-main');
    expect(vault.tokenSerialNumber).toMatch(/^[0-9a-f]{16}$/);
  });

  describe('sealed formats', () => {
    it('seeds are kp11.seed.<iv ‖ ct ‖ tag>, with a fresh IV each time', async () => {
      const created = await vault.createSeed(24);
      expect(created).toMatch(/^kp11\.seed\.[A-Za-z0-9_-]+$/);
      const [a, b] = await Promise.all([vault.importSeed(ABANDON), vault.importSeed(ABANDON)]);
      expect(a).not.toBe(b);
      const body = Buffer.from(a.slice('kp11.seed.'.length), 'base64url');
      expect(body.toString('hex')).not.toContain('5eb00bbddcf069084889a8ab9155568165f5c453');
      expect(body.toString('hex')).not.toContain('00'.repeat(16)); // the entropy
      expect(body.length).toBe(12 + 16 + 64 + 16); // iv ‖ entropy ‖ seed ‖ tag
    });

    it.each(curves)(
      '%s: derived and imported keys are kp11.wrapped.<curve>.<iv ‖ ct ‖ tag>',
      async (curve) => {
        const seed = await vault.importSeed(ABANDON);
        const path = curve === 'CURVE_ED25519' ? "m/44'/501'/0'/0'" : "m/44'/60'/0'/0/0";
        const derived = await vault.deriveKey(seed, curve, path);
        const imported = await vault.importKey(curve, randomKey(curve));
        for (const { key, publicKey } of [derived, imported]) {
          expect(key).toMatch(
            new RegExp(`^kp11\\.wrapped\\.${shortName[curve]}\\.[A-Za-z0-9_-]+$`),
          );
          const body = Buffer.from(key.split('.')[3]!, 'base64url');
          expect(body.length).toBe(12 + 32 + publicKey.length + 16); // iv ‖ key ‖ public ‖ tag
        }
      },
    );

    it.each(curves)('%s: createKey gives a kp11.key.<curve>.<CKA_ID> reference', async (curve) => {
      const { key } = await vault.createKey(curve);
      expect(key).toMatch(new RegExp(`^kp11\\.key\\.${shortName[curve]}\\.[0-9a-f]{32}$`));
    });
  });

  describe('derivation in a work pool', () => {
    it('deriveKeys gives what deriveKey gives for each path; the jobs get the BIP39 seed, consumed', async () => {
      const inline = inlineCryptoWorkPool();
      const handed: { name: string; seed: Uint8Array }[] = [];
      const workPool: CryptoWorkPool = {
        kind: 'recording',
        run(name, input) {
          handed.push({ name, seed: (input as { seed: Uint8Array }).seed });
          return inline.run(name, input);
        },
        close: () => inline.close(),
      };
      const pooled = await openPkcs11KeyVault({
        modulePath: hsm.modulePath,
        tokenLabel: 'keyhold-main',
        pin: hsm.tokens['keyhold-main']!.pin,
        workPool,
      });
      try {
        const seed = await pooled.importSeed(ABANDON);
        const requests = [
          { curve: 'CURVE_SECP256K1', path: "m/86'/0'/0'/0/0" },
          { curve: 'CURVE_SECP256K1', path: "m/86'/0'/0'/0/1" },
          { curve: 'CURVE_ED25519', path: "m/44'/501'/0'/0'" },
          { curve: 'CURVE_P256', path: "m/44'/60'/0'/0/0" },
        ] as const;
        const keys = await pooled.deriveKeys(seed, requests);
        for (const [i, { curve, path }] of requests.entries()) {
          const one = await vault.deriveKey(seed, curve, path); // the same token, no pool
          expect(keys[i]?.publicKey).toEqual(one.publicKey);
          expect(await vault.revealKey(keys[i]!.key)).toEqual(await vault.revealKey(one.key));
        }
        expect(handed.map((h) => h.name)).toEqual(['deriveKeys']);
        expect(handed[0]?.seed).toHaveLength(64);
        expect(handed[0]?.seed.every((b) => b === 0)).toBe(true);
      } finally {
        await pooled.close();
      }
    });
  });

  describe('keys generated inside the token (createKey)', () => {
    it.each(curves)(
      '%s: the private key is sensitive, non-extractable and persistent',
      async (curve) => {
        const { key } = await vault.createKey(curve);
        const id = idOf(key);
        expect(raw.privateKeyFlags(id)).toEqual({
          CKA_TOKEN: true,
          CKA_PRIVATE: true,
          CKA_SENSITIVE: true,
          CKA_EXTRACTABLE: false,
          CKA_ALWAYS_SENSITIVE: true,
          CKA_NEVER_EXTRACTABLE: true,
          CKA_SIGN: true,
        });
        expect(raw.readPrivateValue(id)).toBe('CKR_ATTRIBUTE_SENSITIVE');
      },
    );

    it.each(curves)(
      '%s: revealKey refuses, by design, saying nothing about the key',
      async (curve) => {
        const { key } = await vault.createKey(curve);
        const error = await vault.revealKey(key).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(Error);
        expect((error as Error).message).toBe(HSM_KEY_NOT_EXPORTABLE_MESSAGE);
        // A catalogue refusal (FAILED_PRECONDITION) that carries nothing about the key.
        expect(error).toMatchObject({ errorCode: 'PRIVATE_KEY_NOT_EXPORTABLE', context: {} });
      },
    );

    it('signs ECDSA with fresh nonces (the token does not use RFC 6979), always low-S', async () => {
      const { key, publicKey } = await vault.createKey('CURVE_SECP256K1');
      const digest = sha256(utf8ToBytes('same digest'));
      const signatures = [];
      for (let i = 0; i < 16; i++) {
        const signature = await vault.sign(key, 'CURVE_SECP256K1', digest);
        expectValid('CURVE_SECP256K1', publicKey, digest, signature);
        signatures.push(bytesToHex(signature.r));
      }
      expect(new Set(signatures).size).toBe(16);
    });

    it('signs concurrently across curves', async () => {
      const keys = await Promise.all(curves.map((curve) => vault.createKey(curve)));
      const digest = sha256(utf8ToBytes('concurrent'));
      const jobs = Array.from({ length: 30 }, (_, i) => {
        const curve = curves[i % 3]!;
        const { key, publicKey } = keys[i % 3]!;
        return vault
          .sign(key, curve, digest)
          .then((signature) => ({ curve, publicKey, signature }));
      });
      for (const { curve, publicKey, signature } of await Promise.all(jobs)) {
        expectValid(curve, publicKey, digest, signature);
      }
    });

    it('destroyKey removes the token objects; the reference then opens nothing', async () => {
      const { key } = await vault.createKey('CURVE_P256');
      await vault.sign(key, 'CURVE_P256', new Uint8Array(32).fill(1)); // cached handle
      await expect(vault.destroyKey(key)).resolves.toBe(true);
      expect(() => raw.privateKeyFlags(idOf(key))).toThrow('no such private key');
      await expectOpenFailed(() => vault.sign(key, 'CURVE_P256', new Uint8Array(32)));
      await expectOpenFailed(() => vault.revealKey(key));
      const seed = await vault.importSeed(ABANDON);
      await expect(vault.destroyKey(seed)).resolves.toBe(false);
      await expect(vault.revealMnemonic(seed)).resolves.toBe(ABANDON);
    });
  });

  describe('sealed secrets that do not open: the one plain Error', () => {
    it('a seed used as a key, a key as a seed or as another curve', async () => {
      // The contract checks that these are refused; this vault refuses them all the same way.
      const seed = await vault.importSeed(ABANDON);
      await expectOpenFailed(() => vault.sign(seed, 'CURVE_SECP256K1', new Uint8Array(32)));
      await expectOpenFailed(() => vault.revealKey(seed));
      const hsmKey = await vault.createKey('CURVE_SECP256K1');
      const wrapped = await vault.deriveKey(seed, 'CURVE_SECP256K1', "m/44'/60'/0'/0/0");
      for (const { key } of [hsmKey, wrapped]) {
        await expectOpenFailed(() => vault.deriveKey(key, 'CURVE_SECP256K1', 'm/0'));
        await expectOpenFailed(() => vault.revealMnemonic(key));
        await expectOpenFailed(() => vault.sign(key, 'CURVE_P256', new Uint8Array(32)));
        await expectOpenFailed(() => vault.sign(key, 'CURVE_ED25519', new Uint8Array(32)));
      }
    });

    it('relabelling the curve in the string does not help: the token key or the AAD says no', async () => {
      const hsmKey = await vault.createKey('CURVE_SECP256K1');
      const wrapped = await vault.importKey('CURVE_SECP256K1', secp256k1.utils.randomSecretKey());
      const relabelled = hsmKey.key.replace('.secp256k1.', '.p256.');
      await expectOpenFailed(() => vault.sign(relabelled, 'CURVE_P256', new Uint8Array(32)));
      const rewrapped = wrapped.key.replace('.secp256k1.', '.p256.');
      await expectOpenFailed(() => vault.sign(rewrapped, 'CURVE_P256', new Uint8Array(32)));
      await expectOpenFailed(() => vault.revealKey(rewrapped));
    });

    it("another token's vault opens nothing: seeds, wrapped keys, token keys", async () => {
      const seed = await vault.importSeed(ABANDON);
      const wrapped = await vault.importKey('CURVE_ED25519', new Uint8Array(32).fill(9));
      const hsmKey = await vault.createKey('CURVE_ED25519');
      await expectOpenFailed(() => other.revealMnemonic(seed));
      await expectOpenFailed(() => other.deriveKey(seed, 'CURVE_ED25519', "m/0'"));
      await expectOpenFailed(() => other.revealKey(wrapped.key));
      await expectOpenFailed(() => other.sign(wrapped.key, 'CURVE_ED25519', new Uint8Array(8)));
      await expectOpenFailed(() => other.sign(hsmKey.key, 'CURVE_ED25519', new Uint8Array(8)));
      await expectOpenFailed(() => other.revealKey(hsmKey.key));
      // …while the other token's own secrets work there.
      const own = await other.importSeed(ABANDON);
      await expect(other.revealMnemonic(own)).resolves.toBe(ABANDON);
    });

    it('an unknown key id opens nothing', async () => {
      const { key } = await vault.createKey('CURVE_P256');
      const forged = `${key.slice(0, -1)}${key.endsWith('0') ? '1' : '0'}`;
      await expectOpenFailed(() => vault.sign(forged, 'CURVE_P256', new Uint8Array(32)));
      await expectOpenFailed(() => vault.revealKey(forged));
    });

    it.each([
      ['the empty string', ''],
      ['no prefix', 'AAAA'],
      ['the software vault', 'ksw1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
      ['another version', 'kp12.seed.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
      ['an unknown kind', 'kp11.blob.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
      ['an unknown curve', 'kp11.key.p384.00112233445566778899aabbccddeeff'],
      ['a short key id', 'kp11.key.p256.0011'],
      ['an upper-case key id', 'kp11.key.p256.00112233445566778899AABBCCDDEEFF'],
      ['too short', 'kp11.seed.AAAA'],
      ['not base64url', `kp11.seed.${'+/=='.repeat(20)}`],
      ['non-canonical base64url', `kp11.wrapped.p256.${'A'.repeat(62)}B`],
      ['a number', 42 as unknown as string],
    ])('refuses %s', async (_name, sealed) => {
      await expectOpenFailed(() => vault.revealKey(sealed));
      await expectOpenFailed(() => vault.revealMnemonic(sealed));
      await expectOpenFailed(() => vault.sign(sealed, 'CURVE_P256', new Uint8Array(32)));
      await expectOpenFailed(() => vault.deriveKey(sealed, 'CURVE_P256', 'm/0'));
    });
  });
});

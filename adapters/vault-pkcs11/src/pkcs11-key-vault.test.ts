import { createPublicKey, verify as nodeVerify } from 'node:crypto';
import { deriveAddress, formatSignature, preparePayload } from '@keyhold/keys';
import type { Curve } from '@keyhold/protocol';
import { ed25519 } from '@noble/curves/ed25519.js';
import { p256 } from '@noble/curves/nist.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { recoverAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import vectors from './__fixtures__/deterministic-signatures.json' with { type: 'json' };
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
const P256_N = p256.Point.Fn.ORDER;
const opened = 'sealed secret could not be opened';
const curves = ['CURVE_SECP256K1', 'CURVE_P256', 'CURVE_ED25519'] as const;
const shortName = { CURVE_SECP256K1: 'secp256k1', CURVE_P256: 'p256', CURVE_ED25519: 'ed25519' };
const ecdsaOf = (curve: Curve) => (curve === 'CURVE_P256' ? p256 : secp256k1);
const idOf = (reference: string) => Buffer.from(reference.split('.').at(-1)!, 'hex');

/** Verifies a signature as a chain would: ECDSA low-S + recovery, or Ed25519 (noble + OpenSSL). */
function expectValid(curve: Curve, publicKey: Uint8Array, message: Uint8Array, raw: object) {
  const { r, s, v } = formatSignature(raw as Parameters<typeof formatSignature>[0]);
  const compact = hexToBytes(`${r}${s}`);
  if (curve === 'CURVE_ED25519') {
    expect(v).toBe('00');
    expect(ed25519.verify(compact, message, publicKey)).toBe(true);
    const spki = createPublicKey({
      key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(publicKey).toString('base64url') },
      format: 'jwk',
    });
    expect(nodeVerify(null, message, spki, compact)).toBe(true);
    return;
  }
  const ecdsa = ecdsaOf(curve);
  const signature = ecdsa.Signature.fromBytes(compact, 'compact');
  expect(signature.hasHighS()).toBe(false);
  expect(ecdsa.verify(compact, message, publicKey, { prehash: false, lowS: true })).toBe(true);
  const recovered = signature.addRecoveryBit(Number(v)).recoverPublicKey(message);
  expect(bytesToHex(recovered.toBytes(true))).toBe(bytesToHex(publicKey));
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

  describe('seeds', () => {
    it.each([12, 15, 18, 21, 24])(
      'creates a %i-word seed (token RNG) and reveals its mnemonic',
      async (words) => {
        const seed = await vault.createSeed(words);
        expect(seed).toMatch(/^kp11\.seed\.[A-Za-z0-9_-]+$/);
        const mnemonic = await vault.revealMnemonic(seed);
        expect(mnemonic.split(' ')).toHaveLength(words);
        expect(await vault.revealMnemonic(await vault.importSeed(mnemonic))).toBe(mnemonic);
      },
    );

    it('creates different seeds', async () => {
      const [a, b] = await Promise.all([vault.createSeed(12), vault.createSeed(12)]);
      expect(await vault.revealMnemonic(a)).not.toBe(await vault.revealMnemonic(b));
    });

    it.each([0, 11, 13, 25])('refuses %i words with INVALID_MNEMONIC_LENGTH', async (words) => {
      await expect(vault.createSeed(words)).rejects.toMatchObject({
        key: 'INVALID_MNEMONIC_LENGTH',
      });
    });

    it('imports a mnemonic (normalized) and reveals it in canonical form', async () => {
      const seed = await vault.importSeed(`  ${ABANDON.toUpperCase()}\n`);
      await expect(vault.revealMnemonic(seed)).resolves.toBe(ABANDON);
    });

    it('refuses an invalid mnemonic with INVALID_MNEMONIC', async () => {
      await expect(vault.importSeed(ABANDON.replace(/about$/, 'abandon'))).rejects.toMatchObject({
        key: 'INVALID_MNEMONIC',
      });
    });

    it('wraps with a fresh IV each time, and never in the clear', async () => {
      const [a, b] = await Promise.all([vault.importSeed(ABANDON), vault.importSeed(ABANDON)]);
      expect(a).not.toBe(b);
      const body = Buffer.from(a.slice('kp11.seed.'.length), 'base64url');
      expect(body.toString('hex')).not.toContain('5eb00bbddcf069084889a8ab9155568165f5c453');
      expect(body.toString('hex')).not.toContain('00'.repeat(16)); // the entropy
      expect(body.length).toBe(12 + 16 + 64 + 16); // iv ‖ entropy ‖ seed ‖ tag
    });
  });

  describe('deriveKey on "abandon … about"', () => {
    it('derives the well-known Ethereum and Solana accounts, as wrapped keys', async () => {
      const seed = await vault.importSeed(ABANDON);
      const eth = await vault.deriveKey(seed, 'CURVE_SECP256K1', "m/44'/60'/0'/0/0");
      expect(eth.key).toMatch(/^kp11\.wrapped\.secp256k1\.[A-Za-z0-9_-]+$/);
      expect(deriveAddress('ADDRESS_FORMAT_ETHEREUM', 'CURVE_SECP256K1', eth.publicKey)).toBe(
        '0x9858EfFD232B4033E47d90003D41EC34EcaEda94',
      );
      const privateKey = '1ab42cc412b618bdea3a599e3c9bae199ebf030895b039e9db1e30dafb12b727';
      expect(Buffer.from(eth.key.split('.')[3]!, 'base64url').toString('hex')).not.toContain(
        privateKey,
      );
      expect(eth.key).not.toContain(privateKey);
      expect(bytesToHex(await vault.revealKey(eth.key))).toBe(privateKey);
      const sol = await vault.deriveKey(seed, 'CURVE_ED25519', "m/44'/501'/0'/0'");
      expect(deriveAddress('ADDRESS_FORMAT_SOLANA', 'CURVE_ED25519', sol.publicKey)).toBe(
        'HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk',
      );
      const p = await vault.deriveKey(seed, 'CURVE_P256', "m/44'/0'/0'/0/0");
      expect(p.key).toMatch(/^kp11\.wrapped\.p256\./);
    });

    it('signs a message viem attributes to the derived Ethereum address', async () => {
      const seed = await vault.importSeed(ABANDON);
      const eth = await vault.deriveKey(seed, 'CURVE_SECP256K1', "m/44'/60'/0'/0/0");
      const digest = preparePayload({
        payload: 'hello',
        encoding: 'PAYLOAD_ENCODING_TEXT_UTF8',
        hashFunction: 'HASH_FUNCTION_KECCAK256',
        curve: 'CURVE_SECP256K1',
      });
      const { r, s, v } = formatSignature(await vault.sign(eth.key, 'CURVE_SECP256K1', digest));
      const address = await recoverAddress({
        hash: `0x${bytesToHex(digest)}`,
        signature: { r: `0x${r}`, s: `0x${s}`, yParity: Number(v) },
      });
      expect(address).toBe('0x9858EfFD232B4033E47d90003D41EC34EcaEda94');
    });

    it('refuses a bad path (INVALID_PATH) and an unknown curve (INVALID_CURVE)', async () => {
      const seed = await vault.importSeed(ABANDON);
      await expect(vault.deriveKey(seed, 'CURVE_ED25519', "m/44'/501'/0'/0")).rejects.toMatchObject(
        { key: 'INVALID_PATH' },
      );
      await expect(vault.deriveKey(seed, 'CURVE_SECP256K1', 'm/x')).rejects.toMatchObject({
        key: 'INVALID_PATH',
      });
      await expect(vault.deriveKey(seed, 'CURVE_X' as 'CURVE_P256', "m/44'")).rejects.toMatchObject(
        { key: 'INVALID_CURVE' },
      );
    });
  });

  describe('keys generated inside the token (createKey)', () => {
    it.each(curves)(
      '%s: a reference, a valid public key, signatures that verify',
      async (curve) => {
        const { key, publicKey } = await vault.createKey(curve);
        expect(key).toMatch(new RegExp(`^kp11\\.key\\.${shortName[curve]}\\.[0-9a-f]{32}$`));
        expect(publicKey).toHaveLength(curve === 'CURVE_ED25519' ? 32 : 33);
        if (curve !== 'CURVE_ED25519') ecdsaOf(curve).Point.fromBytes(publicKey).assertValidity();
        const message =
          curve === 'CURVE_ED25519' ? utf8ToBytes('hello hsm') : sha256(utf8ToBytes('x'));
        expectValid(curve, publicKey, message, await vault.sign(key, curve, message));
      },
    );

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

    it.each(curves)('%s: revealKey refuses, by design', async (curve) => {
      const { key } = await vault.createKey(curve);
      const error = await vault.revealKey(key).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toBe(HSM_KEY_NOT_EXPORTABLE_MESSAGE);
      // A catalogue refusal (FAILED_PRECONDITION) that carries nothing about the key.
      expect(error).toMatchObject({ errorCode: 'PRIVATE_KEY_NOT_EXPORTABLE', context: {} });
    });

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

    it('signs Ed25519 deterministically, over the empty message and a large one', async () => {
      const { key, publicKey } = await vault.createKey('CURVE_ED25519');
      for (const message of [new Uint8Array(0), new Uint8Array(65_536).fill(7)]) {
        const one = await vault.sign(key, 'CURVE_ED25519', message);
        expectValid('CURVE_ED25519', publicKey, message, one);
        expect(formatSignature(await vault.sign(key, 'CURVE_ED25519', message))).toEqual(
          formatSignature(one),
        );
      }
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
      await expect(vault.destroyKey(key)).resolves.toBe(false);
      await expect(vault.sign(key, 'CURVE_P256', new Uint8Array(32))).rejects.toThrow(opened);
      await expect(vault.revealKey(key)).rejects.toThrow(opened);
      const wrapped = await vault.importKey('CURVE_P256', p256.utils.randomSecretKey());
      await expect(vault.destroyKey(wrapped.key)).resolves.toBe(false);
    });
  });

  describe('imported keys (wrapped)', () => {
    it.each(curves)('%s: round-trips, and the sealed form holds no plaintext', async (curve) => {
      const privateKey =
        curve === 'CURVE_ED25519'
          ? ed25519.utils.randomSecretKey()
          : ecdsaOf(curve).utils.randomSecretKey();
      const { key, publicKey } = await vault.importKey(curve, privateKey);
      expect(key).toMatch(new RegExp(`^kp11\\.wrapped\\.${shortName[curve]}\\.[A-Za-z0-9_-]+$`));
      const body = Buffer.from(key.split('.')[3]!, 'base64url');
      expect(body.toString('hex')).not.toContain(bytesToHex(privateKey));
      expect(body.length).toBe(12 + 32 + publicKey.length + 16);
      expect(bytesToHex(await vault.revealKey(key))).toBe(bytesToHex(privateKey));
      const message = sha256(privateKey);
      expectValid(curve, publicKey, message, await vault.sign(key, curve, message));
    });

    it.each([
      ['zero', 'CURVE_SECP256K1', new Uint8Array(32)],
      ['the order n', 'CURVE_P256', hexToBytes(P256_N.toString(16))],
      ['31 bytes', 'CURVE_ED25519', new Uint8Array(31).fill(1)],
    ] as const)('refuses to import %s (INVALID_PRIVATE_KEY)', async (_name, curve, privateKey) => {
      await expect(vault.importKey(curve, privateKey)).rejects.toMatchObject({
        key: 'INVALID_PRIVATE_KEY',
      });
    });

    it('refuses an unknown curve', async () => {
      await expect(vault.createKey('CURVE_NOPE' as 'CURVE_P256')).rejects.toMatchObject({
        key: 'INVALID_CURVE',
      });
      await expect(
        vault.importKey('CURVE_NOPE' as 'CURVE_P256', new Uint8Array(32).fill(1)),
      ).rejects.toMatchObject({ key: 'INVALID_CURVE' });
    });
  });

  describe('signing input', () => {
    it('refuses an ECDSA message that is not a 32-byte digest', async () => {
      const { key } = await vault.createKey('CURVE_SECP256K1');
      for (const size of [0, 31, 33]) {
        await expect(
          vault.sign(key, 'CURVE_SECP256K1', new Uint8Array(size)),
        ).rejects.toMatchObject({ key: 'INVALID_PAYLOAD' });
      }
    });

    it('refuses a message that is not bytes and an unknown curve', async () => {
      const { key } = await vault.createKey('CURVE_ED25519');
      await expect(
        vault.sign(key, 'CURVE_ED25519', 'hi' as unknown as Uint8Array),
      ).rejects.toMatchObject({ key: 'INVALID_PAYLOAD' });
      await expect(
        vault.sign(key, 'CURVE_Q' as 'CURVE_P256', new Uint8Array(32)),
      ).rejects.toMatchObject({ key: 'INVALID_CURVE' });
    });
  });

  describe('the same vectors as the software vault (wrapped keys sign in process)', () => {
    it.each(vectors.p256.vectors)('RFC 6979 P-256 "$message", low-S', async ({ message, r, s }) => {
      const { key, publicKey } = await vault.importKey(
        'CURVE_P256',
        hexToBytes(vectors.p256.privateKey),
      );
      expect(bytesToHex(p256.Point.fromBytes(publicKey).toBytes(false))).toBe(
        `04${vectors.p256.publicKeyX}${vectors.p256.publicKeyY}`,
      );
      const digest = sha256(utf8ToBytes(message));
      const signature = await vault.sign(key, 'CURVE_P256', digest);
      expect(bytesToHex(signature.r)).toBe(r);
      const rfcS = BigInt(`0x${s}`);
      const lowS = rfcS > P256_N >> 1n ? P256_N - rfcS : rfcS;
      expect(BigInt(`0x${bytesToHex(signature.s)}`)).toBe(lowS);
      const recovered = new p256.Signature(BigInt(`0x${r}`), lowS, signature.recovery);
      expect(bytesToHex(recovered.recoverPublicKey(digest).toBytes(true))).toBe(
        bytesToHex(publicKey),
      );
    });

    it.each(vectors.secp256k1.vectors)('RFC 6979 secp256k1 $message', async (vector) => {
      const { key } = await vault.importKey('CURVE_SECP256K1', hexToBytes(vector.privateKey));
      const signature = await vault.sign(
        key,
        'CURVE_SECP256K1',
        sha256(utf8ToBytes(vector.message)),
      );
      expect(bytesToHex(signature.r)).toBe(vector.r);
      expect(bytesToHex(signature.s)).toBe(vector.s);
    });

    it.each(vectors.ed25519.vectors)('RFC 8032 Ed25519 "$message"', async (vector) => {
      const { key, publicKey } = await vault.importKey(
        'CURVE_ED25519',
        hexToBytes(vector.privateKey),
      );
      expect(bytesToHex(publicKey)).toBe(vector.publicKey);
      const signature = await vault.sign(key, 'CURVE_ED25519', hexToBytes(vector.message));
      expect(signature.recovery).toBeUndefined();
      expect(bytesToHex(signature.r) + bytesToHex(signature.s)).toBe(vector.signature);
    });
  });

  describe('sealed secrets', () => {
    it('a seed is not a key, and a key is not a seed', async () => {
      const seed = await vault.importSeed(ABANDON);
      const hsmKey = await vault.createKey('CURVE_SECP256K1');
      const wrapped = await vault.deriveKey(seed, 'CURVE_SECP256K1', "m/44'/60'/0'/0/0");
      await expect(vault.sign(seed, 'CURVE_SECP256K1', new Uint8Array(32))).rejects.toThrow(opened);
      await expect(vault.revealKey(seed)).rejects.toThrow(opened);
      for (const { key } of [hsmKey, wrapped]) {
        await expect(vault.deriveKey(key, 'CURVE_SECP256K1', 'm/0')).rejects.toThrow(opened);
        await expect(vault.revealMnemonic(key)).rejects.toThrow(opened);
      }
    });

    it('a key of one curve does not sign as another', async () => {
      const hsmKey = await vault.createKey('CURVE_SECP256K1');
      const wrapped = await vault.importKey('CURVE_SECP256K1', secp256k1.utils.randomSecretKey());
      for (const { key } of [hsmKey, wrapped]) {
        await expect(vault.sign(key, 'CURVE_P256', new Uint8Array(32))).rejects.toThrow(opened);
        await expect(vault.sign(key, 'CURVE_ED25519', new Uint8Array(32))).rejects.toThrow(opened);
      }
      // Relabelling the curve in the string does not help: the token key or the AAD says no.
      const relabelled = hsmKey.key.replace('.secp256k1.', '.p256.');
      await expect(vault.sign(relabelled, 'CURVE_P256', new Uint8Array(32))).rejects.toThrow(
        opened,
      );
      const rewrapped = wrapped.key.replace('.secp256k1.', '.p256.');
      await expect(vault.sign(rewrapped, 'CURVE_P256', new Uint8Array(32))).rejects.toThrow(opened);
      await expect(vault.revealKey(rewrapped)).rejects.toThrow(opened);
    });

    it("another token's vault opens nothing: seeds, wrapped keys, token keys", async () => {
      const seed = await vault.importSeed(ABANDON);
      const wrapped = await vault.importKey('CURVE_ED25519', new Uint8Array(32).fill(9));
      const hsmKey = await vault.createKey('CURVE_ED25519');
      await expect(other.revealMnemonic(seed)).rejects.toThrow(opened);
      await expect(other.deriveKey(seed, 'CURVE_ED25519', "m/0'")).rejects.toThrow(opened);
      await expect(other.revealKey(wrapped.key)).rejects.toThrow(opened);
      await expect(other.sign(wrapped.key, 'CURVE_ED25519', new Uint8Array(8))).rejects.toThrow(
        opened,
      );
      await expect(other.sign(hsmKey.key, 'CURVE_ED25519', new Uint8Array(8))).rejects.toThrow(
        opened,
      );
      await expect(other.revealKey(hsmKey.key)).rejects.toThrow(opened);
      // …while the other token's own secrets work there.
      const own = await other.importSeed(ABANDON);
      await expect(other.revealMnemonic(own)).resolves.toBe(ABANDON);
    });

    it('an unknown key id opens nothing', async () => {
      const { key } = await vault.createKey('CURVE_P256');
      const forged = `${key.slice(0, -1)}${key.endsWith('0') ? '1' : '0'}`;
      await expect(vault.sign(forged, 'CURVE_P256', new Uint8Array(32))).rejects.toThrow(opened);
      await expect(vault.revealKey(forged)).rejects.toThrow(opened);
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
    ])('refuses %s with a plain Error', async (_name, sealed) => {
      for (const attempt of [
        () => vault.revealKey(sealed),
        () => vault.revealMnemonic(sealed),
        () => vault.sign(sealed, 'CURVE_P256', new Uint8Array(32)),
        () => vault.deriveKey(sealed, 'CURVE_P256', 'm/0'),
      ]) {
        const error = await attempt().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(Error);
        expect((error as Error).message).toBe(opened);
        expect(error).not.toHaveProperty('key');
      }
    });
  });
});

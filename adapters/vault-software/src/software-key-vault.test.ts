import { deriveAddress, formatSignature, preparePayload } from '@keyhold/keys';
import { ed25519 } from '@noble/curves/ed25519.js';
import { p256 } from '@noble/curves/nist.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { recoverAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import vectors from './__fixtures__/deterministic-signatures.json' with { type: 'json' };
import { generateMasterKey, masterKeyFromHex } from './master-key.js';
import { SoftwareKeyVault } from './software-key-vault.js';

const ABANDON =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const P256_N = p256.Point.Fn.ORDER;
const opened = 'sealed secret could not be opened';
const vault = new SoftwareKeyVault({ masterKey: generateMasterKey() });

describe('construction', () => {
  it.each([0, 16, 31, 33, 64])('refuses a %i-byte master key', (size) => {
    expect(() => new SoftwareKeyVault({ masterKey: new Uint8Array(size) })).toThrow(
      'master key must be 32 bytes',
    );
  });

  it('refuses a missing master key, and says it is a software vault', () => {
    expect(() => new SoftwareKeyVault({} as { masterKey: Uint8Array })).toThrow();
    expect(vault.kind).toBe('software');
  });

  it('keeps its own copy of the master key', async () => {
    const masterKey = generateMasterKey();
    const own = new SoftwareKeyVault({ masterKey });
    const { key } = await own.createKey('CURVE_P256');
    masterKey.fill(0);
    await expect(own.revealKey(key)).resolves.toHaveLength(32);
  });
});

describe('master keys', () => {
  it('are 32 random bytes', () => {
    expect(generateMasterKey()).toHaveLength(32);
    expect(bytesToHex(generateMasterKey())).not.toBe(bytesToHex(generateMasterKey()));
  });

  it('read from hex, with an optional 0x and whitespace', () => {
    const hex = 'ab'.repeat(32);
    expect(bytesToHex(masterKeyFromHex(hex))).toBe(hex);
    expect(bytesToHex(masterKeyFromHex(`0x${hex.toUpperCase()}\n`))).toBe(hex);
  });

  it.each([
    '',
    'ab'.repeat(31),
    'ab'.repeat(33),
    `${'ab'.repeat(31)}zz`,
    `${'ab'.repeat(16)} ${'ab'.repeat(16)}`,
  ])('refuses %j without echoing it', (bad) => {
    expect(() => masterKeyFromHex(bad)).toThrow('master key must be 64 hex characters (32 bytes)');
  });
});

describe('seeds', () => {
  it.each([12, 15, 18, 21, 24])(
    'creates a %i-word seed and reveals its mnemonic',
    async (words) => {
      const seed = await vault.createSeed(words);
      const mnemonic = await vault.revealMnemonic(seed);
      expect(mnemonic.split(' ')).toHaveLength(words);
    },
  );

  it.each([0, 11, 13, 25])('refuses %i words with INVALID_MNEMONIC_LENGTH', async (words) => {
    await expect(vault.createSeed(words)).rejects.toMatchObject({ key: 'INVALID_MNEMONIC_LENGTH' });
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

  it('seals with a fresh nonce each time, and never in the clear', async () => {
    const [a, b] = await Promise.all([vault.importSeed(ABANDON), vault.importSeed(ABANDON)]);
    expect(a).not.toBe(b);
    expect(a).toMatch(/^ksw1\.[A-Za-z0-9_-]+$/);
    const body = Buffer.from(a.slice(5), 'base64url').toString('hex');
    expect(body).not.toContain('5eb00bbddcf069084889a8ab9155568165f5c453'); // the BIP39 seed
    expect(body.length / 2).toBe(12 + 16 + 64 + 16); // nonce ‖ entropy ‖ seed ‖ tag
  });
});

describe('deriveKey on "abandon … about"', () => {
  it('derives the well-known Ethereum and Solana accounts', async () => {
    const seed = await vault.importSeed(ABANDON);
    const eth = await vault.deriveKey(seed, 'CURVE_SECP256K1', "m/44'/60'/0'/0/0");
    expect(deriveAddress('ADDRESS_FORMAT_ETHEREUM', 'CURVE_SECP256K1', eth.publicKey)).toBe(
      '0x9858EfFD232B4033E47d90003D41EC34EcaEda94',
    );
    expect(bytesToHex(await vault.revealKey(eth.key))).toBe(
      '1ab42cc412b618bdea3a599e3c9bae199ebf030895b039e9db1e30dafb12b727',
    );
    const sol = await vault.deriveKey(seed, 'CURVE_ED25519', "m/44'/501'/0'/0'");
    expect(deriveAddress('ADDRESS_FORMAT_SOLANA', 'CURVE_ED25519', sol.publicKey)).toBe(
      'HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk',
    );
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
    await expect(vault.deriveKey(seed, 'CURVE_ED25519', "m/44'/501'/0'/0")).rejects.toMatchObject({
      key: 'INVALID_PATH',
    });
    await expect(vault.deriveKey(seed, 'CURVE_SECP256K1', 'm/x')).rejects.toMatchObject({
      key: 'INVALID_PATH',
    });
    await expect(vault.deriveKey(seed, 'CURVE_X' as 'CURVE_P256', "m/44'")).rejects.toMatchObject({
      key: 'INVALID_CURVE',
    });
  });
});

describe('keys', () => {
  it.each(['CURVE_SECP256K1', 'CURVE_P256', 'CURVE_ED25519'] as const)(
    'creates a %s key whose public key matches its private key',
    async (curve) => {
      const { key, publicKey } = await vault.createKey(curve);
      const privateKey = await vault.revealKey(key);
      const expected =
        curve === 'CURVE_ED25519'
          ? ed25519.getPublicKey(privateKey)
          : (curve === 'CURVE_P256' ? p256 : secp256k1).getPublicKey(privateKey, true);
      expect(bytesToHex(publicKey)).toBe(bytesToHex(expected));
    },
  );

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
  });
});

describe('signing', () => {
  it('refuses an ECDSA message that is not a 32-byte digest', async () => {
    const { key } = await vault.createKey('CURVE_SECP256K1');
    for (const size of [0, 31, 33]) {
      await expect(vault.sign(key, 'CURVE_SECP256K1', new Uint8Array(size))).rejects.toMatchObject({
        key: 'INVALID_PAYLOAD',
      });
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

  describe('RFC 6979 deterministic P-256 (A.2.5, SHA-256)', () => {
    it.each(vectors.p256.vectors)('message "$message"', async ({ message, r, s }) => {
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
      expect(lowS === rfcS).toBe(message === 'test'); // "sample" is high-S in the RFC
      // The recovery id recovers the RFC's public key.
      const recovered = new p256.Signature(
        BigInt(`0x${r}`),
        lowS,
        signature.recovery,
      ).recoverPublicKey(digest);
      expect(bytesToHex(recovered.toBytes(true))).toBe(bytesToHex(publicKey));
    });
  });

  describe('RFC 6979 deterministic secp256k1 (SHA-256, low-S)', () => {
    it.each(vectors.secp256k1.vectors)('$message', async ({ privateKey, message, r, s }) => {
      const { key } = await vault.importKey('CURVE_SECP256K1', hexToBytes(privateKey));
      const signature = await vault.sign(key, 'CURVE_SECP256K1', sha256(utf8ToBytes(message)));
      expect(bytesToHex(signature.r)).toBe(r);
      expect(bytesToHex(signature.s)).toBe(s);
    });
  });

  describe('RFC 8032 Ed25519', () => {
    it.each(vectors.ed25519.vectors)('message "$message"', async (vector) => {
      const { key, publicKey } = await vault.importKey(
        'CURVE_ED25519',
        hexToBytes(vector.privateKey),
      );
      expect(bytesToHex(publicKey)).toBe(vector.publicKey);
      const signature = await vault.sign(key, 'CURVE_ED25519', hexToBytes(vector.message));
      expect(signature.recovery).toBeUndefined();
      expect(bytesToHex(signature.r) + bytesToHex(signature.s)).toBe(vector.signature);
      expect(formatSignature(signature).v).toBe('00');
    });
  });
});

describe('sealed secrets', () => {
  it('a seed is not a key, and a key is not a seed', async () => {
    const seed = await vault.importSeed(ABANDON);
    const { key } = await vault.createKey('CURVE_SECP256K1');
    await expect(vault.sign(seed, 'CURVE_SECP256K1', new Uint8Array(32))).rejects.toThrow(opened);
    await expect(vault.revealKey(seed)).rejects.toThrow(opened);
    await expect(vault.deriveKey(key, 'CURVE_SECP256K1', 'm/0')).rejects.toThrow(opened);
    await expect(vault.revealMnemonic(key)).rejects.toThrow(opened);
  });

  it('a key of one curve does not sign as another', async () => {
    const { key } = await vault.createKey('CURVE_SECP256K1');
    await expect(vault.sign(key, 'CURVE_P256', new Uint8Array(32))).rejects.toThrow(opened);
    await expect(vault.sign(key, 'CURVE_ED25519', new Uint8Array(32))).rejects.toThrow(opened);
  });

  it('another master key opens nothing', async () => {
    const other = new SoftwareKeyVault({ masterKey: generateMasterKey() });
    const seed = await vault.importSeed(ABANDON);
    const { key } = await vault.createKey('CURVE_ED25519');
    await expect(other.revealMnemonic(seed)).rejects.toThrow(opened);
    await expect(other.revealKey(key)).rejects.toThrow(opened);
    await expect(other.sign(key, 'CURVE_ED25519', new Uint8Array(8))).rejects.toThrow(opened);
  });

  it.each([
    ['the empty string', ''],
    ['no prefix', 'AAAA'],
    ['another version', 'ksw2.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
    ['too short', 'ksw1.AAAA'],
    ['not base64url', `ksw1.${'+/=='.repeat(20)}`],
    ['a number', 42 as unknown as string],
  ])('refuses %s with a plain Error', async (_name, sealed) => {
    const error = await vault.revealKey(sealed).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe(opened);
    expect(error).not.toHaveProperty('key');
  });
});

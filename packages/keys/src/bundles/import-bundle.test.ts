import { isKeyholdError, type KeyholdError } from '@keyhold/protocol';
import { ed25519 } from '@noble/curves/ed25519.js';
import { p256 } from '@noble/curves/nist.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, concatBytes, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { base58 } from '@scure/base';
import { encryptPrivateKeyToBundle, encryptWalletToBundle } from '@turnkey/crypto';
import { describe, expect, it } from 'vitest';
import wallets from '../__fixtures__/known-wallets.json' with { type: 'json' };
import { deriveAddress } from '../address.js';
import { deriveKeyFromSeed } from '../hd-derivation.js';
import { mnemonicToSeedSync } from '../mnemonic.js';
import {
  bundleSignerPublicKey,
  createImportTarget,
  deriveImportTargetKey,
  MAX_IMPORT_CIPHERTEXT_BYTES,
  openImportBundle,
  parseImportedMnemonic,
  parseImportedPrivateKey,
} from './index.js';

const ORG = '6f4c3f1e-5a63-4c4e-9a57-0d7d3c1b2a10';
const USER = '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
const OTHER = 'c0ffee00-1111-4222-8333-444455556666';
const signer = { privateKey: p256.utils.randomSecretKey() };
const signerPublicKey = bundleSignerPublicKey(signer);
const ETHEREUM = { ...wallets.accounts[0]!, privateKey: wallets.accounts[0]!.privateKey! };
const SOLANA = wallets.accounts[1]!;

function target() {
  return createImportTarget({ organizationId: ORG, userId: USER, signer });
}

function clientWallet(importBundle: string, mnemonic: string, ids = { org: ORG, user: USER }) {
  return encryptWalletToBundle({
    mnemonic,
    importBundle,
    organizationId: ids.org,
    userId: ids.user,
    dangerouslyOverrideSignerPublicKey: signerPublicKey,
  });
}

function clientKey(importBundle: string, privateKey: string, keyFormat: 'HEXADECIMAL' | 'SOLANA') {
  return encryptPrivateKeyToBundle({
    privateKey,
    keyFormat,
    importBundle,
    organizationId: ORG,
    userId: USER,
    dangerouslyOverrideSignerPublicKey: signerPublicKey,
  });
}

async function refusal(promise: Promise<unknown>): Promise<KeyholdError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isKeyholdError(error), String(error)).toBe(true);
  return error as KeyholdError;
}

describe('@turnkey/crypto encrypt*ToBundle → openImportBundle', () => {
  it('a wallet: encryptWalletToBundle, then the mnemonic derives the known addresses', async () => {
    const { importBundle, targetPrivateKey } = target();
    const encryptedBundle = await clientWallet(importBundle, wallets.mnemonic);
    const mnemonic = parseImportedMnemonic(
      await openImportBundle({ encryptedBundle, targetPrivateKey }),
    );
    expect(mnemonic).toBe(wallets.mnemonic);
    const seed = mnemonicToSeedSync(mnemonic);
    const eth = deriveKeyFromSeed(seed, 'CURVE_SECP256K1', ETHEREUM.path);
    expect(deriveAddress('ADDRESS_FORMAT_ETHEREUM', 'CURVE_SECP256K1', eth.publicKey)).toBe(
      ETHEREUM.address,
    );
    const sol = deriveKeyFromSeed(seed, 'CURVE_ED25519', SOLANA.path);
    expect(deriveAddress('ADDRESS_FORMAT_SOLANA', 'CURVE_ED25519', sol.publicKey)).toBe(
      SOLANA.address,
    );
  });

  it('a pasted mnemonic with stray spaces and capitals imports as the same wallet', async () => {
    const { importBundle, targetPrivateKey } = target();
    const encryptedBundle = await clientWallet(
      importBundle,
      `  ${wallets.mnemonic.toUpperCase().replaceAll(' ', '  ')}\n`,
    );
    expect(
      parseImportedMnemonic(await openImportBundle({ encryptedBundle, targetPrivateKey })),
    ).toBe(wallets.mnemonic);
  });

  it.each([
    ['without 0x', ''],
    ['with 0x', '0x'],
  ])('a secp256k1 key, keyFormat HEXADECIMAL %s', async (_, prefix) => {
    const { importBundle, targetPrivateKey } = target();
    const encryptedBundle = await clientKey(
      importBundle,
      `${prefix}${ETHEREUM.privateKey}`,
      'HEXADECIMAL',
    );
    const key = parseImportedPrivateKey(
      'CURVE_SECP256K1',
      await openImportBundle({ encryptedBundle, targetPrivateKey }),
    );
    expect(bytesToHex(key)).toBe(ETHEREUM.privateKey);
    expect(
      deriveAddress('ADDRESS_FORMAT_ETHEREUM', 'CURVE_SECP256K1', secp256k1.getPublicKey(key)),
    ).toBe(ETHEREUM.address);
  });

  it('a P-256 key, keyFormat HEXADECIMAL', async () => {
    const { importBundle, targetPrivateKey } = target();
    const privateKey = p256.utils.randomSecretKey();
    const encryptedBundle = await clientKey(importBundle, bytesToHex(privateKey), 'HEXADECIMAL');
    const plaintext = await openImportBundle({ encryptedBundle, targetPrivateKey });
    expect(parseImportedPrivateKey('CURVE_P256', plaintext)).toEqual(privateKey);
  });

  it('a Solana keypair, keyFormat SOLANA: the client sends the 32-byte seed', async () => {
    const { importBundle, targetPrivateKey } = target();
    const key = deriveKeyFromSeed(
      mnemonicToSeedSync(wallets.mnemonic),
      'CURVE_ED25519',
      SOLANA.path,
    );
    const solanaKeypair = base58.encode(concatBytes(key.privateKey, key.publicKey));
    const encryptedBundle = await clientKey(importBundle, solanaKeypair, 'SOLANA');
    const plaintext = await openImportBundle({ encryptedBundle, targetPrivateKey });
    expect(plaintext).toHaveLength(32);
    const seed = parseImportedPrivateKey('CURVE_ED25519', plaintext);
    expect(
      deriveAddress('ADDRESS_FORMAT_SOLANA', 'CURVE_ED25519', ed25519.getPublicKey(seed)),
    ).toBe(SOLANA.address);
  });

  it('the encryptedBundle is the client’s {encappedPublic (uncompressed), ciphertext}', async () => {
    const { importBundle } = target();
    const encryptedBundle = JSON.parse(await clientWallet(importBundle, wallets.mnemonic));
    expect(Object.keys(encryptedBundle)).toEqual(['encappedPublic', 'ciphertext']);
    expect(encryptedBundle.encappedPublic).toMatch(/^04[0-9a-f]{128}$/);
  });

  it('a compressed encappedPublic is accepted as well', async () => {
    const { importBundle, targetPrivateKey } = target();
    const bundle = JSON.parse(await clientWallet(importBundle, wallets.mnemonic));
    const compressed = bytesToHex(
      p256.Point.fromBytes(hexToBytes(bundle.encappedPublic)).toBytes(true),
    );
    const encryptedBundle = JSON.stringify({ ...bundle, encappedPublic: compressed });
    expect(
      parseImportedMnemonic(await openImportBundle({ encryptedBundle, targetPrivateKey })),
    ).toBe(wallets.mnemonic);
  });
});

describe('the importBundle wire shape', () => {
  it('is {version, data, dataSignature, enclaveQuorumPublic} with data = hex of {targetPublic, organizationId, userId}', () => {
    const { importBundle, targetPrivateKey, targetPublicKey } = target();
    const envelope = JSON.parse(importBundle);
    expect(Object.keys(envelope)).toEqual([
      'version',
      'data',
      'dataSignature',
      'enclaveQuorumPublic',
    ]);
    expect(envelope.version).toBe('v1.0.0');
    expect(envelope.enclaveQuorumPublic).toBe(signerPublicKey);
    const dataText = new TextDecoder().decode(hexToBytes(envelope.data));
    const data = JSON.parse(dataText);
    expect(Object.keys(data)).toEqual(['targetPublic', 'organizationId', 'userId']);
    expect(data).toEqual({ targetPublic: targetPublicKey, organizationId: ORG, userId: USER });
    expect(data.targetPublic).toMatch(/^04[0-9a-f]{128}$/);
    expect(data.targetPublic).toBe(bytesToHex(p256.getPublicKey(targetPrivateKey, false)));
    expect(
      p256.verify(
        hexToBytes(envelope.dataSignature),
        sha256(hexToBytes(envelope.data)),
        hexToBytes(signerPublicKey),
        { prehash: false, format: 'der' },
      ),
    ).toBe(true);
  });

  it('every INIT_IMPORT gets a new target key', () => {
    const a = target();
    const b = target();
    expect(a.targetPublicKey).not.toBe(b.targetPublicKey);
    expect(bytesToHex(a.targetPrivateKey)).not.toBe(bytesToHex(b.targetPrivateKey));
  });

  it('empty organizationId or userId is a fault of the caller', () => {
    expect(() => createImportTarget({ organizationId: '', userId: USER, signer })).toThrow(
      TypeError,
    );
    expect(() => createImportTarget({ organizationId: ORG, userId: '', signer })).toThrow(
      TypeError,
    );
  });
});

describe('what the client refuses', () => {
  it('an importBundle for another organization', async () => {
    const { importBundle } = target();
    await expect(
      clientWallet(importBundle, wallets.mnemonic, { org: OTHER, user: USER }),
    ).rejects.toThrow(/organization id does not match/);
  });

  it('an importBundle for another user', async () => {
    const { importBundle } = target();
    await expect(
      clientWallet(importBundle, wallets.mnemonic, { org: ORG, user: OTHER }),
    ).rejects.toThrow(/user id does not match/);
    await expect(
      encryptPrivateKeyToBundle({
        privateKey: ETHEREUM.privateKey,
        keyFormat: 'HEXADECIMAL',
        importBundle,
        organizationId: ORG,
        userId: OTHER,
        dangerouslyOverrideSignerPublicKey: signerPublicKey,
      }),
    ).rejects.toThrow(/user id does not match/);
  });

  it('an importBundle signed by another key than the pinned one', async () => {
    const { importBundle } = createImportTarget({
      organizationId: ORG,
      userId: USER,
      signer: { privateKey: p256.utils.randomSecretKey() },
    });
    await expect(clientWallet(importBundle, wallets.mnemonic)).rejects.toThrow(
      /does not match signer key from bundle/,
    );
    // …and the production key when no override is given.
    await expect(
      encryptWalletToBundle({
        mnemonic: wallets.mnemonic,
        importBundle: target().importBundle,
        organizationId: ORG,
        userId: USER,
      }),
    ).rejects.toThrow(/does not match signer key from bundle/);
  });

  it('a targetPublic swapped after signing', async () => {
    const envelope = JSON.parse(target().importBundle);
    const data = JSON.parse(new TextDecoder().decode(hexToBytes(envelope.data)));
    const attacker = bytesToHex(p256.getPublicKey(p256.utils.randomSecretKey(), false));
    const importBundle = JSON.stringify({
      ...envelope,
      data: bytesToHex(utf8ToBytes(JSON.stringify({ ...data, targetPublic: attacker }))),
    });
    await expect(clientWallet(importBundle, wallets.mnemonic)).rejects.toThrow(
      /failed to verify enclave signature/,
    );
  });
});

describe('what openImportBundle refuses (REQUEST_INVALID, no plaintext)', () => {
  async function genuine() {
    const t = target();
    const encryptedBundle = await clientWallet(t.importBundle, wallets.mnemonic);
    return { ...t, bundle: JSON.parse(encryptedBundle) as Record<string, string> };
  }

  function assertClean(error: KeyholdError, ...secrets: string[]) {
    expect(error.key).toBe('REQUEST_INVALID');
    expect(error.message).toBe('bad request body');
    const everything = `${error.message} ${error.stack} ${JSON.stringify(error.toStatus())}`;
    for (const secret of secrets) expect(everything).not.toContain(secret);
    expect(everything).not.toContain('abandon');
  }

  it('a tampered ciphertext (every byte position, one bit flipped)', async () => {
    const { bundle, targetPrivateKey } = await genuine();
    const ciphertext = hexToBytes(bundle.ciphertext!);
    for (let i = 0; i < ciphertext.length; i += 7) {
      const flipped = Uint8Array.from(ciphertext);
      flipped[i]! ^= 0x01;
      const error = await refusal(
        openImportBundle({
          encryptedBundle: JSON.stringify({ ...bundle, ciphertext: bytesToHex(flipped) }),
          targetPrivateKey,
        }),
      );
      assertClean(error, bytesToHex(targetPrivateKey), bundle.ciphertext!);
      expect(error.context).toEqual({
        field: 'encryptedBundle',
        reason: expect.stringMatching(/does not decrypt/),
      });
    }
  });

  it('a truncated ciphertext (tag cut short)', async () => {
    const { bundle, targetPrivateKey } = await genuine();
    const error = await refusal(
      openImportBundle({
        encryptedBundle: JSON.stringify({ ...bundle, ciphertext: bundle.ciphertext!.slice(0, -2) }),
        targetPrivateKey,
      }),
    );
    assertClean(error, bytesToHex(targetPrivateKey));
  });

  it('another valid encappedPublic', async () => {
    const { bundle, targetPrivateKey } = await genuine();
    const other = bytesToHex(p256.getPublicKey(p256.utils.randomSecretKey(), false));
    const error = await refusal(
      openImportBundle({
        encryptedBundle: JSON.stringify({ ...bundle, encappedPublic: other }),
        targetPrivateKey,
      }),
    );
    assertClean(error, bytesToHex(targetPrivateKey));
  });

  it('a bundle encrypted to another import target', async () => {
    const { bundle } = await genuine();
    const other = target();
    const error = await refusal(
      openImportBundle({
        encryptedBundle: JSON.stringify(bundle),
        targetPrivateKey: other.targetPrivateKey,
      }),
    );
    assertClean(error, bytesToHex(other.targetPrivateKey));
  });

  it.each([
    ['not JSON', () => 'not json', 'encryptedBundle'],
    ['a JSON array', () => '[]', 'encryptedBundle'],
    ['JSON null', () => 'null', 'encryptedBundle'],
    ['a JSON string', () => '"abc"', 'encryptedBundle'],
    [
      'missing encappedPublic',
      (b: Record<string, string>) => JSON.stringify({ ciphertext: b.ciphertext }),
      'encryptedBundle.encappedPublic',
    ],
    [
      'missing ciphertext',
      (b: Record<string, string>) => JSON.stringify({ encappedPublic: b.encappedPublic }),
      'encryptedBundle.ciphertext',
    ],
    [
      'a non-hex ciphertext',
      (b: Record<string, string>) => JSON.stringify({ ...b, ciphertext: 'xyz0' }),
      'encryptedBundle.ciphertext',
    ],
    [
      'an odd-length ciphertext',
      (b: Record<string, string>) => JSON.stringify({ ...b, ciphertext: `${b.ciphertext}0` }),
      'encryptedBundle.ciphertext',
    ],
    [
      'a ciphertext shorter than the tag',
      (b: Record<string, string>) => JSON.stringify({ ...b, ciphertext: '00'.repeat(15) }),
      'encryptedBundle.ciphertext',
    ],
    [
      'a ciphertext longer than any secret',
      (b: Record<string, string>) =>
        JSON.stringify({ ...b, ciphertext: '00'.repeat(MAX_IMPORT_CIPHERTEXT_BYTES + 1) }),
      'encryptedBundle.ciphertext',
    ],
    [
      'a numeric encappedPublic',
      (b: Record<string, string>) => JSON.stringify({ ...b, encappedPublic: 4 }),
      'encryptedBundle.encappedPublic',
    ],
    [
      'an encappedPublic of the wrong length',
      (b: Record<string, string>) =>
        JSON.stringify({ ...b, encappedPublic: b.encappedPublic!.slice(0, 100) }),
      'encryptedBundle.encappedPublic',
    ],
    [
      'an encappedPublic off the curve',
      (b: Record<string, string>) =>
        JSON.stringify({ ...b, encappedPublic: `04${'11'.repeat(64)}` }),
      'encryptedBundle.encappedPublic',
    ],
  ])('%s', async (_, make, field) => {
    const { bundle, targetPrivateKey } = await genuine();
    const error = await refusal(
      openImportBundle({ encryptedBundle: make(bundle), targetPrivateKey }),
    );
    assertClean(error, bytesToHex(targetPrivateKey));
    expect(error.context.field).toBe(field);
    expect(error.context.reason).toEqual(expect.any(String));
  });

  it('an encryptedBundle that is not a string', async () => {
    const error = await refusal(
      openImportBundle({
        encryptedBundle: { encappedPublic: 'x' } as unknown as string,
        targetPrivateKey: target().targetPrivateKey,
      }),
    );
    expect(error.key).toBe('REQUEST_INVALID');
  });

  it('an invalid target private key is a fault of the caller', async () => {
    const { bundle } = await genuine();
    await expect(
      openImportBundle({
        encryptedBundle: JSON.stringify(bundle),
        targetPrivateKey: new Uint8Array(32),
      }),
    ).rejects.toBeInstanceOf(TypeError);
  });
});

describe('parseImportedMnemonic', () => {
  const refuse = (bytes: Uint8Array) => {
    try {
      parseImportedMnemonic(bytes);
    } catch (error) {
      expect(isKeyholdError(error)).toBe(true);
      return error as KeyholdError;
    }
    throw new Error('accepted');
  };

  it('refuses a bad checksum, an unknown word, a wrong length, empty input and non-UTF-8, without echoing it', () => {
    const words = wallets.mnemonic.split(' ');
    const cases = [
      [...words.slice(0, 11), 'abandon'].join(' '), // checksum
      [...words.slice(0, 11), 'keyholdx'].join(' '), // not a BIP39 word
      words.slice(0, 9).join(' '), // 9 words
      '',
    ].map((text) => utf8ToBytes(text));
    cases.push(Uint8Array.of(0xff, 0xfe, 0x61));
    for (const bytes of cases) {
      const error = refuse(bytes);
      expect(error.key).toBe('INVALID_MNEMONIC');
      expect(error.message).toBe('invalid mnemonic');
      const status = JSON.stringify(error.toStatus());
      expect(status).not.toContain('abandon');
      expect(status).not.toContain('keyholdx');
    }
  });
});

describe('parseImportedPrivateKey', () => {
  const refuse = (curve: string, bytes: Uint8Array) => {
    try {
      parseImportedPrivateKey(curve as 'CURVE_P256', bytes);
    } catch (error) {
      expect(isKeyholdError(error)).toBe(true);
      return error as KeyholdError;
    }
    throw new Error('accepted');
  };
  const n = (hex: string) => hexToBytes(hex);
  const SECP256K1_N = 'fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141';
  const P256_N = 'ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551';

  it.each([
    ['CURVE_SECP256K1', '31 bytes', new Uint8Array(31)],
    ['CURVE_SECP256K1', '33 bytes', new Uint8Array(33)],
    ['CURVE_SECP256K1', 'zero', new Uint8Array(32)],
    ['CURVE_SECP256K1', 'n', n(SECP256K1_N)],
    ['CURVE_P256', 'n', n(P256_N)],
    ['CURVE_P256', '64 bytes', new Uint8Array(64)],
    ['CURVE_ED25519', '31 bytes', new Uint8Array(31)],
    ['CURVE_ED25519', 'a 64-byte keypair whose halves do not match', new Uint8Array(64).fill(1)],
  ] as const)('%s refuses %s with INVALID_PRIVATE_KEY', (curve, _, bytes) => {
    const error = refuse(curve, bytes);
    expect(error.key).toBe('INVALID_PRIVATE_KEY');
    expect(error.message).toBe('invalid private key');
    expect(error.context.curve).toBe(curve);
    expect(JSON.stringify(error.toStatus())).not.toContain(bytesToHex(bytes));
  });

  it('an unknown curve is INVALID_CURVE', () => {
    expect(refuse('CURVE_X448', new Uint8Array(32).fill(1)).key).toBe('INVALID_CURVE');
  });

  it('accepts n-1, and a consistent 64-byte Ed25519 keypair (returning its seed)', () => {
    const nMinus1 = n(SECP256K1_N);
    nMinus1[31] = 0x40;
    expect(parseImportedPrivateKey('CURVE_SECP256K1', nMinus1)).toEqual(nMinus1);
    const seed = ed25519.utils.randomSecretKey();
    const keypair = concatBytes(seed, ed25519.getPublicKey(seed));
    expect(parseImportedPrivateKey('CURVE_ED25519', keypair)).toEqual(seed);
  });

  it('returns a copy, so the caller may wipe the opened plaintext', () => {
    const plaintext = p256.utils.randomSecretKey();
    const key = parseImportedPrivateKey('CURVE_P256', plaintext);
    plaintext.fill(0);
    expect(key.some((b) => b !== 0)).toBe(true);
  });
});

describe('deriveImportTargetKey', () => {
  it('is stable per (organization, user), differs across them, and opens what the client sealed', async () => {
    const secret = new Uint8Array(32).fill(7);
    const org = '11111111-1111-4111-8111-111111111111';
    const user = '22222222-2222-4222-8222-222222222222';
    const key = deriveImportTargetKey(secret, org, user);
    expect(deriveImportTargetKey(secret, org, user)).toEqual(key);
    expect(deriveImportTargetKey(secret, org, '33333333-3333-4333-8333-333333333333')).not.toEqual(
      key,
    );
    const signer = { privateKey: new Uint8Array(32).fill(9) };
    const { importBundle } = createImportTarget({
      organizationId: org,
      userId: user,
      signer,
      targetPrivateKey: key,
    });
    const mnemonic =
      'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
    const encryptedBundle = await encryptWalletToBundle({
      mnemonic,
      importBundle,
      userId: user,
      organizationId: org,
      dangerouslyOverrideSignerPublicKey: bundleSignerPublicKey(signer),
    });
    const plaintext = await openImportBundle({
      encryptedBundle,
      targetPrivateKey: deriveImportTargetKey(secret, org, user),
    });
    expect(parseImportedMnemonic(plaintext)).toBe(mnemonic);
  });
});

import { isKeyholdError, type KeyholdError } from '@keyhold/protocol';
import { p256 } from '@noble/curves/nist.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { createBase58check } from '@scure/base';
import { decryptCredentialBundle, generateP256KeyPair } from '@turnkey/crypto';
import { describe, expect, it } from 'vitest';
import { createCredentialBundle } from './index.js';

const base58check = createBase58check(sha256);

describe('createCredentialBundle → @turnkey/crypto decryptCredentialBundle', () => {
  it.each([
    ['uncompressed', 'publicKeyUncompressed'],
    ['compressed', 'publicKey'],
  ] as const)('a session private key for a %s target key', async (_, field) => {
    const client = generateP256KeyPair();
    const sessionKey = p256.utils.randomSecretKey();
    const credentialBundle = await createCredentialBundle({
      plaintext: sessionKey,
      targetPublicKey: client[field],
    });
    expect(decryptCredentialBundle(credentialBundle, client.privateKey)).toBe(
      bytesToHex(sessionKey),
    );
  });

  it('is base58check(compressed encapped key ‖ ciphertext ‖ tag)', async () => {
    const client = generateP256KeyPair();
    const plaintext = p256.utils.randomSecretKey();
    const credentialBundle = await createCredentialBundle({
      plaintext,
      targetPublicKey: client.publicKeyUncompressed,
    });
    const bytes = base58check.decode(credentialBundle);
    expect(bytes).toHaveLength(33 + plaintext.length + 16);
    expect([0x02, 0x03]).toContain(bytes[0]);
    expect(() => p256.Point.fromBytes(bytes.subarray(0, 33)).assertValidity()).not.toThrow();
  });

  it('another key cannot open it', async () => {
    const client = generateP256KeyPair();
    const credentialBundle = await createCredentialBundle({
      plaintext: p256.utils.randomSecretKey(),
      targetPublicKey: client.publicKey,
    });
    expect(() =>
      decryptCredentialBundle(credentialBundle, generateP256KeyPair().privateKey),
    ).toThrow();
  });

  it('refuses a malformed target key with INVALID_PUBLIC_KEY', async () => {
    const error = await createCredentialBundle({
      plaintext: new Uint8Array(32),
      targetPublicKey: `03${'ff'.repeat(32)}`,
    }).catch((e: unknown) => e);
    expect(isKeyholdError(error)).toBe(true);
    expect((error as KeyholdError).key).toBe('INVALID_PUBLIC_KEY');
  });
});

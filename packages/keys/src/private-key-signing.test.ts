import { ed25519 } from '@noble/curves/ed25519.js';
import { p256 } from '@noble/curves/nist.js';
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { taprootTweakPubkey } from '@scure/btc-signer/utils.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  assertSignableMessage,
  signTaprootWithPrivateKey,
  signWithPrivateKey,
} from './private-key-signing.js';
import { publicKeyFromPrivateKey } from './public-key.js';

const P256_N = p256.Point.CURVE().n;

describe('signWithPrivateKey', () => {
  it('P-256: RFC 6979 A.2.5 ("sample", SHA-256), normalized to low-S', () => {
    const key = hexToBytes('c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721');
    const signature = signWithPrivateKey(
      'CURVE_P256',
      key,
      publicKeyFromPrivateKey('CURVE_P256', key),
      sha256(utf8ToBytes('sample')),
    );
    expect(bytesToHex(signature.r)).toBe(
      'efd48b2aacb6a8fd1140dd9cd45e81d69d2c877b56aaf991c34d0ea84eaf3716',
    );
    // The RFC's s is F7CB1C94…CDA8, above n/2: the low-S form is n − s.
    const rfcS = 0xf7cb1c942d657c41d436c7a1b6e29f65f3e900dbb9aff4064dc4ab2f843acda8n;
    expect(BigInt(`0x${bytesToHex(signature.s)}`)).toBe(P256_N - rfcS);
  });

  it('secp256k1: the RFC 6979 vector for key 1 and sha256("Satoshi Nakamoto"), with its recovery id', () => {
    const key = hexToBytes(`${'00'.repeat(31)}01`);
    const publicKey = publicKeyFromPrivateKey('CURVE_SECP256K1', key);
    const digest = sha256(utf8ToBytes('Satoshi Nakamoto'));
    const { r, s, recovery } = signWithPrivateKey('CURVE_SECP256K1', key, publicKey, digest);
    expect(bytesToHex(r)).toBe('934b1ea10a4b3c1757e2b0c017d0b6143ce3c9a7e6a4a49860d7a6ab210ee3d8');
    expect(bytesToHex(s)).toBe('2442ce9d2b916064108014783e923ec36b49743e2ffa1c4496f01a512aafd9e5');
    const recovered = secp256k1.Signature.fromBytes(new Uint8Array([...r, ...s]), 'compact')
      .addRecoveryBit(recovery!)
      .recoverPublicKey(digest)
      .toBytes(true);
    expect(recovered).toEqual(publicKey);
  });

  it('Ed25519 (OpenSSL): RFC 8032 test 1', () => {
    const key = hexToBytes('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60');
    const publicKey = publicKeyFromPrivateKey('CURVE_ED25519', key);
    expect(bytesToHex(publicKey)).toBe(
      'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a',
    );
    const { r, s, recovery } = signWithPrivateKey(
      'CURVE_ED25519',
      key,
      publicKey,
      new Uint8Array(),
    );
    expect(bytesToHex(new Uint8Array([...r, ...s]))).toBe(
      'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
    );
    expect(recovery).toBeUndefined();
  });

  it('Ed25519: OpenSSL signs exactly as noble does, for any key and message', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.uint8Array({ maxLength: 300 }),
        (key, message) => {
          const publicKey = ed25519.getPublicKey(key);
          const { r, s } = signWithPrivateKey('CURVE_ED25519', key, publicKey, message);
          expect(new Uint8Array([...r, ...s])).toEqual(ed25519.sign(message, key));
        },
      ),
      { numRuns: 50 },
    );
  });

  it('ECDSA signatures are low-S and recover the public key, on both curves', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('CURVE_SECP256K1' as const, 'CURVE_P256' as const),
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        (curve, digest) => {
          const ecdsa = curve === 'CURVE_SECP256K1' ? secp256k1 : p256;
          const key = ecdsa.utils.randomSecretKey();
          const publicKey = ecdsa.getPublicKey(key, true);
          const { r, s, recovery } = signWithPrivateKey(curve, key, publicKey, digest);
          const signature = ecdsa.Signature.fromBytes(new Uint8Array([...r, ...s]), 'compact');
          expect(signature.hasHighS()).toBe(false);
          expect(
            signature.addRecoveryBit(recovery!).recoverPublicKey(digest).toBytes(true),
          ).toEqual(publicKey);
        },
      ),
      { numRuns: 30 },
    );
  });

  it('refuses what it cannot sign, naming the reason', () => {
    const key = new Uint8Array(32).fill(1);
    const publicKey = publicKeyFromPrivateKey('CURVE_SECP256K1', key);
    expect(() =>
      signWithPrivateKey('CURVE_SECP256K1', key, publicKey, new Uint8Array(33)),
    ).toThrowError(expect.objectContaining({ key: 'INVALID_PAYLOAD' }));
    expect(() => assertSignableMessage('CURVE_P256', 'ab' as never)).toThrowError(
      expect.objectContaining({ key: 'INVALID_PAYLOAD' }),
    );
    expect(() => assertSignableMessage('CURVE_P384' as never, new Uint8Array(32))).toThrowError(
      expect.objectContaining({ key: 'INVALID_CURVE' }),
    );
  });
});

describe('signTaprootWithPrivateKey', () => {
  it('verifies under the BIP341 output key, for key-path-only and script-tree outputs', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.oneof(fc.constant(new Uint8Array()), fc.uint8Array({ minLength: 32, maxLength: 32 })),
        (digest, merkleRoot) => {
          const key = secp256k1.utils.randomSecretKey();
          const internalKey = schnorr.getPublicKey(key);
          const [outputKey] = taprootTweakPubkey(internalKey, merkleRoot);
          const signature = signTaprootWithPrivateKey(key, digest, merkleRoot);
          expect(signature).toHaveLength(64);
          expect(schnorr.verify(signature, digest, outputKey)).toBe(true);
          expect(schnorr.verify(signature, digest, internalKey)).toBe(false);
        },
      ),
      { numRuns: 25 },
    );
  });

  it('uses fresh auxiliary randomness (BIP340): two signatures differ, both verify', () => {
    const key = secp256k1.utils.randomSecretKey();
    const digest = new Uint8Array(32).fill(5);
    const [outputKey] = taprootTweakPubkey(schnorr.getPublicKey(key), new Uint8Array());
    const a = signTaprootWithPrivateKey(key, digest, new Uint8Array());
    const b = signTaprootWithPrivateKey(key, digest, new Uint8Array());
    expect(a).not.toEqual(b);
    expect(schnorr.verify(a, digest, outputKey) && schnorr.verify(b, digest, outputKey)).toBe(true);
  });

  it('refuses a digest that is not 32 bytes and a merkle root that is neither empty nor 32 bytes', () => {
    const key = secp256k1.utils.randomSecretKey();
    for (const [digest, root] of [
      [new Uint8Array(31), new Uint8Array()],
      [new Uint8Array(32), new Uint8Array(31)],
    ] as const) {
      expect(() => signTaprootWithPrivateKey(key, digest, root)).toThrowError(
        expect.objectContaining({ key: 'INVALID_PAYLOAD' }),
      );
    }
  });
});

import { nobleSignatureVerifier, type StampCurve } from '@keyhold/activities';
import { ed25519 } from '@noble/curves/ed25519.js';
import { p256 } from '@noble/curves/nist.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createOpenSslSignatureVerifier } from './openssl-signature-verifier.js';

const openssl = createOpenSslSignatureVerifier({ cacheSize: 8 });

function signed(curve: StampCurve, message: Uint8Array, seed: Uint8Array, lowS: boolean) {
  if (curve === 'ed25519') {
    return { publicKey: ed25519.getPublicKey(seed), signature: ed25519.sign(message, seed) };
  }
  const c = curve === 'p256' ? p256 : secp256k1;
  // Derive the key from the generated seed (48 bytes) so a failing case replays exactly.
  const secret = c.utils.randomSecretKey(new Uint8Array([...seed, ...seed.subarray(0, 16)]));
  return {
    publicKey: c.getPublicKey(secret, true),
    signature: c.sign(message, secret, { prehash: true, lowS, format: 'der' }),
  };
}

const curves = fc.constantFrom<StampCurve>('p256', 'secp256k1', 'ed25519');

describe('OpenSSL SignatureVerifier', () => {
  it('accepts what the signer made, high-S included', async () => {
    await fc.assert(
      fc.asyncProperty(
        curves,
        fc.uint8Array({ maxLength: 300 }),
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.boolean(),
        async (curve, message, seed, lowS) => {
          const { publicKey, signature } = signed(curve, message, seed, lowS);
          expect(await openssl.verify(curve, publicKey, message, signature)).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('agrees with the noble verifier on corrupted signatures, keys and messages (differential)', async () => {
    await fc.assert(
      fc.asyncProperty(
        curves,
        fc.uint8Array({ minLength: 1, maxLength: 100 }),
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.constantFrom('signature', 'message', 'key', 'none'),
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        async (curve, message, seed, what, at, flip) => {
          const { publicKey, signature } = signed(curve, message, seed, false);
          const target =
            what === 'signature'
              ? signature
              : what === 'message'
                ? message
                : what === 'key'
                  ? publicKey
                  : undefined;
          if (target) target[at % target.length]! ^= flip;
          const expected = await nobleSignatureVerifier.verify(
            curve,
            publicKey,
            message,
            signature,
          );
          expect(await openssl.verify(curve, publicKey, message, signature)).toBe(expected);
          if (what === 'none') expect(expected).toBe(true);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('verifyDigest: ECDSA over a given 32-byte digest (EIP-191 stamps), high-S included, agreeing with noble', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('p256', 'secp256k1' as const),
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.boolean(),
        fc.constantFrom('signature', 'digest', 'none'),
        fc.nat(),
        async (curve, digest, seed, lowS, what, at) => {
          const c = curve === 'p256' ? p256 : secp256k1;
          const secret = c.utils.randomSecretKey(
            new Uint8Array([...seed, ...seed.subarray(0, 16)]),
          );
          const publicKey = c.getPublicKey(secret, true);
          const signature = c.sign(digest, secret, { prehash: false, lowS, format: 'der' });
          // The digest is not hashed again: a signature over SHA-256(digest) must not pass.
          const rehashed = c.sign(digest, secret, { prehash: true, format: 'der' });
          expect(await openssl.verifyDigest(curve, publicKey, digest, rehashed)).toBe(false);
          const target = what === 'signature' ? signature : what === 'digest' ? digest : undefined;
          if (target) target[at % target.length]! ^= 1;
          const expected = what === 'none';
          expect(await openssl.verifyDigest(curve, publicKey, digest, signature)).toBe(expected);
          expect(
            await nobleSignatureVerifier.verifyDigest(curve, publicKey, digest, signature),
          ).toBe(expected);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('answers each of many verifications in flight at once with its own result', async () => {
    // Verifications run on libuv's thread pool and finish in any order: each answer must
    // reach its own caller.
    const message = new Uint8Array(64).fill(7);
    const cases = Array.from({ length: 96 }, (_, i) => {
      const curve = (['p256', 'secp256k1', 'ed25519'] as const)[i % 3]!;
      const { publicKey, signature } = signed(
        curve,
        message,
        new Uint8Array(32).fill(i + 1),
        i % 2 === 0,
      );
      if (i % 4 === 1) signature[signature.length - 1]! ^= 1;
      return { curve, publicKey, signature, valid: i % 4 !== 1 };
    });
    const answers = await Promise.all(
      cases.map((c) => openssl.verify(c.curve, c.publicKey, message, c.signature)),
    );
    expect(answers).toEqual(cases.map((c) => c.valid));
  });

  it('answers false for keys of the wrong length instead of throwing', async () => {
    expect(
      await openssl.verify('p256', new Uint8Array(10), new Uint8Array(1), new Uint8Array(8)),
    ).toBe(false);
    expect(
      await openssl.verify('ed25519', new Uint8Array(33), new Uint8Array(1), new Uint8Array(64)),
    ).toBe(false);
    expect(
      await openssl.verifyDigest(
        'secp256k1',
        new Uint8Array(10),
        new Uint8Array(32),
        new Uint8Array(8),
      ),
    ).toBe(false);
  });
});

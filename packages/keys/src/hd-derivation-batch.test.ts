import type { Curve } from '@keyhold/protocol';
import { HDKey } from '@scure/bip32';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { formatDerivationPath, HARDENED_OFFSET } from './derivation-path.js';
import { deriveKeyFromSeed } from './hd-derivation.js';
import { type DerivationRequest, deriveKeysFromSeed } from './hd-derivation-batch.js';
import { mnemonicToSeedSync } from './mnemonic.js';

const ABANDON = mnemonicToSeedSync(
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about',
);
const CURVES: readonly Curve[] = ['CURVE_SECP256K1', 'CURVE_P256', 'CURVE_ED25519'];
const hardened = fc.integer({ min: HARDENED_OFFSET, max: HARDENED_OFFSET + 3 });
const normal = fc.integer({ min: 0, max: 3 });

/** Paths drawn from a few indices per level, so that many requests share nodes. */
const request = fc
  .constantFrom(...CURVES)
  .chain((curve) =>
    fc
      .array(curve === 'CURVE_ED25519' ? hardened : fc.oneof(hardened, normal), { maxLength: 5 })
      .map((indices): DerivationRequest => ({ curve, path: formatDerivationPath(indices) })),
  );

describe('deriveKeysFromSeed', () => {
  it('gives, in order, exactly what deriveKeyFromSeed gives for each path (any curves, shared or not)', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 16, maxLength: 64 }),
        fc.array(request, { maxLength: 12 }),
        (seed, requests) => {
          const keys = deriveKeysFromSeed(seed, requests);
          expect(keys).toHaveLength(requests.length);
          requests.forEach(({ curve, path }, i) => {
            const one = deriveKeyFromSeed(seed, curve, path);
            expect(keys[i]?.privateKey).toEqual(one.privateKey);
            expect(keys[i]?.publicKey).toEqual(one.publicKey);
          });
        },
      ),
      { numRuns: 60 },
    );
  });

  it('derives the common nodes of a wallet once: 100 BIP86 accounts, 100 child derivations', () => {
    const deriveChild = vi.spyOn(HDKey.prototype, 'deriveChild');
    try {
      const requests = Array.from({ length: 100 }, (_, i) => ({
        curve: 'CURVE_SECP256K1' as const,
        path: `m/86'/0'/0'/0/${i}`,
      }));
      const keys = deriveKeysFromSeed(ABANDON, requests);
      // m/86'/0'/0'/0 once (4 levels), then one child per account.
      expect(deriveChild).toHaveBeenCalledTimes(4 + 100);
      expect(keys[99]?.publicKey).toEqual(
        deriveKeyFromSeed(ABANDON, 'CURVE_SECP256K1', "m/86'/0'/0'/0/99").publicKey,
      );
    } finally {
      deriveChild.mockRestore();
    }
  });

  it('refuses a bad path or seed before deriving anything, as deriveKeyFromSeed does', () => {
    expect(() =>
      deriveKeysFromSeed(ABANDON, [
        { curve: 'CURVE_ED25519', path: "m/44'/501'" },
        { curve: 'CURVE_ED25519', path: 'm/44/501' },
      ]),
    ).toThrow(expect.objectContaining({ key: 'INVALID_PATH' }));
    expect(() => deriveKeysFromSeed(new Uint8Array(8), [])).toThrow(RangeError);
    expect(deriveKeysFromSeed(ABANDON, [])).toEqual([]);
  });
});

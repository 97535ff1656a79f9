import type { Curve } from '@keyhold/protocol';
import { ed25519 } from '@noble/curves/ed25519.js';
import { blake2b } from '@noble/hashes/blake2.js';
import { bytesToHex, concatBytes } from '@noble/hashes/utils.js';
import { bech32 } from '@scure/base';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import vectors from './__fixtures__/address-vectors.json' with { type: 'json' };
import { deriveAddress } from './address.js';
import { deriveKeyFromSeed } from './hd-derivation.js';
import { mnemonicToSeedSync } from './mnemonic.js';

const edKey = fc
  .uint8Array({ minLength: 32, maxLength: 32 })
  .map((secret) => ed25519.getPublicKey(secret));

/**
 * The Bech32 `suiprivkey` strings of the same MystenLabs test cases (flag byte 0x00 + the
 * 32-byte Ed25519 secret), from sdk/typescript test/unit/cryptography/ed25519-keypair.test.ts.
 */
const SUI_PRIVATE_KEYS = [
  ['suiprivkey1qrwsjvr6gwaxmsvxk4cfun99ra8uwxg3c9pl0nhle7xxpe4s80y05ctazer', 0],
  ['suiprivkey1qzdvpa77ct272ultqcy20dkw78dysnfyg90fhcxkdm60el0qht9mvzlsh4j', 1],
  ['suiprivkey1qqqscjyyr64jea849dfv9cukurqj2swx0m3rr4hr7sw955jy07tzgcde5ut', 2],
] as const;
const suiVectors = vectors.mnemonicVectors.filter((v) => v.format === 'ADDRESS_FORMAT_SUI');

describe('ADDRESS_FORMAT_SUI (blake2b-256 of 0x00 ‖ Ed25519 key)', () => {
  it.each(suiVectors)(
    '$mnemonic $path → $address ($source)',
    ({ curve, mnemonic, path, address }) => {
      const seed = mnemonicToSeedSync(
        vectors.mnemonics[mnemonic as keyof typeof vectors.mnemonics],
      );
      const { publicKey } = deriveKeyFromSeed(seed, curve as Curve, path);
      expect(deriveAddress('ADDRESS_FORMAT_SUI', 'CURVE_ED25519', publicKey)).toBe(address);
    },
  );

  it.each(SUI_PRIVATE_KEYS)('the key of %s has address vector %i', (privateKey, index) => {
    const decoded = bech32.decode(privateKey);
    expect(decoded.prefix).toBe('suiprivkey');
    const bytes = bech32.fromWords(decoded.words);
    expect(bytes[0]).toBe(0x00); // Ed25519 scheme flag
    const publicKey = ed25519.getPublicKey(bytes.subarray(1));
    expect(deriveAddress('ADDRESS_FORMAT_SUI', 'CURVE_ED25519', publicKey)).toBe(
      suiVectors[index]!.address,
    );
  });

  it('is 0x + 64 lowercase hex of the flagged blake2b-256, and differs per key', () => {
    fc.assert(
      fc.property(edKey, edKey, (a, b) => {
        const address = deriveAddress('ADDRESS_FORMAT_SUI', 'CURVE_ED25519', a);
        expect(deriveAddress('ADDRESS_FORMAT_SUI', 'CURVE_ED25519', a)).toBe(address);
        expect(address).toMatch(/^0x[0-9a-f]{64}$/);
        expect(address.slice(2)).toBe(
          bytesToHex(blake2b(concatBytes(Uint8Array.of(0), a), { dkLen: 32 })),
        );
        fc.pre(bytesToHex(a) !== bytesToHex(b));
        expect(deriveAddress('ADDRESS_FORMAT_SUI', 'CURVE_ED25519', b)).not.toBe(address);
      }),
      { numRuns: 50 },
    );
  });
});

import type { Curve } from '@keyhold/protocol';
import { ed25519 } from '@noble/curves/ed25519.js';
import { sha3_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, concatBytes, hexToBytes } from '@noble/hashes/utils.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import vectors from './__fixtures__/address-vectors.json' with { type: 'json' };
import { deriveAddress } from './address.js';
import { deriveKeyFromSeed } from './hd-derivation.js';
import { mnemonicToSeedSync } from './mnemonic.js';

const edKey = fc
  .uint8Array({ minLength: 32, maxLength: 32 })
  .map((secret) => ed25519.getPublicKey(secret));

describe('ADDRESS_FORMAT_APTOS (sha3-256 of Ed25519 key ‖ 0x00, long form)', () => {
  it.each(vectors.mnemonicVectors.filter((v) => v.format === 'ADDRESS_FORMAT_APTOS'))(
    '$path → $address ($source)',
    ({ curve, mnemonic, path, address }) => {
      const seed = mnemonicToSeedSync(
        vectors.mnemonics[mnemonic as keyof typeof vectors.mnemonics],
      );
      const { publicKey } = deriveKeyFromSeed(seed, curve as Curve, path);
      expect(deriveAddress('ADDRESS_FORMAT_APTOS', 'CURVE_ED25519', publicKey)).toBe(address);
    },
  );

  it('gives the authentication key of the aptos-ts-sdk ed25519 test key', () => {
    const { publicKey, address } = vectors.aptosPublicKey;
    expect(deriveAddress('ADDRESS_FORMAT_APTOS', 'CURVE_ED25519', hexToBytes(publicKey))).toBe(
      address,
    );
  });

  it('is 0x + all 64 hex digits of the hash, and differs per key', () => {
    fc.assert(
      fc.property(edKey, edKey, (a, b) => {
        const address = deriveAddress('ADDRESS_FORMAT_APTOS', 'CURVE_ED25519', a);
        expect(deriveAddress('ADDRESS_FORMAT_APTOS', 'CURVE_ED25519', a)).toBe(address);
        expect(address).toMatch(/^0x[0-9a-f]{64}$/);
        expect(address.slice(2)).toBe(bytesToHex(sha3_256(concatBytes(a, Uint8Array.of(0)))));
        fc.pre(bytesToHex(a) !== bytesToHex(b));
        expect(deriveAddress('ADDRESS_FORMAT_APTOS', 'CURVE_ED25519', b)).not.toBe(address);
      }),
      { numRuns: 50 },
    );
  });
});

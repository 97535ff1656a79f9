import type { Curve } from '@keyhold/protocol';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import fc from 'fast-check';
import { publicKeyToAddress } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import vectors from './__fixtures__/address-vectors.json' with { type: 'json' };
import { deriveAddress } from './address.js';
import { base58check } from './address-bitcoin.js';
import { deriveKeyFromSeed } from './hd-derivation.js';
import { mnemonicToSeedSync } from './mnemonic.js';

const privateKey = fc
  .uint8Array({ minLength: 48, maxLength: 48 })
  .map((seed) => secp256k1.utils.randomSecretKey(seed));

describe('ADDRESS_FORMAT_TRON', () => {
  it.each(vectors.mnemonicVectors.filter((v) => v.format === 'ADDRESS_FORMAT_TRON'))(
    '$path → $address ($source)',
    ({ curve, mnemonic, path, address }) => {
      const seed = mnemonicToSeedSync(
        vectors.mnemonics[mnemonic as keyof typeof vectors.mnemonics],
      );
      const { publicKey } = deriveKeyFromSeed(seed, curve as Curve, path);
      expect(deriveAddress('ADDRESS_FORMAT_TRON', 'CURVE_SECP256K1', publicKey)).toBe(address);
    },
  );

  it.each(vectors.hashVectors.tron)(
    'base58check of $hex is $address (TRON docs, TronScan)',
    ({ hex, address }) => {
      expect(base58check.encode(hexToBytes(hex))).toBe(address);
      expect(bytesToHex(base58check.decode(address))).toBe(hex);
    },
  );

  it("decodes to 0x41 and the key's Ethereum account (viem), from either SEC1 form", () => {
    fc.assert(
      fc.property(privateKey, (priv) => {
        const uncompressed = secp256k1.getPublicKey(priv, false);
        const address = deriveAddress('ADDRESS_FORMAT_TRON', 'CURVE_SECP256K1', uncompressed);
        expect(
          deriveAddress('ADDRESS_FORMAT_TRON', 'CURVE_SECP256K1', secp256k1.getPublicKey(priv)),
        ).toBe(address);
        expect(address).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
        const ethereum = publicKeyToAddress(`0x${bytesToHex(uncompressed)}`);
        expect(bytesToHex(base58check.decode(address))).toBe(
          `41${ethereum.slice(2).toLowerCase()}`,
        );
      }),
      { numRuns: 50 },
    );
  });

  it('differs for different keys', () => {
    fc.assert(
      fc.property(privateKey, privateKey, (a, b) => {
        fc.pre(bytesToHex(a) !== bytesToHex(b));
        expect(
          deriveAddress('ADDRESS_FORMAT_TRON', 'CURVE_SECP256K1', secp256k1.getPublicKey(a)),
        ).not.toBe(
          deriveAddress('ADDRESS_FORMAT_TRON', 'CURVE_SECP256K1', secp256k1.getPublicKey(b)),
        );
      }),
      { numRuns: 30 },
    );
  });
});

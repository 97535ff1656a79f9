import type { AddressFormat, Curve } from '@keyhold/protocol';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { bech32 } from '@scure/base';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import vectors from './__fixtures__/address-vectors.json' with { type: 'json' };
import { deriveAddress } from './address.js';
import { deriveKeyFromSeed } from './hd-derivation.js';
import { mnemonicToSeedSync } from './mnemonic.js';

const FORMATS = { ADDRESS_FORMAT_COSMOS: 'cosmos', ADDRESS_FORMAT_SEI: 'sei' } as const;
const secpKey = fc
  .uint8Array({ minLength: 48, maxLength: 48 })
  .map((seed) => secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(seed), true));

describe('Cosmos and Sei (bech32 of ripemd160(sha256(K)))', () => {
  it.each(vectors.mnemonicVectors.filter((v) => v.format in FORMATS))(
    '$format $path → $address ($source)',
    ({ format, curve, mnemonic, path, address }) => {
      const seed = mnemonicToSeedSync(
        vectors.mnemonics[mnemonic as keyof typeof vectors.mnemonics],
      );
      const { publicKey } = deriveKeyFromSeed(seed, curve as Curve, path);
      expect(deriveAddress(format as AddressFormat, curve as Curve, publicKey)).toBe(address);
    },
  );

  it('decodes (with @scure/base bech32) to the prefix and the account id of the key', () => {
    fc.assert(
      fc.property(secpKey, (key) => {
        const accountId = ripemd160(sha256(key));
        for (const [format, prefix] of Object.entries(FORMATS)) {
          const address = deriveAddress(format as AddressFormat, 'CURVE_SECP256K1', key);
          expect(deriveAddress(format as AddressFormat, 'CURVE_SECP256K1', key)).toBe(address);
          const decoded = bech32.decode(address as `${string}1${string}`);
          expect(decoded.prefix).toBe(prefix);
          expect(bytesToHex(bech32.fromWords(decoded.words))).toBe(bytesToHex(accountId));
        }
      }),
      { numRuns: 50 },
    );
  });

  it('gives the same account id to the compressed and the uncompressed key', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 48, maxLength: 48 }), (seed) => {
        const priv = secp256k1.utils.randomSecretKey(seed);
        const compressed = secp256k1.getPublicKey(priv, true);
        const uncompressed = secp256k1.getPublicKey(priv, false);
        for (const format of Object.keys(FORMATS) as AddressFormat[]) {
          expect(deriveAddress(format, 'CURVE_SECP256K1', uncompressed)).toBe(
            deriveAddress(format, 'CURVE_SECP256K1', compressed),
          );
        }
      }),
      { numRuns: 20 },
    );
  });

  it('differs for different keys', () => {
    fc.assert(
      fc.property(secpKey, secpKey, (a, b) => {
        fc.pre(bytesToHex(a) !== bytesToHex(b));
        for (const format of Object.keys(FORMATS) as AddressFormat[]) {
          expect(deriveAddress(format, 'CURVE_SECP256K1', a)).not.toBe(
            deriveAddress(format, 'CURVE_SECP256K1', b),
          );
        }
      }),
      { numRuns: 30 },
    );
  });
});

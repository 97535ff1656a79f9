import type { AddressFormat } from '@keyhold/protocol';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToHex, concatBytes, hexToBytes } from '@noble/hashes/utils.js';
import { bech32m } from '@scure/base';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import vectors from './__fixtures__/address-vectors.json' with { type: 'json' };
import { deriveAddress } from './address.js';

const FORMATS = {
  ADDRESS_FORMAT_SPARK_MAINNET: 'spark',
  ADDRESS_FORMAT_SPARK_REGTEST: 'sparkrt',
} as const;
const secpKey = fc
  .uint8Array({ minLength: 48, maxLength: 48 })
  .map((seed) => secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(seed), true));
const decode = (address: string) => bech32m.decode(address as `${string}1${string}`);

describe('ADDRESS_FORMAT_SPARK_* (bech32m of the SparkAddress protobuf)', () => {
  it.each(vectors.publicKeyVectors.filter((v) => v.format.startsWith('ADDRESS_FORMAT_SPARK_')))(
    '$publicKey → $address ($source)',
    ({ format, publicKey, address }) => {
      expect(deriveAddress(format as AddressFormat, 'CURVE_SECP256K1', hexToBytes(publicKey))).toBe(
        address,
      );
    },
  );

  it("carries the identity key of docs.spark.money's example, under Turnkey's prefixes", () => {
    const { address } = vectors.sparkDocs;
    const payload = bech32m.fromWords(decode(address).words);
    expect(bytesToHex(payload.subarray(0, 2))).toBe('0a21'); // field 1, 33 bytes
    const key = payload.subarray(2);
    expect(() => secp256k1.Point.fromBytes(key)).not.toThrow();
    for (const [format, prefix] of Object.entries(FORMATS)) {
      const ours = decode(deriveAddress(format as AddressFormat, 'CURVE_SECP256K1', key));
      expect(ours.prefix).toBe(prefix);
      expect(bech32m.fromWords(ours.words)).toEqual(payload);
    }
  });

  it('decodes to its prefix and 0a21 ‖ the compressed key, and differs per key', () => {
    fc.assert(
      fc.property(secpKey, secpKey, (a, b) => {
        for (const [format, prefix] of Object.entries(FORMATS)) {
          const address = deriveAddress(format as AddressFormat, 'CURVE_SECP256K1', a);
          expect(deriveAddress(format as AddressFormat, 'CURVE_SECP256K1', a)).toBe(address);
          const decoded = decode(address);
          expect(decoded.prefix).toBe(prefix);
          expect(bytesToHex(bech32m.fromWords(decoded.words))).toBe(
            bytesToHex(concatBytes(Uint8Array.of(0x0a, 0x21), a)),
          );
          if (bytesToHex(a) !== bytesToHex(b)) {
            expect(deriveAddress(format as AddressFormat, 'CURVE_SECP256K1', b)).not.toBe(address);
          }
        }
      }),
      { numRuns: 50 },
    );
  });
});

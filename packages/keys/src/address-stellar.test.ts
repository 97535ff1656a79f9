import type { Curve } from '@keyhold/protocol';
import { ed25519 } from '@noble/curves/ed25519.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { base32 } from '@scure/base';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import vectors from './__fixtures__/address-vectors.json' with { type: 'json' };
import { deriveAddress } from './address.js';
import { crc16xmodem } from './address-stellar.js';
import { deriveKeyFromSeed } from './hd-derivation.js';
import { mnemonicToSeedSync } from './mnemonic.js';

const edKey = fc
  .uint8Array({ minLength: 32, maxLength: 32 })
  .map((secret) => ed25519.getPublicKey(secret));

/** StrKey decoding done here with @scure/base: version byte, payload, crc16 little-endian. */
function decodeStrKey(text: string): { version: number; payload: Uint8Array } {
  const raw = base32.decode(text);
  const body = raw.subarray(0, raw.length - 2);
  const crc = raw[raw.length - 2]! | (raw[raw.length - 1]! << 8);
  expect(crc).toBe(crc16xmodem(body));
  return { version: body[0]!, payload: body.subarray(1) };
}

describe('ADDRESS_FORMAT_XLM (Stellar StrKey account id)', () => {
  it('CRC-16/XMODEM has the catalogue check value', () => {
    // reveng CRC catalogue, CRC-16/XMODEM: check = 0x31c3 for "123456789".
    expect(crc16xmodem(utf8ToBytes('123456789'))).toBe(0x31c3);
    expect(crc16xmodem(new Uint8Array(0))).toBe(0);
  });

  it.each(vectors.mnemonicVectors.filter((v) => v.format === 'ADDRESS_FORMAT_XLM'))(
    '$mnemonic $path → $address ($source)',
    ({ curve, mnemonic, path, address }) => {
      const seed = mnemonicToSeedSync(
        vectors.mnemonics[mnemonic as keyof typeof vectors.mnemonics],
      );
      const { publicKey } = deriveKeyFromSeed(seed, curve as Curve, path);
      expect(deriveAddress('ADDRESS_FORMAT_XLM', 'CURVE_ED25519', publicKey)).toBe(address);
    },
  );

  it.each(vectors.stellarSecrets.vectors)(
    'the SEP-0005 secret $secret has account $address',
    ({ secret, address }) => {
      const { version, payload } = decodeStrKey(secret);
      expect(version).toBe(18 << 3); // StrKey seed
      const publicKey = ed25519.getPublicKey(payload);
      expect(deriveAddress('ADDRESS_FORMAT_XLM', 'CURVE_ED25519', publicKey)).toBe(address);
    },
  );

  it('decodes to version 6<<3 and the key with a valid checksum, and differs per key', () => {
    fc.assert(
      fc.property(edKey, edKey, (a, b) => {
        const address = deriveAddress('ADDRESS_FORMAT_XLM', 'CURVE_ED25519', a);
        expect(deriveAddress('ADDRESS_FORMAT_XLM', 'CURVE_ED25519', a)).toBe(address);
        expect(address).toMatch(/^G[A-Z2-7]{55}$/);
        const { version, payload } = decodeStrKey(address);
        expect(version).toBe(6 << 3);
        expect(bytesToHex(payload)).toBe(bytesToHex(a));
        fc.pre(bytesToHex(a) !== bytesToHex(b));
        expect(deriveAddress('ADDRESS_FORMAT_XLM', 'CURVE_ED25519', b)).not.toBe(address);
      }),
      { numRuns: 50 },
    );
  });
});

import { secp256k1 } from '@noble/curves/secp256k1.js';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, concatBytes, hexToBytes } from '@noble/hashes/utils.js';
import { base58xrp } from '@scure/base';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import vectors from './__fixtures__/address-vectors.json' with { type: 'json' };
import { deriveAddress } from './address.js';
import { xrpAddressOfAccountId } from './address-xrp.js';

const secpKey = fc
  .uint8Array({ minLength: 48, maxLength: 48 })
  .map((seed) => secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(seed), true));

describe('ADDRESS_FORMAT_XRP (XRPL classic address)', () => {
  it.each(vectors.publicKeyVectors.filter((v) => v.format === 'ADDRESS_FORMAT_XRP'))(
    '$publicKey → $address ($source)',
    ({ publicKey, address }) => {
      expect(deriveAddress('ADDRESS_FORMAT_XRP', 'CURVE_SECP256K1', hexToBytes(publicKey))).toBe(
        address,
      );
    },
  );

  it('the ripple-keypairs secp256k1 test private key gives its address', () => {
    // Same fixture: privateKey 00D78B97…5E23 (a 0x00-prefixed 32-byte scalar).
    const priv = hexToBytes('D78B9735C3F26501C7337B8A5727FD53A6EFDBC6AA55984F098488561F985E23');
    expect(
      deriveAddress('ADDRESS_FORMAT_XRP', 'CURVE_SECP256K1', secp256k1.getPublicKey(priv)),
    ).toBe('rU6K7V3Po4snVhBBaU29sesqs2qTQJWDw1');
  });

  it.each(vectors.hashVectors.xrpAccountIds)(
    'account id $accountId is $address (xrpl.org special addresses)',
    ({ accountId, address }) => {
      expect(xrpAddressOfAccountId(hexToBytes(accountId))).toBe(address);
    },
  );

  it('decodes (Ripple base58) to 0x00, the account id of the key and its checksum', () => {
    fc.assert(
      fc.property(secpKey, secpKey, (a, b) => {
        const address = deriveAddress('ADDRESS_FORMAT_XRP', 'CURVE_SECP256K1', a);
        expect(deriveAddress('ADDRESS_FORMAT_XRP', 'CURVE_SECP256K1', a)).toBe(address);
        expect(address).toMatch(/^r[1-9A-HJ-NP-Za-km-z]{24,34}$/);
        const raw = base58xrp.decode(address);
        const body = raw.subarray(0, 21);
        expect(bytesToHex(body)).toBe(
          bytesToHex(concatBytes(Uint8Array.of(0), ripemd160(sha256(a)))),
        );
        expect(bytesToHex(raw.subarray(21))).toBe(bytesToHex(sha256(sha256(body)).subarray(0, 4)));
        fc.pre(bytesToHex(a) !== bytesToHex(b));
        expect(deriveAddress('ADDRESS_FORMAT_XRP', 'CURVE_SECP256K1', b)).not.toBe(address);
      }),
      { numRuns: 50 },
    );
  });
});

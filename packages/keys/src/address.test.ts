import { ADDRESS_FORMATS, type AddressFormat, CURVES, type Curve } from '@keyhold/protocol';
import { ed25519 } from '@noble/curves/ed25519.js';
import { p256 } from '@noble/curves/nist.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { base58 } from '@scure/base';
import fc from 'fast-check';
import { getAddress } from 'viem';
import { publicKeyToAddress } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import eip55 from './__fixtures__/eip55-vectors.json' with { type: 'json' };
import known from './__fixtures__/known-wallets.json' with { type: 'json' };
import { checksumEthereumAddress, deriveAddress } from './address.js';

const seed48 = fc.uint8Array({ minLength: 48, maxLength: 48 });
const keys: Record<Curve, Uint8Array> = {
  CURVE_SECP256K1: secp256k1.getPublicKey(new Uint8Array(32).fill(1)),
  CURVE_P256: p256.getPublicKey(new Uint8Array(32).fill(1)),
  CURVE_ED25519: ed25519.getPublicKey(new Uint8Array(32).fill(1)),
};

describe('EIP-55 checksums (the EIP test cases)', () => {
  it.each(eip55.vectors)('%s', (address) => {
    expect(checksumEthereumAddress(address.toLowerCase())).toBe(address);
    expect(checksumEthereumAddress(`0x${address.slice(2).toUpperCase()}`)).toBe(address);
    expect(getAddress(address.toLowerCase())).toBe(address); // viem agrees
  });

  it.each([
    '',
    '0x',
    '0x123',
    `${'ab'.repeat(20)}`,
    `0x${'zz'.repeat(20)}`,
    `0x${'ab'.repeat(21)}`,
  ])('refuses %j', (bad) => {
    expect(() => checksumEthereumAddress(bad)).toThrow(
      expect.objectContaining({ key: 'INVALID_ADDRESS_FORMAT' }),
    );
  });
});

describe('ADDRESS_FORMAT_ETHEREUM', () => {
  it('matches viem for random keys, from the compressed or uncompressed form', () => {
    fc.assert(
      fc.property(seed48, (seed) => {
        const priv = secp256k1.utils.randomSecretKey(seed);
        const expected = publicKeyToAddress(`0x${bytesToHex(secp256k1.getPublicKey(priv, false))}`);
        const compressed = secp256k1.getPublicKey(priv, true);
        expect(deriveAddress('ADDRESS_FORMAT_ETHEREUM', 'CURVE_SECP256K1', compressed)).toBe(
          expected,
        );
        const uncompressed = secp256k1.getPublicKey(priv, false);
        expect(deriveAddress('ADDRESS_FORMAT_ETHEREUM', 'CURVE_SECP256K1', uncompressed)).toBe(
          expected,
        );
      }),
      { numRuns: 50 },
    );
  });

  it("gives the well-known address of \"abandon … about\" m/44'/60'/0'/0/0", () => {
    const priv = hexToBytes(known.accounts[0]!.privateKey!);
    expect(
      deriveAddress('ADDRESS_FORMAT_ETHEREUM', 'CURVE_SECP256K1', secp256k1.getPublicKey(priv)),
    ).toBe('0x9858EfFD232B4033E47d90003D41EC34EcaEda94');
  });
});

describe('ADDRESS_FORMAT_SOLANA', () => {
  it.each(known.solanaAddresses)('$name', ({ publicKey, address }) => {
    expect(deriveAddress('ADDRESS_FORMAT_SOLANA', 'CURVE_ED25519', hexToBytes(publicKey))).toBe(
      address,
    );
  });

  it('is the base58 of the 32-byte key', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (priv) => {
        const pub = ed25519.getPublicKey(priv);
        const address = deriveAddress('ADDRESS_FORMAT_SOLANA', 'CURVE_ED25519', pub);
        expect(address).toBe(base58.encode(pub));
        expect(bytesToHex(base58.decode(address))).toBe(bytesToHex(pub));
        expect(address.length).toBeGreaterThanOrEqual(32);
        expect(address.length).toBeLessThanOrEqual(44);
      }),
      { numRuns: 50 },
    );
  });
});

describe('ADDRESS_FORMAT_COMPRESSED / UNCOMPRESSED', () => {
  it('is the hex of the SEC1 key, without 0x', () => {
    for (const [curve, impl] of [
      ['CURVE_SECP256K1', secp256k1],
      ['CURVE_P256', p256],
    ] as const) {
      const priv = new Uint8Array(32).fill(3);
      const compressed = impl.getPublicKey(priv, true);
      const uncompressed = impl.getPublicKey(priv, false);
      expect(deriveAddress('ADDRESS_FORMAT_COMPRESSED', curve, uncompressed)).toBe(
        bytesToHex(compressed),
      );
      const hex = deriveAddress('ADDRESS_FORMAT_UNCOMPRESSED', curve, compressed);
      expect(hex).toBe(bytesToHex(uncompressed));
      expect(hex).toMatch(/^04[0-9a-f]{128}$/);
    }
  });

  it('is the 32-byte hex for ed25519 COMPRESSED', () => {
    const pub = keys.CURVE_ED25519;
    expect(deriveAddress('ADDRESS_FORMAT_COMPRESSED', 'CURVE_ED25519', pub)).toBe(bytesToHex(pub));
  });
});

describe('every (format, curve) pair', () => {
  const supported: Partial<Record<AddressFormat, readonly Curve[]>> = {
    ADDRESS_FORMAT_ETHEREUM: ['CURVE_SECP256K1'],
    ADDRESS_FORMAT_COMPRESSED: ['CURVE_SECP256K1', 'CURVE_P256', 'CURVE_ED25519'],
    ADDRESS_FORMAT_UNCOMPRESSED: ['CURVE_SECP256K1', 'CURVE_P256'],
    ADDRESS_FORMAT_SOLANA: ['CURVE_ED25519'],
  };
  const pairs = ADDRESS_FORMATS.flatMap((format) =>
    CURVES.map((curve) => [format, curve] as const),
  );

  it.each(pairs)('%s × %s', (format, curve) => {
    const derive = () => deriveAddress(format, curve, keys[curve]);
    if (supported[format]?.includes(curve)) {
      expect(derive()).toEqual(expect.any(String));
      return;
    }
    expect(derive).toThrow(expect.objectContaining({ key: 'INVALID_ADDRESS_FORMAT' }));
    try {
      derive();
    } catch (error) {
      const { reason } = (error as { context: { reason: string } }).context;
      if (format === 'ADDRESS_FORMAT_UNSPECIFIED') expect(reason).toBe('unknown address format');
      else if (supported[format]) expect(reason).toContain('cannot encode');
      else expect(reason).toBe('address format not supported yet');
    }
  });

  it('refuses an unknown format string and an unknown curve', () => {
    expect(() =>
      deriveAddress('ADDRESS_FORMAT_FOO' as AddressFormat, 'CURVE_SECP256K1', keys.CURVE_SECP256K1),
    ).toThrow(expect.objectContaining({ key: 'INVALID_ADDRESS_FORMAT' }));
    expect(() =>
      deriveAddress('ADDRESS_FORMAT_ETHEREUM', 'CURVE_FOO' as Curve, keys.CURVE_SECP256K1),
    ).toThrow(expect.objectContaining({ key: 'INVALID_CURVE' }));
  });

  it('refuses a public key that is not a point of the curve', () => {
    expect(() =>
      deriveAddress('ADDRESS_FORMAT_ETHEREUM', 'CURVE_SECP256K1', new Uint8Array(33)),
    ).toThrow(expect.objectContaining({ key: 'INVALID_PUBLIC_KEY' }));
    expect(() =>
      deriveAddress('ADDRESS_FORMAT_SOLANA', 'CURVE_ED25519', new Uint8Array(31)),
    ).toThrow(expect.objectContaining({ key: 'INVALID_PUBLIC_KEY' }));
  });
});

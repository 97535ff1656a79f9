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
import vectors from './__fixtures__/address-vectors.json' with { type: 'json' };
import eip55 from './__fixtures__/eip55-vectors.json' with { type: 'json' };
import known from './__fixtures__/known-wallets.json' with { type: 'json' };
import { checksumEthereumAddress, deriveAddress, SUPPORTED_ADDRESS_FORMATS } from './address.js';

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
  const S = 'CURVE_SECP256K1';
  const P = 'CURVE_P256';
  const E = 'CURVE_ED25519';
  const bitcoin = ['MAINNET', 'TESTNET', 'SIGNET', 'REGTEST'].flatMap((network) =>
    ['P2PKH', 'P2SH', 'P2WPKH', 'P2WSH', 'P2TR'].map(
      (type) => [`ADDRESS_FORMAT_BITCOIN_${network}_${type}`, [S]] as const,
    ),
  );
  // What Turnkey accepts (docs.turnkey.com "Address formats and curves", the SDK's default
  // accounts): only COMPRESSED and UNCOMPRESSED take P-256 keys.
  const supported: Partial<Record<AddressFormat, readonly Curve[]>> = {
    ADDRESS_FORMAT_ETHEREUM: [S],
    ADDRESS_FORMAT_COMPRESSED: [S, P, E],
    ADDRESS_FORMAT_UNCOMPRESSED: [S, P],
    ADDRESS_FORMAT_SOLANA: [E],
    ADDRESS_FORMAT_COSMOS: [S],
    ADDRESS_FORMAT_TRON: [S],
    ADDRESS_FORMAT_SUI: [E],
    ADDRESS_FORMAT_APTOS: [E],
    ...Object.fromEntries(bitcoin),
    ADDRESS_FORMAT_SEI: [S],
    ADDRESS_FORMAT_XLM: [E],
    ADDRESS_FORMAT_DOGE_MAINNET: [S],
    ADDRESS_FORMAT_DOGE_TESTNET: [S],
    ADDRESS_FORMAT_TON_V3R2: [E],
    ADDRESS_FORMAT_TON_V4R2: [E],
    ADDRESS_FORMAT_TON_V5R1: [E],
    ADDRESS_FORMAT_XRP: [S],
    ADDRESS_FORMAT_SPARK_MAINNET: [S],
    ADDRESS_FORMAT_SPARK_REGTEST: [S],
  };
  const pairs = ADDRESS_FORMATS.flatMap((format) =>
    CURVES.map((curve) => [format, curve] as const),
  );

  it('SUPPORTED_ADDRESS_FORMATS is every format but UNSPECIFIED, TON included', () => {
    expect([...SUPPORTED_ADDRESS_FORMATS].sort()).toEqual(Object.keys(supported).sort());
    expect(ADDRESS_FORMATS.filter((f) => !SUPPORTED_ADDRESS_FORMATS.includes(f))).toEqual([
      'ADDRESS_FORMAT_UNSPECIFIED',
    ]);
  });

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
      else expect(reason).toBe(`${format} cannot encode a ${curve} key`);
    }
  });

  // The activities layer validates a (format, curve) pair by deriving from the curve's
  // generator point (packages/activities sample-public-keys.ts); every accepted pair must work
  // for those points too.
  const GENERATORS: Record<Curve, Uint8Array> = {
    CURVE_SECP256K1: secp256k1.Point.BASE.toBytes(true),
    CURVE_P256: p256.Point.BASE.toBytes(true),
    CURVE_ED25519: ed25519.Point.BASE.toBytes(),
  };
  it.each(
    Object.entries(supported).flatMap(([format, curves]) =>
      curves.map((curve) => [format as AddressFormat, curve] as const),
    ),
  )('%s × %s accepts the generator point', (format, curve) => {
    expect(deriveAddress(format, curve, GENERATORS[curve])).toEqual(expect.any(String));
  });

  it('is deterministic, takes either SEC1 form, and separates keys, in every format', () => {
    const curveKey = (curve: Curve) =>
      fc.uint8Array({ minLength: 48, maxLength: 48 }).map((seed) => {
        if (curve === 'CURVE_ED25519') return { a: ed25519.getPublicKey(seed.subarray(0, 32)) };
        const impl = curve === 'CURVE_P256' ? p256 : secp256k1;
        const priv = impl.utils.randomSecretKey(seed);
        return { a: impl.getPublicKey(priv, true), b: impl.getPublicKey(priv, false) };
      });
    for (const [format, curves] of Object.entries(supported) as [AddressFormat, Curve[]][]) {
      for (const curve of curves) {
        fc.assert(
          fc.property(curveKey(curve), curveKey(curve), (one, two) => {
            const address = deriveAddress(format, curve, one.a);
            expect(deriveAddress(format, curve, one.a)).toBe(address);
            if (one.b) expect(deriveAddress(format, curve, one.b)).toBe(address);
            if (bytesToHex(one.a) !== bytesToHex(two.a)) {
              expect(deriveAddress(format, curve, two.a)).not.toBe(address);
            }
          }),
          { numRuns: 5 },
        );
      }
    }
  });

  it('refuses a P-256 key for every chain format', () => {
    for (const format of SUPPORTED_ADDRESS_FORMATS) {
      if (format === 'ADDRESS_FORMAT_COMPRESSED' || format === 'ADDRESS_FORMAT_UNCOMPRESSED') {
        continue;
      }
      expect(() => deriveAddress(format, 'CURVE_P256', keys.CURVE_P256)).toThrow(
        expect.objectContaining({ key: 'INVALID_ADDRESS_FORMAT' }),
      );
    }
  });

  it('refuses prototype keys as unknown formats', () => {
    for (const format of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      expect(() =>
        deriveAddress(format as AddressFormat, 'CURVE_SECP256K1', keys.CURVE_SECP256K1),
      ).toThrow(
        expect.objectContaining({
          key: 'INVALID_ADDRESS_FORMAT',
          context: expect.objectContaining({ reason: 'unknown address format' }),
        }),
      );
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

describe('vector coverage', () => {
  it('every supported chain format has a vector from an independent source', () => {
    const covered = new Set<string>([
      ...vectors.mnemonicVectors.map((v) => v.format),
      ...vectors.publicKeyVectors.map((v) => v.format),
      ...vectors.privateKeyVectors.map((v) => v.format),
      // Dogecoin Core's testnet P2PKH vectors give hash160 → address (the version byte is all
      // that differs from mainnet); address-bitcoin.test.ts ties the key → hash160 step.
      ...vectors.hashVectors.dogePubkeyHash.map((v) => `ADDRESS_FORMAT_DOGE_${v.network}`),
      // Covered by the other fixtures of this file (EIP-55, known wallets) and noble's SEC1.
      'ADDRESS_FORMAT_ETHEREUM',
      'ADDRESS_FORMAT_SOLANA',
      'ADDRESS_FORMAT_COMPRESSED',
      'ADDRESS_FORMAT_UNCOMPRESSED',
      // address-ton.test.ts: ton-org/ton's and swift-ton's published wallet addresses.
      'ADDRESS_FORMAT_TON_V3R2',
      'ADDRESS_FORMAT_TON_V4R2',
      'ADDRESS_FORMAT_TON_V5R1',
    ]);
    expect(SUPPORTED_ADDRESS_FORMATS.filter((format) => !covered.has(format))).toEqual([]);
    for (const v of [...vectors.mnemonicVectors, ...vectors.publicKeyVectors]) {
      expect(v.source.length).toBeGreaterThan(10);
    }
  });
});

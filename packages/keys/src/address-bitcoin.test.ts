import type { AddressFormat, Curve } from '@keyhold/protocol';
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, concatBytes, hexToBytes } from '@noble/hashes/utils.js';
import { Address, OutScript } from '@scure/btc-signer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import vectors from './__fixtures__/address-vectors.json' with { type: 'json' };
import { deriveAddress } from './address.js';
import {
  BITCOIN_NETWORKS,
  type BitcoinAddressType,
  type BitcoinNetwork,
  base58check,
  DOGE_PUBKEY_HASH,
  type DogeNetwork,
} from './address-bitcoin.js';
import { deriveKeyFromSeed } from './hd-derivation.js';
import { mnemonicToSeedSync } from './mnemonic.js';

const NETWORKS: readonly BitcoinNetwork[] = ['MAINNET', 'TESTNET', 'SIGNET', 'REGTEST'];
const TYPES: readonly BitcoinAddressType[] = ['P2PKH', 'P2SH', 'P2WPKH', 'P2WSH', 'P2TR'];
const format = (network: BitcoinNetwork, type: BitcoinAddressType) =>
  `ADDRESS_FORMAT_BITCOIN_${network}_${type}` as AddressFormat;
const isOurs = (f: string) =>
  f.startsWith('ADDRESS_FORMAT_BITCOIN_') || f.startsWith('ADDRESS_FORMAT_DOGE_');
const seeds = new Map<string, Uint8Array>();
const seedOf = (name: keyof typeof vectors.mnemonics) => {
  if (!seeds.has(name)) seeds.set(name, mnemonicToSeedSync(vectors.mnemonics[name]));
  return seeds.get(name)!;
};
const hash160 = (data: Uint8Array) => ripemd160(sha256(data));
const secpKey = fc
  .uint8Array({ minLength: 48, maxLength: 48 })
  .map((seed) => secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(seed), true));

describe('Bitcoin and Dogecoin: vectors from the BIPs, the nodes and wallets', () => {
  it.each(vectors.mnemonicVectors.filter((v) => isOurs(v.format)))(
    '$format $path → $address ($source)',
    ({ format, curve, mnemonic, path, address }) => {
      const { publicKey } = deriveKeyFromSeed(
        seedOf(mnemonic as keyof typeof vectors.mnemonics),
        curve as Curve,
        path,
      );
      expect(deriveAddress(format as AddressFormat, curve as Curve, publicKey)).toBe(address);
    },
  );

  it.each(vectors.publicKeyVectors.filter((v) => isOurs(v.format)))(
    '$format of $publicKey → $address ($source)',
    ({ format, curve, publicKey, address }) => {
      expect(deriveAddress(format as AddressFormat, curve as Curve, hexToBytes(publicKey))).toBe(
        address,
      );
    },
  );

  it.each(Object.entries(vectors.bitcoinCoreDescriptors.scripts))(
    '%s pays the scriptPubKey of Bitcoin Core descriptor_tests.cpp',
    (type, script) => {
      const key = hexToBytes(vectors.bitcoinCoreDescriptors.publicKey);
      const address = deriveAddress(
        format('MAINNET', type as BitcoinAddressType),
        'CURVE_SECP256K1',
        key,
      );
      expect(bytesToHex(OutScript.encode(Address(BITCOIN_NETWORKS.MAINNET).decode(address)))).toBe(
        script,
      );
    },
  );

  it('P2TR is the BIP341 key-path-only output (wallet-test-vectors scriptPubKey[0])', () => {
    const { internalPubkey, tweakedPubkey, address } = vectors.bip341KeyPath;
    // Either parity prefix: Taproot uses only the x coordinate.
    for (const prefix of ['02', '03']) {
      const key = `${prefix}${internalPubkey}`;
      const derived = deriveAddress(
        'ADDRESS_FORMAT_BITCOIN_MAINNET_P2TR',
        'CURVE_SECP256K1',
        hexToBytes(key),
      );
      expect(derived).toBe(address);
      const decoded = Address(BITCOIN_NETWORKS.MAINNET).decode(derived);
      expect(decoded.type === 'tr' && bytesToHex(decoded.pubkey)).toBe(tweakedPubkey);
    }
  });

  it.each(vectors.privateKeyVectors)(
    'Dogecoin Core key_tests: $wif → $address',
    ({ format, wif, address }) => {
      // WIF: base58check(0x9e ‖ key ‖ 0x01 for a compressed key).
      const decoded = base58check.decode(wif);
      expect(decoded[0]).toBe(0x9e);
      expect(decoded.length).toBe(34);
      expect(decoded[33]).toBe(0x01);
      const publicKey = secp256k1.getPublicKey(decoded.subarray(1, 33), true);
      expect(deriveAddress(format as AddressFormat, 'CURVE_SECP256K1', publicKey)).toBe(address);
    },
  );

  it.each(vectors.hashVectors.dogePubkeyHash)(
    'Dogecoin $network P2PKH version byte: $hash → $address (base58_keys_valid.json)',
    ({ network, hash, address }) => {
      const version = DOGE_PUBKEY_HASH[network as DogeNetwork];
      expect(base58check.encode(concatBytes(Uint8Array.of(version), hexToBytes(hash)))).toBe(
        address,
      );
    },
  );
});

describe('Bitcoin networks', () => {
  const G = hexToBytes('0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798');
  const at = (network: BitcoinNetwork, type: BitcoinAddressType) =>
    deriveAddress(format(network, type), 'CURVE_SECP256K1', G);

  it('uses the prefixes of each network', () => {
    const prefixes: Record<BitcoinNetwork, Record<BitcoinAddressType, RegExp>> = {
      MAINNET: { P2PKH: /^1/, P2SH: /^3/, P2WPKH: /^bc1q/, P2WSH: /^bc1q/, P2TR: /^bc1p/ },
      TESTNET: { P2PKH: /^[mn]/, P2SH: /^2/, P2WPKH: /^tb1q/, P2WSH: /^tb1q/, P2TR: /^tb1p/ },
      SIGNET: { P2PKH: /^[mn]/, P2SH: /^2/, P2WPKH: /^tb1q/, P2WSH: /^tb1q/, P2TR: /^tb1p/ },
      REGTEST: { P2PKH: /^[mn]/, P2SH: /^2/, P2WPKH: /^bcrt1q/, P2WSH: /^bcrt1q/, P2TR: /^bcrt1p/ },
    };
    for (const network of NETWORKS) {
      for (const type of TYPES) expect(at(network, type)).toMatch(prefixes[network][type]);
    }
  });

  it('signet shares testnet addresses; regtest shares its base58 ones and has bcrt', () => {
    for (const type of TYPES) expect(at('SIGNET', type)).toBe(at('TESTNET', type));
    expect(at('REGTEST', 'P2PKH')).toBe(at('TESTNET', 'P2PKH'));
    expect(at('REGTEST', 'P2SH')).toBe(at('TESTNET', 'P2SH'));
    // Same witness program, other prefix: the BIP173 testnet example with the regtest hrp.
    expect(at('REGTEST', 'P2WPKH')).toBe('bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080');
  });
});

describe('Bitcoin properties (random keys)', () => {
  it('every type on every network decodes, with btc-signer, to the script of its key', () => {
    fc.assert(
      fc.property(secpKey, (key) => {
        const h = hash160(key);
        for (const network of NETWORKS) {
          const coder = Address(BITCOIN_NETWORKS[network]);
          const decode = (type: BitcoinAddressType) => {
            const address = deriveAddress(format(network, type), 'CURVE_SECP256K1', key);
            expect(deriveAddress(format(network, type), 'CURVE_SECP256K1', key)).toBe(address);
            return coder.decode(address);
          };
          expect(decode('P2PKH')).toEqual({ type: 'pkh', hash: h });
          // sh(wpkh(K)): the redeem script is 0014‖hash160(K).
          expect(decode('P2SH')).toEqual({
            type: 'sh',
            hash: hash160(concatBytes(Uint8Array.of(0x00, 0x14), h)),
          });
          expect(decode('P2WPKH')).toEqual({ type: 'wpkh', hash: h });
          // wsh(pk(K)): the witness script is 21‖K‖ac.
          expect(decode('P2WSH')).toEqual({
            type: 'wsh',
            hash: sha256(concatBytes(Uint8Array.of(0x21), key, Uint8Array.of(0xac))),
          });
          expect(decode('P2TR')).toEqual({ type: 'tr', pubkey: bip86OutputKey(key) });
        }
      }),
      { numRuns: 25 },
    );
  });

  it('Dogecoin addresses decode to the version byte and hash160 of the key', () => {
    fc.assert(
      fc.property(secpKey, (key) => {
        for (const network of ['MAINNET', 'TESTNET'] as const) {
          const address = deriveAddress(`ADDRESS_FORMAT_DOGE_${network}`, 'CURVE_SECP256K1', key);
          expect(address).toMatch(network === 'MAINNET' ? /^D/ : /^n/);
          expect(base58check.decode(address)).toEqual(
            concatBytes(Uint8Array.of(DOGE_PUBKEY_HASH[network]), hash160(key)),
          );
        }
      }),
      { numRuns: 50 },
    );
  });

  it('different keys give different addresses, in every format', () => {
    fc.assert(
      fc.property(secpKey, secpKey, (a, b) => {
        fc.pre(bytesToHex(a) !== bytesToHex(b));
        const formats: AddressFormat[] = [
          ...NETWORKS.flatMap((n) => TYPES.map((t) => format(n, t))),
          'ADDRESS_FORMAT_DOGE_MAINNET',
          'ADDRESS_FORMAT_DOGE_TESTNET',
        ];
        for (const f of formats) {
          expect(deriveAddress(f, 'CURVE_SECP256K1', a)).not.toBe(
            deriveAddress(f, 'CURVE_SECP256K1', b),
          );
        }
      }),
      { numRuns: 15 },
    );
  });
});

/** BIP86/BIP341 with noble only: Q = lift_x(x) + int(taggedHash("TapTweak", x))·G, x-only. */
function bip86OutputKey(compressed: Uint8Array): Uint8Array {
  const x = compressed.subarray(1);
  const P = schnorr.utils.lift_x(BigInt(`0x${bytesToHex(x)}`));
  const t = BigInt(`0x${bytesToHex(schnorr.utils.taggedHash('TapTweak', x))}`);
  return schnorr.utils.pointToBytes(P.add(schnorr.Point.BASE.multiply(t)));
}

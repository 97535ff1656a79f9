import type { AddressFormat } from '@keyhold/protocol';
import { ed25519 } from '@noble/curves/ed25519.js';
import { p256 } from '@noble/curves/nist.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { Address } from '@ton/core';
import { WalletContractV3R2, WalletContractV4, WalletContractV5R1 } from '@ton/ton';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deriveAddress } from './address.js';
import { type TonWalletVersion, tonAddress, tonWalletCode, tonWalletData } from './address-ton.js';
import { deriveKeyFromSeed } from './hd-derivation.js';
import { mnemonicToSeedSync } from './mnemonic.js';

const VERSIONS: readonly [TonWalletVersion, AddressFormat][] = [
  ['V3R2', 'ADDRESS_FORMAT_TON_V3R2'],
  ['V4R2', 'ADDRESS_FORMAT_TON_V4R2'],
  ['V5R1', 'ADDRESS_FORMAT_TON_V5R1'],
];

/** The independent implementation: `@ton/ton`'s wallet classes with their defaults. */
function tonTonWallet(version: TonWalletVersion, publicKey: Uint8Array) {
  const key = Buffer.from(publicKey);
  switch (version) {
    case 'V3R2':
      return WalletContractV3R2.create({ workchain: 0, publicKey: key });
    case 'V4R2':
      return WalletContractV4.create({ workchain: 0, publicKey: key });
    case 'V5R1':
      // `workchain` (not `workChain`) is the option name in @ton/ton 16.3; the default wallet
      // id is mainnet's (networkGlobalId -239, subwallet 0).
      return WalletContractV5R1.create({ workchain: 0, publicKey: key });
  }
}

/** What @ton/ton prints with the flags Keyhold chose: url-safe, non-bounceable, mainnet. */
function tonTonAddress(version: TonWalletVersion, publicKey: Uint8Array): string {
  return tonTonWallet(version, publicKey).address.toString({
    urlSafe: true,
    bounceable: false,
    testOnly: false,
  });
}

const edKey = fc
  .uint8Array({ minLength: 32, maxLength: 32 })
  .map((secret) => ed25519.getPublicKey(secret));

describe('TON wallet contracts', () => {
  // The code hashes explorers and wallet apps use to recognise each version (docs.ton.org
  // "wallet contracts"; mainnet accountStates.code_hash of any wallet of that version).
  it.each([
    ['V3R2', '84dafa449f98a6987789ba232358072bc0f76dc4524002a5d0918b9a75d2d599'],
    ['V4R2', 'feb5ff6820e2ff0d9483e7e0d62c817d846789fb4ae580c878866d959dabd5c0'],
    ['V5R1', '20834b7b72b112147e1b2fb457b84e74d1a30f04f737d4f62a668e9552d2b72f'],
  ] as const)('the %s code cell has the published code hash %s', (version, hash) => {
    expect(tonWalletCode(version).hash().toString('hex')).toBe(hash);
    const key = ed25519.getPublicKey(new Uint8Array(32).fill(7));
    expect(tonWalletCode(version).equals(tonTonWallet(version, key).init.code)).toBe(true);
  });

  it('v5r1 data carries wallet id 2147483409 (mainnet, workchain 0, subwallet 0)', () => {
    const key = ed25519.getPublicKey(new Uint8Array(32).fill(7));
    const slice = tonWalletData('V5R1', key).beginParse();
    expect(slice.loadBit()).toBe(true); // signature auth allowed
    expect(slice.loadUint(32)).toBe(0); // seqno
    expect(slice.loadUint(32)).toBe(2147483409);
    expect(bytesToHex(slice.loadBuffer(32))).toBe(bytesToHex(key));
    expect(slice.loadBit()).toBe(false); // no extensions
    expect(slice.remainingBits).toBe(0);
  });

  it('v3r2 and v4r2 data carry seqno 0 and subwallet id 698983191', () => {
    const key = ed25519.getPublicKey(new Uint8Array(32).fill(7));
    for (const version of ['V3R2', 'V4R2'] as const) {
      const slice = tonWalletData(version, key).beginParse();
      expect(slice.loadUint(32)).toBe(0);
      expect(slice.loadUint(32)).toBe(698983191);
      expect(bytesToHex(slice.loadBuffer(32))).toBe(bytesToHex(key));
      if (version === 'V4R2') expect(slice.loadBit()).toBe(false); // no plugins
      expect(slice.remainingBits).toBe(0);
    }
  });
});

describe('ADDRESS_FORMAT_TON_V3R2 / V4R2 / V5R1', () => {
  // The key of `randomTestKey('v4-treasure')` in ton-org/ton's wallet specs. Published:
  // ton-org/ton src/wallets/v3/r2.spec.ts and v4/WalletContractV4.spec.ts ("should has
  // balance and correct address", bounceable form); hexkpz/swift-ton
  // Sources/ContractsTests/WalletsTests.swift for all three (V5R1 in the UQ form).
  const SPEC_KEY = '5754865e86d0ade1199301bbb0319a25ed6b129c4b0a57f28f62449b3df9c522';
  it.each([
    [
      'V3R2',
      'EQA0D_5WdusaCB-SpnoE6l5TzdBmgOkzTcXrdh0px6g3zJSk',
      'UQA0D_5WdusaCB-SpnoE6l5TzdBmgOkzTcXrdh0px6g3zMlh',
    ],
    [
      'V4R2',
      'EQDnBF4JTFKHTYjulEJyNd4dstLGH1m51UrLdu01_tw4z2Au',
      'UQDnBF4JTFKHTYjulEJyNd4dstLGH1m51UrLdu01_tw4zz3r',
    ],
    [
      'V5R1',
      'UQBiUbwjoB56b7CYtoiPnY5vPh2Fwjva6jEPBhqnttjQKpce',
      'UQBiUbwjoB56b7CYtoiPnY5vPh2Fwjva6jEPBhqnttjQKpce',
    ],
  ] as const)('the ton-org/ton spec key: %s → %s (as %s)', (version, published, expected) => {
    const address = tonAddress(version, hexToBytes(SPEC_KEY));
    expect(address).toBe(expected);
    expect(Address.parse(address).equals(Address.parse(published))).toBe(true);
    expect(tonTonAddress(version, hexToBytes(SPEC_KEY))).toBe(expected);
  });

  // BIP39 "abandon … about", SLIP-10 Ed25519 at Turnkey's default TON path; the expected
  // strings were computed with @ton/ton 16.3 and are re-checked against it on every run.
  const ABANDON = `${'abandon '.repeat(11)}about`;
  it.each([
    [0, 'V3R2', 'UQC4_unJ-jlbLt-3UO46cvKkyYI2-5LT9ZI3OpAvda2MpioL'],
    [0, 'V4R2', 'UQDxAUFadQXDd3EXGa3TLF_EF66gMc9h3_aZ0j0zXNoIYUCc'],
    [0, 'V5R1', 'UQDirP22rbgIZLzppawr2lJt42Xf3P9uJJtnbK-CnlqgiQFL'],
    [1, 'V4R2', 'UQA8R_Q1gL2Fk8VBy74c4LisEm2YWJLJwPdxVwuUsuQ4XYLB'],
  ] as const)("abandon…about m/44'/607'/%i'/0'/0' %s → %s", (account, version, expected) => {
    const seed = mnemonicToSeedSync(ABANDON);
    const path = `m/44'/607'/${account}'/0'/0'`;
    const { publicKey } = deriveKeyFromSeed(seed, 'CURVE_ED25519', path);
    const format = `ADDRESS_FORMAT_TON_${version}` as AddressFormat;
    expect(deriveAddress(format, 'CURVE_ED25519', publicKey)).toBe(expected);
    expect(tonTonAddress(version, publicKey)).toBe(expected);
  });

  it('matches @ton/ton for random keys in every version, as a mainnet non-bounceable UQ…', () => {
    fc.assert(
      fc.property(edKey, edKey, (a, b) => {
        const seen = new Set<string>();
        for (const [version, format] of VERSIONS) {
          const address = deriveAddress(format, 'CURVE_ED25519', a);
          expect(address).toBe(tonTonAddress(version, a));
          expect(address).toMatch(/^UQ[A-Za-z0-9_-]{46}$/);
          const parsed = Address.parseFriendly(address);
          expect(parsed.isBounceable).toBe(false);
          expect(parsed.isTestOnly).toBe(false);
          expect(parsed.address.workChain).toBe(0);
          seen.add(address);
          if (bytesToHex(a) !== bytesToHex(b)) {
            expect(deriveAddress(format, 'CURVE_ED25519', b)).not.toBe(address);
          }
        }
        expect(seen.size).toBe(3); // one key, three different wallet accounts
      }),
      { numRuns: 40 },
    );
  });

  it('matches @ton/ton data cells byte for byte', () => {
    fc.assert(
      fc.property(edKey, (key) => {
        for (const [version] of VERSIONS) {
          expect(tonWalletData(version, key).equals(tonTonWallet(version, key).init.data)).toBe(
            true,
          );
        }
      }),
      { numRuns: 20 },
    );
  });

  it.each(VERSIONS)('%s refuses secp256k1 and P-256 keys (%s is Ed25519 only)', (_, format) => {
    for (const [curve, key] of [
      ['CURVE_SECP256K1', secp256k1.getPublicKey(new Uint8Array(32).fill(1))],
      ['CURVE_P256', p256.getPublicKey(new Uint8Array(32).fill(1))],
    ] as const) {
      expect(() => deriveAddress(format, curve, key)).toThrow(
        expect.objectContaining({
          key: 'INVALID_ADDRESS_FORMAT',
          context: expect.objectContaining({ reason: `${format} cannot encode a ${curve} key` }),
        }),
      );
    }
  });

  it('refuses a key that is not 32 bytes or not an Ed25519 point', () => {
    expect(() => tonAddress('V4R2', new Uint8Array(31))).toThrow(
      expect.objectContaining({ key: 'INVALID_PUBLIC_KEY' }),
    );
    expect(() =>
      deriveAddress('ADDRESS_FORMAT_TON_V4R2', 'CURVE_ED25519', new Uint8Array(33)),
    ).toThrow(expect.objectContaining({ key: 'INVALID_PUBLIC_KEY' }));
  });
});

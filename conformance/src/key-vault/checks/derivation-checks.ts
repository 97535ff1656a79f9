/**
 * Checks of `deriveKey`: the published accounts of the "abandon … about" wallet, the key of any
 * path against BIP32 (@scure/bip32) and SLIP-10 as @keyhold/keys derives it, and refusals of
 * bad paths and curves.
 * @module
 */
import assert from 'node:assert/strict';
import {
  deriveAddress,
  deriveKeyFromSeed,
  generateMnemonic,
  mnemonicToSeedSync,
} from '@keyhold/keys';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import fc from 'fast-check';
import { fcParameters } from '../../property.js';
import { eip55, ethereumAddressOf } from '../../verify-signature.js';
import type { KeyVaultCheck } from '../key-vault-check.js';
import type { ContractContext } from '../key-vault-contract-options.js';
import { assertRefusedWith } from '../refusal.js';
import {
  assertPublicKey,
  assertValidSignature,
  VAULT_CURVES,
  type VaultCurve,
} from '../signature-oracle.js';
import { ABANDON_ACCOUNTS, ABANDON_MNEMONIC } from '../vectors.js';

/** Paths every vault must refuse, with the curve they are tried on. */
const BAD_PATHS: readonly [string, VaultCurve][] = [
  ['', 'CURVE_SECP256K1'],
  ['x', 'CURVE_SECP256K1'],
  ["44'/60'/0'/0/0", 'CURVE_SECP256K1'],
  ['m/', 'CURVE_SECP256K1'],
  ['m/x', 'CURVE_SECP256K1'],
  ['m//0', 'CURVE_P256'],
  ['m/-1', 'CURVE_P256'],
  ['m/2147483648', 'CURVE_SECP256K1'],
  ["m/0''", 'CURVE_P256'],
  ["m/44'/501'/0'/0", 'CURVE_ED25519'],
  ['m/0', 'CURVE_ED25519'],
];

/** P-256 paths of the "abandon … about" wallet compared with @keyhold/keys' SLIP-10. */
const P256_PATHS = ["m/44'/0'/0'/0/0", "m/1'/2'/3'", 'm/0/1/2'];

/** A path of 1–5 segments, hardened where the curve needs it. */
const pathArb = (curve: VaultCurve) =>
  fc
    .array(fc.tuple(fc.integer({ min: 0, max: 2 ** 31 - 1 }), fc.boolean()), {
      minLength: 1,
      maxLength: 5,
    })
    .map(
      (segments) =>
        `m/${segments
          .map(([index, hardened]) => `${index}${hardened || curve === 'CURVE_ED25519' ? "'" : ''}`)
          .join('/')}`,
    );

/**
 * The derivation checks.
 * @example
 * for (const check of derivationChecks(resolveContractOptions({ vault }))) await check.run();
 */
export function derivationChecks(ctx: ContractContext): KeyVaultCheck[] {
  return [
    {
      name: 'deriveKey: "abandon … about" gives the published accounts (BIP44 Ethereum, BIP84, BIP86, Solana) and the SLIP-10 P-256 keys',
      async run() {
        const vault = await ctx.vault();
        const exportable = ctx.traits('deriveKey').exportable;
        const seed = await vault.importSeed(ABANDON_MNEMONIC);
        for (const account of ABANDON_ACCOUNTS) {
          const what = `deriveKey(${account.curve}, ${account.path})`;
          const { key, publicKey } = await vault.deriveKey(seed, account.curve, account.path);
          assertPublicKey(account.curve, publicKey, what);
          const address = deriveAddress(account.addressFormat, account.curve, publicKey);
          assert.equal(address, account.address, `${what}: ${account.source}`);
          if (exportable && account.privateKey) {
            assert.equal(bytesToHex(await vault.revealKey(key)), account.privateKey, what);
          }
        }
        const bip39Seed = mnemonicToSeedSync(ABANDON_MNEMONIC);
        for (const path of P256_PATHS) {
          const { publicKey } = await vault.deriveKey(seed, 'CURVE_P256', path);
          const expected = deriveKeyFromSeed(bip39Seed, 'CURVE_P256', path).publicKey;
          assert.equal(
            bytesToHex(publicKey),
            bytesToHex(expected),
            `deriveKey(CURVE_P256, ${path}) is not the SLIP-10 nist256p1 key`,
          );
        }
      },
    },
    {
      name: 'deriveKey: the "abandon … about" Ethereum account signs a digest whose signature recovers its address',
      async run() {
        const vault = await ctx.vault();
        const seed = await vault.importSeed(ABANDON_MNEMONIC);
        const { key } = await vault.deriveKey(seed, 'CURVE_SECP256K1', "m/44'/60'/0'/0/0");
        const digest = keccak_256(utf8ToBytes('hello'));
        const { r, s, recovery } = await vault.sign(key, 'CURVE_SECP256K1', digest);
        assert.ok(recovery === 0 || recovery === 1, 'the recovery id must be 0 or 1');
        const recovered = secp256k1.Signature.fromBytes(new Uint8Array([...r, ...s]), 'compact')
          .addRecoveryBit(recovery)
          .recoverPublicKey(digest)
          .toBytes(false);
        assert.equal(
          eip55(ethereumAddressOf(recovered)),
          '0x9858EfFD232B4033E47d90003D41EC34EcaEda94',
          'the signature recovers another address',
        );
      },
    },
    {
      name: 'deriveKey: any path of any curve gives the BIP32 / SLIP-10 key of the seed, and it signs (fast-check)',
      async run() {
        const vault = await ctx.vault();
        const mnemonic = generateMnemonic(12);
        const seed = await vault.importSeed(mnemonic);
        const bip39Seed = mnemonicToSeedSync(mnemonic);
        const caseArb = fc
          .constantFrom(...VAULT_CURVES)
          .chain((curve) =>
            fc.tuple(
              fc.constant(curve),
              pathArb(curve),
              fc.uint8Array({ minLength: 32, maxLength: 32 }),
            ),
          );
        await fc.assert(
          fc.asyncProperty(caseArb, async ([curve, path, digest]) => {
            const what = `deriveKey(${curve}, ${path})`;
            const { key, publicKey } = await vault.deriveKey(seed, curve, path);
            const expected = deriveKeyFromSeed(bip39Seed, curve, path).publicKey;
            assert.equal(bytesToHex(publicKey), bytesToHex(expected), `${what}: another key`);
            const signature = await vault.sign(key, curve, digest);
            assertValidSignature(curve, publicKey, digest, signature, `${what} then sign`);
          }),
          fcParameters(ctx.property),
        );
      },
    },
    {
      name: 'deriveKey: refuses a malformed path with INVALID_PATH (Ed25519: every segment hardened)',
      async run() {
        const vault = await ctx.vault();
        const seed = await vault.importSeed(ABANDON_MNEMONIC);
        for (const [path, curve] of BAD_PATHS) {
          await assertRefusedWith(
            () => vault.deriveKey(seed, curve, path),
            'INVALID_PATH',
            `deriveKey(${curve}, ${JSON.stringify(path)})`,
          );
        }
      },
    },
    {
      name: 'deriveKey: refuses an unknown curve with INVALID_CURVE',
      async run() {
        const vault = await ctx.vault();
        const seed = await vault.importSeed(ABANDON_MNEMONIC);
        for (const curve of ['CURVE_P384', 'CURVE_SECP256R1', '', 'curve_secp256k1']) {
          await assertRefusedWith(
            () => vault.deriveKey(seed, curve as VaultCurve, "m/44'/60'/0'"),
            'INVALID_CURVE',
            `deriveKey(${JSON.stringify(curve)})`,
          );
        }
      },
    },
  ];
}

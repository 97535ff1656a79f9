/**
 * Checks of standalone keys: `createKey`, `importKey` and `revealKey`. Public keys are judged
 * with @noble/curves; what `revealKey` may return depends on the origin's `exportable` trait.
 * @module
 */
import assert from 'node:assert/strict';
import { p256 } from '@noble/curves/nist.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import type { KeyVaultCheck } from '../key-vault-check.js';
import { type ContractContext, KEY_ORIGINS } from '../key-vault-contract-options.js';
import { assertRefusedWith } from '../refusal.js';
import {
  assertPublicKey,
  publicKeyOf,
  randomPrivateKey,
  VAULT_CURVES,
  type VaultCurve,
} from '../signature-oracle.js';
import { TestKeys } from '../test-keys.js';
import { RFC6979_VECTORS, RFC8032_VECTORS } from '../vectors.js';

const hex32 = (value: bigint) => hexToBytes(value.toString(16).padStart(64, '0'));
const SECP256K1_N = secp256k1.Point.Fn.ORDER;
const P256_N = p256.Point.Fn.ORDER;

/** Private keys no vault may import: 0, n, n + 1, 2^256 − 1, and the wrong sizes. */
const BAD_PRIVATE_KEYS: readonly [string, VaultCurve, Uint8Array][] = [
  ['zero', 'CURVE_SECP256K1', new Uint8Array(32)],
  ['n', 'CURVE_SECP256K1', hex32(SECP256K1_N)],
  ['n + 1', 'CURVE_SECP256K1', hex32(SECP256K1_N + 1n)],
  ['2^256 − 1', 'CURVE_SECP256K1', new Uint8Array(32).fill(0xff)],
  ['zero', 'CURVE_P256', new Uint8Array(32)],
  ['n', 'CURVE_P256', hex32(P256_N)],
  ['2^256 − 1', 'CURVE_P256', new Uint8Array(32).fill(0xff)],
  ['31 bytes', 'CURVE_SECP256K1', new Uint8Array(31).fill(1)],
  ['33 bytes', 'CURVE_P256', new Uint8Array(33).fill(1)],
  ['31 bytes', 'CURVE_ED25519', new Uint8Array(31).fill(1)],
  ['33 bytes', 'CURVE_ED25519', new Uint8Array(33).fill(1)],
  ['no bytes', 'CURVE_ED25519', new Uint8Array(0)],
];

const UNKNOWN_CURVES = ['CURVE_P384', 'CURVE_ED448', '', 'curve_p256'];

/**
 * The key checks.
 * @example
 * for (const check of keyChecks(resolveContractOptions({ vault }))) await check.run();
 */
export function keyChecks(ctx: ContractContext): KeyVaultCheck[] {
  const exportable = KEY_ORIGINS.filter((origin) => ctx.traits(origin).exportable);
  const sealedIn = KEY_ORIGINS.filter((origin) => !ctx.traits(origin).exportable);
  const checks: KeyVaultCheck[] = [
    {
      name: 'keys: createKey gives a valid public key of each curve, a new one each time',
      async run() {
        const vault = await ctx.vault();
        for (const curve of VAULT_CURVES) {
          const a = await vault.createKey(curve);
          const b = await vault.createKey(curve);
          for (const made of [a, b]) {
            assert.equal(typeof made.key, 'string', `createKey(${curve}): the key is not a string`);
            assertPublicKey(curve, made.publicKey, `createKey(${curve})`);
          }
          assert.notEqual(a.key, b.key, `createKey(${curve}) twice gave the same sealed key`);
          assert.notEqual(
            bytesToHex(a.publicKey),
            bytesToHex(b.publicKey),
            `createKey(${curve}) twice gave the same public key`,
          );
        }
      },
    },
    {
      name: 'keys: importKey gives the public key of the private key, on each curve (RFC 6979 and RFC 8032 keys, random keys, 1 and n − 1)',
      async run() {
        const vault = await ctx.vault();
        const cases: [VaultCurve, Uint8Array][] = [
          ...RFC6979_VECTORS.map((v): [VaultCurve, Uint8Array] => [
            v.curve,
            hexToBytes(v.privateKey),
          ]),
          ...RFC8032_VECTORS.map((v): [VaultCurve, Uint8Array] => [
            'CURVE_ED25519',
            hexToBytes(v.privateKey),
          ]),
          ...VAULT_CURVES.map((curve): [VaultCurve, Uint8Array] => [
            curve,
            randomPrivateKey(curve),
          ]),
          ['CURVE_P256', hex32(1n)],
          ['CURVE_P256', hex32(P256_N - 1n)],
          ['CURVE_SECP256K1', hex32(SECP256K1_N - 1n)],
        ];
        for (const [curve, privateKey] of cases) {
          const what = `importKey(${curve}, ${bytesToHex(privateKey).slice(0, 8)}…)`;
          const { key, publicKey } = await vault.importKey(curve, privateKey.slice());
          assert.equal(typeof key, 'string', `${what}: the key is not a string`);
          assertPublicKey(curve, publicKey, what);
          assert.equal(
            bytesToHex(publicKey),
            bytesToHex(publicKeyOf(curve, privateKey)),
            `${what}: not the public key of the private key`,
          );
        }
      },
    },
    {
      name: 'keys: importKey refuses a private key of 0, n or more, or not 32 bytes, with INVALID_PRIVATE_KEY',
      async run() {
        const vault = await ctx.vault();
        for (const [what, curve, privateKey] of BAD_PRIVATE_KEYS) {
          await assertRefusedWith(
            () => vault.importKey(curve, privateKey),
            'INVALID_PRIVATE_KEY',
            `importKey(${curve}, ${what})`,
          );
        }
      },
    },
    {
      name: 'keys: createKey and importKey refuse an unknown curve with INVALID_CURVE',
      async run() {
        const vault = await ctx.vault();
        for (const curve of UNKNOWN_CURVES) {
          const shown = JSON.stringify(curve);
          await assertRefusedWith(
            () => vault.createKey(curve as VaultCurve),
            'INVALID_CURVE',
            `createKey(${shown})`,
          );
          await assertRefusedWith(
            () => vault.importKey(curve as VaultCurve, new Uint8Array(32).fill(1)),
            'INVALID_CURVE',
            `importKey(${shown})`,
          );
        }
      },
    },
  ];
  if (exportable.length > 0) {
    checks.push({
      name: `keys: revealKey returns the private key of keys from ${exportable.join(', ')}`,
      async run() {
        const vault = await ctx.vault();
        const keys = new TestKeys(vault);
        for (const curve of VAULT_CURVES) {
          for (const made of await keys.each(curve, exportable)) {
            const what = `revealKey of a ${curve} key from ${made.origin}`;
            const revealed = await vault.revealKey(made.key);
            assert.ok(revealed instanceof Uint8Array, `${what}: not a Uint8Array`);
            assert.equal(revealed.length, 32, `${what}: not 32 bytes`);
            if (made.privateKey) {
              assert.equal(bytesToHex(revealed), bytesToHex(made.privateKey), what);
            }
            assert.equal(
              bytesToHex(publicKeyOf(curve, revealed)),
              bytesToHex(made.publicKey),
              `${what}: not the private key of the public key`,
            );
          }
        }
      },
    });
  }
  if (sealedIn.length > 0) {
    checks.push({
      name: `keys: revealKey refuses keys from ${sealedIn.join(', ')} with PRIVATE_KEY_NOT_EXPORTABLE`,
      async run() {
        const vault = await ctx.vault();
        const keys = new TestKeys(vault);
        for (const curve of VAULT_CURVES) {
          for (const made of await keys.each(curve, sealedIn)) {
            await assertRefusedWith(
              () => vault.revealKey(made.key),
              'PRIVATE_KEY_NOT_EXPORTABLE',
              `revealKey of a ${curve} key from ${made.origin}`,
            );
          }
        }
      },
    });
  }
  return checks;
}

/**
 * Checks of `sign`: on every curve, with keys of every origin, signatures verify (@noble), ECDSA
 * ones are low-S with a recovery id that recovers the key, Ed25519 ones cover the message
 * itself and match RFC 8032; and what must not sign is refused: a digest of the wrong size, a
 * message that is not bytes, an unknown curve, a key used as another curve.
 * @module
 */
import assert from 'node:assert/strict';
import { hexToBytes } from '@noble/hashes/utils.js';
import fc from 'fast-check';
import { fcParameters } from '../../property.js';
import type { KeyVaultCheck } from '../key-vault-check.js';
import { type ContractContext, KEY_ORIGINS } from '../key-vault-contract-options.js';
import { assertRefused, assertRefusedWith } from '../refusal.js';
import {
  assertValidSignature,
  deterministicSignature,
  ECDSA_CURVES,
  signatureHex,
  VAULT_CURVES,
  type VaultCurve,
} from '../signature-oracle.js';
import { type TestKey, TestKeys } from '../test-keys.js';
import { RFC8032_VECTORS } from '../vectors.js';

const ORIGINS = KEY_ORIGINS.join(', ');
const digestArb = fc.uint8Array({ minLength: 32, maxLength: 32 });

/** Two keys per origin: properties pick among them. */
async function keysOf(keys: TestKeys, curve: VaultCurve): Promise<TestKey[]> {
  return [...(await keys.each(curve, KEY_ORIGINS)), ...(await keys.each(curve, KEY_ORIGINS))];
}

/**
 * The signing checks.
 * @example
 * for (const check of signingChecks(resolveContractOptions({ vault }))) await check.run();
 */
export function signingChecks(ctx: ContractContext): KeyVaultCheck[] {
  const ecdsa = ECDSA_CURVES.map(
    (curve): KeyVaultCheck => ({
      name: `sign: ${curve} signatures by keys from ${ORIGINS} verify, are low-S, and their recovery id recovers the key (fast-check)`,
      async run() {
        const vault = await ctx.vault();
        const keys = await keysOf(new TestKeys(vault), curve);
        await fc.assert(
          fc.asyncProperty(fc.constantFrom(...keys), digestArb, async (made, digest) => {
            const signature = await vault.sign(made.key, curve, digest);
            assertValidSignature(curve, made.publicKey, digest, signature, `${made.origin} key`);
          }),
          fcParameters(ctx.property),
        );
      },
    }),
  );
  return [
    ...ecdsa,
    {
      name: `sign: CURVE_ED25519 signatures by keys from ${ORIGINS} verify over any message, the empty and a 64 KiB one included, and are RFC 8032's: the same every time (fast-check)`,
      async run() {
        const vault = await ctx.vault();
        const maker = new TestKeys(vault);
        const keys: TestKey[] = [];
        for (const made of await keysOf(maker, 'CURVE_ED25519')) {
          const privateKey = await maker.privateKeyOf(made, ctx.traits(made.origin).exportable);
          keys.push({ ...made, ...(privateKey ? { privateKey } : {}) });
        }
        const check = async (made: TestKey, message: Uint8Array) => {
          const what = `${made.origin} key, ${message.length}-byte message`;
          const signature = await vault.sign(made.key, 'CURVE_ED25519', message);
          assertValidSignature('CURVE_ED25519', made.publicKey, message, signature, what);
          const again = await vault.sign(made.key, 'CURVE_ED25519', message);
          assert.equal(signatureHex(again), signatureHex(signature), `${what}: not deterministic`);
          if (made.privateKey) {
            const expected = deterministicSignature('CURVE_ED25519', made.privateKey, message);
            assert.equal(signatureHex(signature), signatureHex(expected), `${what}: not RFC 8032`);
          }
        };
        for (const made of keys.slice(0, KEY_ORIGINS.length)) {
          await check(made, new Uint8Array(0));
          await check(made, new Uint8Array(65_536).fill(7));
        }
        await fc.assert(
          fc.asyncProperty(
            fc.constantFrom(...keys),
            fc.uint8Array({ minLength: 0, maxLength: 256 }),
            check,
          ),
          fcParameters(ctx.property),
        );
      },
    },
    {
      name: 'sign: imported Ed25519 keys give the RFC 8032 signatures (section 7.1, tests 1–3)',
      async run() {
        const vault = await ctx.vault();
        for (const vector of RFC8032_VECTORS) {
          const { key } = await vault.importKey('CURVE_ED25519', hexToBytes(vector.privateKey));
          const signature = await vault.sign(key, 'CURVE_ED25519', hexToBytes(vector.message));
          assert.equal(signatureHex(signature), vector.signature, vector.source);
        }
      },
    },
    {
      name: 'sign: refuses an ECDSA message that is not a 32-byte digest, and a message that is not bytes, with INVALID_PAYLOAD',
      async run() {
        const vault = await ctx.vault();
        const keys = new TestKeys(vault);
        for (const curve of VAULT_CURVES) {
          for (const made of await keys.each(curve, KEY_ORIGINS)) {
            const what = `sign with a ${curve} key from ${made.origin}`;
            if (curve !== 'CURVE_ED25519') {
              for (const size of [0, 1, 31, 33, 64]) {
                await assertRefusedWith(
                  () => vault.sign(made.key, curve, new Uint8Array(size)),
                  'INVALID_PAYLOAD',
                  `${what} over ${size} bytes`,
                );
              }
            }
            for (const notBytes of ['00'.repeat(32), Array.from(new Uint8Array(32)), null]) {
              await assertRefusedWith(
                () => vault.sign(made.key, curve, notBytes as unknown as Uint8Array),
                'INVALID_PAYLOAD',
                `${what} over ${notBytes === null ? 'null' : typeof notBytes}`,
              );
            }
          }
        }
      },
    },
    {
      name: 'sign: refuses an unknown curve with INVALID_CURVE',
      async run() {
        const vault = await ctx.vault();
        const keys = new TestKeys(vault);
        for (const made of await keys.each('CURVE_SECP256K1', KEY_ORIGINS)) {
          for (const curve of ['CURVE_P384', '', 'curve_secp256k1']) {
            await assertRefusedWith(
              () => vault.sign(made.key, curve as VaultCurve, new Uint8Array(32).fill(1)),
              'INVALID_CURVE',
              `sign with a key from ${made.origin} as ${JSON.stringify(curve)}`,
            );
          }
        }
      },
    },
    {
      name: `sign: a key is refused as any other curve (keys from ${ORIGINS})`,
      async run() {
        const vault = await ctx.vault();
        const keys = new TestKeys(vault);
        for (const curve of VAULT_CURVES) {
          for (const made of await keys.each(curve, KEY_ORIGINS)) {
            for (const other of VAULT_CURVES.filter((c) => c !== curve)) {
              await assertRefused(
                () => vault.sign(made.key, other, new Uint8Array(32).fill(1)),
                `signing as ${other} with a ${curve} key from ${made.origin}`,
              );
            }
          }
        }
      },
    },
  ];
}

/**
 * Checks of what the vault hands out for storage, its sealed secrets (`SealedSecret`): they
 * never contain the secret they seal, a seed cannot be used as a key nor a key as a seed, and
 * a tampered or truncated one is refused — without a signature or a secret coming out. The
 * format is the vault's own; these checks only assume it is a string.
 * @module
 */
import assert from 'node:assert/strict';
import {
  generateMnemonic,
  mnemonicToEntropy,
  mnemonicToSeedSync,
  type SealedSecret,
} from '@keyhold/keys';
import fc from 'fast-check';
import { fcParameters } from '../../property.js';
import type { KeyVaultCheck } from '../key-vault-check.js';
import { type ContractContext, KEY_ORIGINS } from '../key-vault-contract-options.js';
import { assertRefused } from '../refusal.js';
import { assertSecretNotIn } from '../secret-leak.js';
import { VAULT_CURVES } from '../signature-oracle.js';
import { tamperAt, truncations } from '../tamper.js';
import { type TestKey, TestKeys } from '../test-keys.js';

const ORIGINS = KEY_ORIGINS.join(', ');
const DIGEST = new Uint8Array(32).fill(0x5a);

/**
 * The sealed-secret checks.
 * @example
 * for (const check of sealedChecks(resolveContractOptions({ vault }))) await check.run();
 */
export function sealedChecks(ctx: ContractContext): KeyVaultCheck[] {
  return [
    {
      name: 'sealed: no sealed seed or key contains its secret (entropy, BIP39 seed, mnemonic, private key) in hex, base64 or base64url',
      async run() {
        const vault = await ctx.vault();
        for (const words of [12, 24]) {
          const mnemonic = generateMnemonic(words);
          const imported = await vault.importSeed(mnemonic);
          const created = await vault.createSeed(words);
          const createdMnemonic = await vault.revealMnemonic(created);
          for (const [sealed, phrase, what] of [
            [imported, mnemonic, `importSeed (${words} words)`],
            [created, createdMnemonic, `createSeed(${words})`],
          ] as const) {
            assertSecretNotIn(sealed, mnemonicToEntropy(phrase), `${what}, entropy`);
            assertSecretNotIn(sealed, mnemonicToSeedSync(phrase), `${what}, BIP39 seed`);
            assertSecretNotIn(sealed, phrase, `${what}, mnemonic`);
          }
        }
        const keys = new TestKeys(vault);
        for (const curve of VAULT_CURVES) {
          for (const made of await keys.each(curve, KEY_ORIGINS)) {
            const privateKey = await keys.privateKeyOf(made, ctx.traits(made.origin).exportable);
            if (privateKey) {
              assertSecretNotIn(made.key, privateKey, `a ${curve} key from ${made.origin}`);
            }
          }
        }
      },
    },
    {
      name: `sealed: a seed is not a key and a key is not a seed (keys from ${ORIGINS})`,
      async run() {
        const vault = await ctx.vault();
        const keys = new TestKeys(vault);
        const { seed } = await keys.wallet();
        for (const curve of VAULT_CURVES) {
          const message = new Uint8Array(32).fill(1);
          await assertRefused(() => vault.sign(seed, curve, message), `sign(${curve}) with a seed`);
        }
        await assertRefused(() => vault.revealKey(seed), 'revealKey of a seed');
        for (const curve of VAULT_CURVES) {
          for (const made of await keys.each(curve, KEY_ORIGINS)) {
            const what = `a ${curve} key from ${made.origin}`;
            await assertRefused(() => vault.revealMnemonic(made.key), `revealMnemonic of ${what}`);
            await assertRefused(
              () => vault.deriveKey(made.key, 'CURVE_SECP256K1', "m/44'/60'/0'/0/0"),
              `deriveKey from ${what}`,
            );
          }
        }
      },
    },
    {
      name: `sealed: a tampered or truncated seed or key is refused: no signature, no secret (keys from ${ORIGINS}; fast-check)`,
      async run() {
        const vault = await ctx.vault();
        const maker = new TestKeys(vault);
        const { seed } = await maker.wallet();
        const keys: TestKey[] = [];
        for (const curve of VAULT_CURVES) keys.push(...(await maker.each(curve, KEY_ORIGINS)));
        const refusesKey = async (made: TestKey, sealed: SealedSecret, how: string) => {
          const what = `a ${made.curve} key from ${made.origin}, ${how}`;
          await assertRefused(() => vault.sign(sealed, made.curve, DIGEST), `sign with ${what}`);
          await assertRefused(() => vault.revealKey(sealed), `revealKey of ${what}`);
        };
        const refusesSeed = async (sealed: SealedSecret, how: string) => {
          await assertRefused(() => vault.revealMnemonic(sealed), `revealMnemonic, ${how}`);
          await assertRefused(
            () => vault.deriveKey(sealed, 'CURVE_SECP256K1', "m/44'/60'/0'/0/0"),
            `deriveKey from a seed, ${how}`,
          );
        };
        for (const made of keys) {
          for (const cut of truncations(made.key)) {
            await refusesKey(made, cut, `cut to ${cut.length} characters`);
          }
        }
        for (const cut of truncations(seed)) {
          await refusesSeed(cut, `cut to ${cut.length} characters`);
        }
        await fc.assert(
          fc.asyncProperty(
            fc.option(fc.constantFrom(...keys), { nil: undefined }),
            fc.nat(),
            async (made, position) => {
              const sealed = made ? made.key : seed;
              const tampered = tamperAt(sealed, position);
              assert.ok(tampered !== undefined, `no character of ${sealed} can be replaced`);
              const how = `tampered at ${position % (sealed.length - 1)}`;
              if (made) await refusesKey(made, tampered, how);
              else await refusesSeed(tampered, how);
            },
          ),
          fcParameters(ctx.property),
        );
      },
    },
  ];
}

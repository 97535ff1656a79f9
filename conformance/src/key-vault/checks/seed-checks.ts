/**
 * Checks of wallet seeds: `createSeed`, `importSeed` and `revealMnemonic`. Mnemonics are judged
 * with BIP39 (the English wordlist and checksum, @scure/bip39 through @keyhold/keys).
 * @module
 */
import assert from 'node:assert/strict';
import { generateMnemonic, isValidMnemonic, normalizeMnemonic } from '@keyhold/keys';
import { MNEMONIC_LENGTHS } from '@keyhold/protocol';
import { bytesToHex } from '@noble/hashes/utils.js';
import type { KeyVaultCheck } from '../key-vault-check.js';
import type { ContractContext } from '../key-vault-contract-options.js';
import { assertRefusedWith } from '../refusal.js';
import { ABANDON_MNEMONIC } from '../vectors.js';

/** Word counts that are not BIP39 lengths Keyhold allows. */
const BAD_LENGTHS = [0, 1, 11, 13, 16, 25, 48, -12, 12.5, Number.NaN];

/** Mnemonics that are not valid BIP39: checksum, wordlist, word count, type. */
const BAD_MNEMONICS: readonly [string, unknown][] = [
  ['a wrong checksum', ABANDON_MNEMONIC.replace(/about$/, 'abandon')],
  ['a word not in the wordlist', ABANDON_MNEMONIC.replace(/about$/, 'keyhold')],
  ['11 words', ABANDON_MNEMONIC.split(' ').slice(1).join(' ')],
  ['13 words', `abandon ${ABANDON_MNEMONIC}`],
  ['the empty string', ''],
  ['a number', 42],
];

/**
 * The seed checks.
 * @example
 * for (const check of seedChecks(resolveContractOptions({ vault }))) await check.run();
 */
export function seedChecks(ctx: ContractContext): KeyVaultCheck[] {
  return [
    {
      name: 'seeds: createSeed gives a valid BIP39 mnemonic of 12, 15, 18, 21 and 24 words, a new one each time',
      async run() {
        const vault = await ctx.vault();
        for (const words of MNEMONIC_LENGTHS) {
          const first = await vault.createSeed(words);
          const second = await vault.createSeed(words);
          assert.equal(typeof first, 'string', `createSeed(${words}) must return a string`);
          const mnemonic = await vault.revealMnemonic(first);
          assert.equal(typeof mnemonic, 'string', 'revealMnemonic must return a string');
          assert.equal(
            mnemonic.split(' ').length,
            words,
            `createSeed(${words}) revealed ${mnemonic.split(' ').length} words`,
          );
          assert.ok(isValidMnemonic(mnemonic), `createSeed(${words}) is not a valid mnemonic`);
          assert.equal(mnemonic, normalizeMnemonic(mnemonic), 'the mnemonic is not canonical');
          assert.notEqual(
            await vault.revealMnemonic(second),
            mnemonic,
            `two createSeed(${words}) gave the same mnemonic`,
          );
        }
      },
    },
    {
      name: 'seeds: createSeed refuses any other word count with INVALID_MNEMONIC_LENGTH',
      async run() {
        const vault = await ctx.vault();
        for (const words of BAD_LENGTHS) {
          await assertRefusedWith(
            () => vault.createSeed(words),
            'INVALID_MNEMONIC_LENGTH',
            `createSeed(${words})`,
          );
        }
      },
    },
    {
      name: 'seeds: importSeed takes a mnemonic in any case and spacing; revealMnemonic gives it back canonical, and a re-import derives the same keys',
      async run() {
        const vault = await ctx.vault();
        for (const words of [12, 24]) {
          const mnemonic = generateMnemonic(words);
          const messy = `  ${mnemonic.toUpperCase().split(' ').join(' \n\t ')}\n`;
          const seed = await vault.importSeed(messy);
          assert.equal(typeof seed, 'string', 'importSeed must return a string');
          assert.equal(await vault.revealMnemonic(seed), mnemonic, 'revealMnemonic(importSeed)');
          const again = await vault.importSeed(await vault.revealMnemonic(seed));
          for (const curve of ['CURVE_SECP256K1', 'CURVE_ED25519'] as const) {
            const path = curve === 'CURVE_ED25519' ? "m/44'/501'/3'/0'" : "m/44'/60'/0'/0/3";
            const a = await vault.deriveKey(seed, curve, path);
            const b = await vault.deriveKey(again, curve, path);
            assert.equal(
              bytesToHex(b.publicKey),
              bytesToHex(a.publicKey),
              `a re-imported seed derives another ${curve} key at ${path}`,
            );
          }
        }
      },
    },
    {
      name: 'seeds: importSeed refuses an invalid mnemonic with INVALID_MNEMONIC',
      async run() {
        const vault = await ctx.vault();
        for (const [what, mnemonic] of BAD_MNEMONICS) {
          await assertRefusedWith(
            () => vault.importSeed(mnemonic as string),
            'INVALID_MNEMONIC',
            `importSeed of ${what}`,
          );
        }
      },
    },
  ];
}

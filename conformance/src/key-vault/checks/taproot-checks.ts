/**
 * Checks of the optional `signTaproot(key, digest, merkleRoot)` capability: a BIP340 signature
 * of the 32-byte digest by the key tweaked per BIP341 with the merkle root (empty: a key-path
 * only output, BIP86). Judged with `schnorr.verify` (@noble/curves) under the output key
 * computed by `taprootTweakPubkey` (@scure/btc-signer), and against the BIP86 test vector.
 * @module
 */
import assert from 'node:assert/strict';
import type { KeyVault } from '@keyhold/keys';
import { bytesToHex } from '@noble/hashes/utils.js';
import fc from 'fast-check';
import { fcParameters } from '../../property.js';
import type { KeyVaultCheck } from '../key-vault-check.js';
import { type ContractContext, KEY_ORIGINS } from '../key-vault-contract-options.js';
import { assertRefused, assertRefusedWith } from '../refusal.js';
import { assertTaprootSignature, taprootOutputKey } from '../signature-oracle.js';
import { type TestKey, TestKeys } from '../test-keys.js';
import { ABANDON_MNEMONIC, BIP86_VECTOR } from '../vectors.js';

type TaprootVault = KeyVault & Required<Pick<KeyVault, 'signTaproot'>>;

/** The vault, which must have `signTaproot`. */
async function taprootVault(ctx: ContractContext): Promise<TaprootVault> {
  const vault = await ctx.vault();
  assert.equal(typeof vault.signTaproot, 'function', 'the vault has no signTaproot method');
  return vault as TaprootVault;
}

/**
 * The Taproot checks (none unless the vault has, or declares, `signTaproot`).
 * @example
 * taprootChecks(resolveContractOptions({ vault, createdKeys: { signTaproot: false } }));
 */
export function taprootChecks(ctx: ContractContext): KeyVaultCheck[] {
  if (!ctx.capabilities.signTaproot) return [];
  const signing = KEY_ORIGINS.filter((origin) => ctx.traits(origin).signTaproot);
  const refusing = KEY_ORIGINS.filter((origin) => !ctx.traits(origin).signTaproot);
  const checks: KeyVaultCheck[] = [];
  if (ctx.traits('deriveKey').signTaproot) {
    checks.push({
      name: `signTaproot: the BIP86 key of "abandon … about" (${BIP86_VECTOR.path}) signs for the published output key`,
      async run() {
        const vault = await taprootVault(ctx);
        const seed = await vault.importSeed(ABANDON_MNEMONIC);
        const { key, publicKey } = await vault.deriveKey(
          seed,
          'CURVE_SECP256K1',
          BIP86_VECTOR.path,
        );
        assert.equal(bytesToHex(publicKey.subarray(1)), BIP86_VECTOR.internalKey, 'internal key');
        const empty = new Uint8Array(0);
        assert.equal(
          bytesToHex(taprootOutputKey(publicKey, empty)),
          BIP86_VECTOR.outputKey,
          'the oracle disagrees with BIP86',
        );
        const digest = new Uint8Array(32).fill(0x86);
        const signature = await vault.signTaproot(key, digest, empty);
        assertTaprootSignature(publicKey, digest, empty, signature, 'BIP86 key');
      },
    });
  }
  if (signing.length > 0) {
    checks.push({
      name: `signTaproot: BIP340 signatures by secp256k1 keys from ${signing.join(', ')} verify under the BIP341 output key, with an empty and a 32-byte merkle root (fast-check)`,
      async run() {
        const vault = await taprootVault(ctx);
        const maker = new TestKeys(vault);
        const keys: TestKey[] = [];
        for (let i = 0; i < 2; i++) keys.push(...(await maker.each('CURVE_SECP256K1', signing)));
        await fc.assert(
          fc.asyncProperty(
            fc.constantFrom(...keys),
            fc.uint8Array({ minLength: 32, maxLength: 32 }),
            fc.oneof(
              fc.constant(new Uint8Array(0)),
              fc.uint8Array({ minLength: 32, maxLength: 32 }),
            ),
            async (made, digest, merkleRoot) => {
              const signature = await vault.signTaproot(made.key, digest, merkleRoot);
              const what = `key from ${made.origin}, ${merkleRoot.length}-byte merkle root`;
              assertTaprootSignature(made.publicKey, digest, merkleRoot, signature, what);
            },
          ),
          fcParameters(ctx.property),
        );
      },
    });
  }
  checks.push({
    name: 'signTaproot: refuses a P-256 or Ed25519 key; a digest that is not 32 bytes and a merkle root that is neither empty nor 32 bytes with INVALID_PAYLOAD',
    async run() {
      const vault = await taprootVault(ctx);
      const maker = new TestKeys(vault);
      const digest = new Uint8Array(32).fill(1);
      const empty = new Uint8Array(0);
      for (const curve of ['CURVE_P256', 'CURVE_ED25519'] as const) {
        for (const made of await maker.each(curve, KEY_ORIGINS)) {
          await assertRefused(
            () => vault.signTaproot(made.key, digest, empty),
            `signTaproot with a ${curve} key from ${made.origin}`,
          );
        }
      }
      for (const made of await maker.each('CURVE_SECP256K1', signing)) {
        const what = `signTaproot with a key from ${made.origin}`;
        for (const size of [0, 31, 33, 64]) {
          await assertRefusedWith(
            () => vault.signTaproot(made.key, new Uint8Array(size).fill(1), empty),
            'INVALID_PAYLOAD',
            `${what} over ${size} bytes`,
          );
        }
        for (const size of [1, 16, 31, 33, 64]) {
          await assertRefusedWith(
            () => vault.signTaproot(made.key, digest, new Uint8Array(size).fill(2)),
            'INVALID_PAYLOAD',
            `${what} and a ${size}-byte merkle root`,
          );
        }
      }
    },
  });
  if (refusing.length > 0) {
    checks.push({
      name: `signTaproot: refuses secp256k1 keys from ${refusing.join(', ')} (declared not to sign Taproot)`,
      async run() {
        const vault = await taprootVault(ctx);
        const maker = new TestKeys(vault);
        for (const made of await maker.each('CURVE_SECP256K1', refusing)) {
          await assertRefused(
            () => vault.signTaproot(made.key, new Uint8Array(32).fill(1), new Uint8Array(0)),
            `signTaproot with a key from ${made.origin}`,
          );
        }
      },
    });
  }
  return checks;
}

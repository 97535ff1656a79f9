/**
 * Checks of the port's optional `destroyKey(key)`: a key the vault holds outside its sealed form
 * (an HSM's token objects; by default, keys from `createKey`) is destroyed — true, then it signs
 * and reveals no more, and destroying it again finds nothing (false); a key that lives only in
 * its sealed form (by default, imported and derived keys) has nothing to destroy — false, and
 * it keeps signing.
 * @module
 */
import assert from 'node:assert/strict';
import type { KeyVault } from '@keyhold/keys';
import type { KeyVaultCheck } from '../key-vault-check.js';
import { type ContractContext, KEY_ORIGINS } from '../key-vault-contract-options.js';
import { assertRefused } from '../refusal.js';
import { assertValidSignature, VAULT_CURVES } from '../signature-oracle.js';
import { TestKeys } from '../test-keys.js';

type DestroyingVault = KeyVault & Required<Pick<KeyVault, 'destroyKey'>>;

/** The vault, which must have `destroyKey`. */
async function destroyingVault(ctx: ContractContext): Promise<DestroyingVault> {
  const vault = await ctx.vault();
  assert.equal(typeof vault.destroyKey, 'function', 'the vault has no destroyKey method');
  return vault as DestroyingVault;
}

const MESSAGE = new Uint8Array(32).fill(9);

/**
 * The destroyKey checks (none unless the vault has, or declares, `destroyKey`).
 * @example
 * destroyChecks(resolveContractOptions({ vault, capabilities: { destroyKey: true } }));
 */
export function destroyChecks(ctx: ContractContext): KeyVaultCheck[] {
  if (!ctx.capabilities.destroyKey) return [];
  const destroyable = KEY_ORIGINS.filter((origin) => ctx.traits(origin).destroyable);
  const sealedOnly = KEY_ORIGINS.filter((origin) => !ctx.traits(origin).destroyable);
  const checks: KeyVaultCheck[] = [];
  if (destroyable.length > 0) {
    checks.push({
      name: `destroyKey: a key from ${destroyable.join(', ')}, once destroyed (true), signs and reveals no more, and destroying it again returns false`,
      async run() {
        const vault = await destroyingVault(ctx);
        const keys = new TestKeys(vault);
        for (const curve of VAULT_CURVES) {
          for (const made of await keys.each(curve, destroyable)) {
            const what = `a ${curve} key from ${made.origin}`;
            // Sign first: a vault that caches keys must not keep using a destroyed one.
            const before = await vault.sign(made.key, curve, MESSAGE);
            assertValidSignature(curve, made.publicKey, MESSAGE, before, `${what}, before`);
            assert.equal(await vault.destroyKey(made.key), true, `destroyKey of ${what}`);
            await assertRefused(
              () => vault.sign(made.key, curve, MESSAGE),
              `sign with ${what}, destroyed`,
            );
            await assertRefused(() => vault.revealKey(made.key), `revealKey of ${what}, destroyed`);
            assert.equal(
              await vault.destroyKey(made.key),
              false,
              `destroyKey of ${what}, already destroyed`,
            );
          }
        }
      },
    });
  }
  if (sealedOnly.length > 0) {
    checks.push({
      name: `destroyKey: keys from ${sealedOnly.join(', ')} live only in their sealed form: destroyKey returns false and they keep signing`,
      async run() {
        const vault = await destroyingVault(ctx);
        const keys = new TestKeys(vault);
        for (const curve of VAULT_CURVES) {
          for (const made of await keys.each(curve, sealedOnly)) {
            const what = `a ${curve} key from ${made.origin}`;
            assert.equal(await vault.destroyKey(made.key), false, `destroyKey of ${what}`);
            const after = await vault.sign(made.key, curve, MESSAGE);
            assertValidSignature(
              curve,
              made.publicKey,
              MESSAGE,
              after,
              `${what}, after destroyKey`,
            );
          }
        }
      },
    });
  }
  return checks;
}

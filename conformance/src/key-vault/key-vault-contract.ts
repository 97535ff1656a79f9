/**
 * The KeyVault contract: the checks every implementation of the KeyVault port of
 * @keyhold/keys must pass, whatever keeps its secrets (process memory, an HSM, a cloud KMS).
 * It is framework-free: `keyVaultContract(options)` returns plain `{ name, run }` checks that
 * throw on violation, for any test runner to register. Results are judged independently, with
 * @noble/curves, @scure/btc-signer and published test vectors (BIP39/44/84/86, RFC 6979,
 * RFC 8032), never with the vault's own code.
 * @module
 */

import { derivationChecks } from './checks/derivation-checks.js';
import { destroyChecks } from './checks/destroy-checks.js';
import { determinismChecks } from './checks/determinism-checks.js';
import { keyChecks } from './checks/key-checks.js';
import { sealedChecks } from './checks/sealed-checks.js';
import { seedChecks } from './checks/seed-checks.js';
import { signingChecks } from './checks/signing-checks.js';
import { taprootChecks } from './checks/taproot-checks.js';
import type { KeyVaultCheck } from './key-vault-check.js';
import {
  type KeyVaultContractOptions,
  resolveContractOptions,
} from './key-vault-contract-options.js';

/**
 * The checks of the KeyVault contract for one vault. Which checks are listed depends on the
 * options: determinism only for deterministic origins, `revealKey` by exportability, and the
 * `signTaproot` / `destroyKey` checks only for a vault that has (or declares) them.
 * @example
 * import { keyVaultContract } from '@keyhold/conformance/key-vault';
 *
 * const vault = new SoftwareKeyVault({ masterKey: generateMasterKey() });
 * // `it` of any test runner: one test per check.
 * for (const check of keyVaultContract({ vault })) it(check.name, check.run);
 *
 * // An HSM: keys from createKey stay in the token and sign with the token's random nonces.
 * keyVaultContract({
 *   vault: () => hsmVault, // opened in beforeAll
 *   createdKeys: { deterministicEcdsa: false, exportable: false, signTaproot: false },
 *   capabilities: { destroyKey: true },
 * });
 */
export function keyVaultContract(options: KeyVaultContractOptions): readonly KeyVaultCheck[] {
  const ctx = resolveContractOptions(options);
  return [
    ...seedChecks(ctx),
    ...derivationChecks(ctx),
    ...keyChecks(ctx),
    ...signingChecks(ctx),
    ...determinismChecks(ctx),
    ...sealedChecks(ctx),
    ...taprootChecks(ctx),
    ...destroyChecks(ctx),
  ];
}

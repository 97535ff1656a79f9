/**
 * A minimal runner for the KeyVault contract, for scripts and for testing the contract itself;
 * under a test runner, register each check as its own test instead.
 * @module
 */
import type { KeyVaultCheck } from './key-vault-check.js';

/**
 * A check that failed, and why.
 * @example
 * const [first]: KeyVaultCheckFailure[] = await runKeyVaultChecks(checks);
 * console.error(first?.name, first?.error);
 */
export interface KeyVaultCheckFailure {
  readonly name: string;
  readonly error: unknown;
}

/**
 * Runs checks one after another and returns the names of those that failed, with their errors.
 * The contract does not need it (a test runner registers each check instead); it is for
 * scripts and for testing the contract itself.
 * @example
 * const failures = await runKeyVaultChecks(keyVaultContract({ vault }));
 * for (const { name, error } of failures) console.error(`FAIL ${name}`, error);
 */
export async function runKeyVaultChecks(
  checks: readonly KeyVaultCheck[],
): Promise<KeyVaultCheckFailure[]> {
  const failures: KeyVaultCheckFailure[] = [];
  for (const check of checks) {
    try {
      await check.run();
    } catch (error) {
      failures.push({ name: check.name, error });
    }
  }
  return failures;
}

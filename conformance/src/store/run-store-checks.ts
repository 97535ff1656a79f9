/**
 * A minimal runner for the Store contract, for scripts; under a test runner, register each
 * check as its own test instead. Checks of every contract have the same shape, so this is the
 * KeyVault contract's runner under the Store contract's names.
 * @module
 */
import { runKeyVaultChecks } from '../key-vault/run-key-vault-checks.js';
import type { StoreCheck } from './store-check.js';

/**
 * A check that failed, and why.
 * @example
 * const [first]: StoreCheckFailure[] = await runStoreChecks(checks);
 * console.error(first?.name, first?.error);
 */
export interface StoreCheckFailure {
  readonly name: string;
  readonly error: unknown;
}

/**
 * Runs checks one after another and returns those that failed, with their errors.
 * @example
 * const failures = await runStoreChecks(storeContract({ store }));
 * for (const { name, error } of failures) console.error(`FAIL ${name}`, error);
 */
export const runStoreChecks: (checks: readonly StoreCheck[]) => Promise<StoreCheckFailure[]> =
  runKeyVaultChecks;

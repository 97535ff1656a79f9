/**
 * The unit of the KeyVault contract: one named check that runs against the vault under test and
 * throws (an `AssertionError` saying what is wrong) when the vault breaks it. Checks are plain
 * objects, so any test runner can register them, and a script can run them in a loop.
 * @module
 */

/**
 * One check of the KeyVault contract.
 * @example
 * const check: KeyVaultCheck = { name: 'keys: …', run: async () => assert.ok(await something()) };
 * it(check.name, check.run); // any test runner's it()
 */
export interface KeyVaultCheck {
  /** `<area>: <what it asserts>`; stable, so reports and test names can use it. */
  readonly name: string;
  /** Resolves when the vault satisfies the check; rejects with the reason otherwise. */
  run(): Promise<void>;
}

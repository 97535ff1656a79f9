/**
 * The unit of the Store contract: one named check that runs against the store under test and
 * throws (an `AssertionError` saying what is wrong) when the store breaks it. Checks are plain
 * objects, so any test runner can register them, and a script can run them in a loop.
 * @module
 */

/**
 * One check of the Store contract.
 * @example
 * const check: StoreCheck = { name: 'users: …', run: async () => assert.ok(await something()) };
 * it(check.name, check.run); // any test runner's it()
 */
export interface StoreCheck {
  /** What it asserts, starting with the repository or area (`users: …`); stable. */
  readonly name: string;
  /** Resolves when the store satisfies the check; rejects with the reason otherwise. */
  run(): Promise<void>;
}

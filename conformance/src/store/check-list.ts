/**
 * How the check files of the Store contract list their checks: each check resolves the store
 * under test when it runs (it may not exist yet when the checks are listed), and the check's
 * body reaches it through `store()` and `tx()`.
 * @module
 */
import type { StoreTransaction } from '@keyhold/activities';
import type { StoreCheck } from './store-check.js';
import type { OutboxStore, StoreContractOptions } from './store-contract-options.js';

/** A list of checks being built, and the store the running check works on. */
export interface CheckList {
  readonly checks: StoreCheck[];
  /** Adds a check. */
  check(name: string, run: () => Promise<void>): void;
  /** The store of the running check. */
  store(): OutboxStore;
  /** A transaction on the store of the running check. */
  tx<T>(work: (t: StoreTransaction) => Promise<T>): Promise<T>;
}

/**
 * An empty list of checks over the options' store.
 * @example
 * const { checks, check, tx } = checkList(options);
 * check('users: get', async () => expect(await tx((t) => t.users.get('o', 'u'))).toBeUndefined());
 */
export function checkList(options: StoreContractOptions): CheckList {
  const given = options.store;
  const checks: StoreCheck[] = [];
  let current: OutboxStore | undefined;
  const store = (): OutboxStore => {
    if (!current) throw new Error('the store is used outside a running check');
    return current;
  };
  return {
    checks,
    check(name, run) {
      checks.push({
        name,
        run: async () => {
          current = typeof given === 'function' ? await given() : given;
          await run();
        },
      });
    },
    store,
    tx: (work) => store().transaction(work),
  };
}

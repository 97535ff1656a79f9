/**
 * The Store contract: the checks every implementation of the Store port of @keyhold/activities
 * (with the Outbox port of @keyhold/webhooks) must pass, whatever keeps the records (process
 * memory, PGlite, Postgres, a database of your own). It is framework-free:
 * `storeContract(options)` returns plain `{ name, run }` checks that throw on violation, for any
 * test runner to register. The memory store is the reference: every check states what it does.
 * @module
 */
import { outboxChecks } from './checks/outbox-checks.js';
import { repositoryChecks } from './checks/repository-checks.js';
import { transactionChecks } from './checks/transaction-checks.js';
import type { StoreCheck } from './store-check.js';
import type { StoreContractOptions } from './store-contract-options.js';

/**
 * The checks of the Store contract for one store.
 * @example
 * import { storeContract } from '@keyhold/conformance/store';
 *
 * // `it` of any test runner: one test per check.
 * for (const check of storeContract({ store: new MemoryStore() })) it(check.name, check.run);
 *
 * // A store that needs opening: give a function, open it in beforeAll.
 * let store: SqlStore;
 * beforeAll(async () => { store = await createPgliteStore(); });
 * afterAll(() => store.close());
 * for (const check of storeContract({ store: () => store })) it(check.name, check.run);
 */
export function storeContract(options: StoreContractOptions): readonly StoreCheck[] {
  return [...repositoryChecks(options), ...transactionChecks(options), ...outboxChecks(options)];
}

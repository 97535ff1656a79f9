/**
 * The Store contract (@keyhold/conformance/store) against the memory store, the reference
 * every other store must be indistinguishable from; and a check that the contract is not
 * vacuous: a memory store broken in one way fails it.
 */
import type { StoreTransaction } from '@keyhold/activities';
import { runStoreChecks, storeContract } from '@keyhold/conformance/store';
import { describe, expect, it } from 'vitest';
import { MemoryStore } from './memory-store.js';

describe('Store contract: MemoryStore', () => {
  for (const check of storeContract({ store: new MemoryStore() })) it(check.name, check.run);
});

describe('the Store contract catches a broken store', () => {
  it('a store that lists users in reverse fails the users check, and no other', async () => {
    const broken = new MemoryStore();
    const transaction = broken.transaction.bind(broken);
    broken.transaction = <T>(work: (tx: StoreTransaction) => Promise<T>) =>
      transaction((tx) =>
        work({
          ...tx,
          users: { ...tx.users, list: async (org) => (await tx.users.list(org)).reverse() },
        }),
      );
    const failures = await runStoreChecks(storeContract({ store: broken }));
    expect(failures.map((f) => f.name)).toEqual([
      'users: get, getForUpdate, list by createdAt then insertion, update, delete, conflict',
    ]);
  });
});

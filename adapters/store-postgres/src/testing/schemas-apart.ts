/**
 * Two stores of two schemas on one session (one pg connection, or one PGlite) share its
 * prepared statements; each must still read its own tables. The same organization id goes
 * into both under different names, is read back through each a few times (the statement
 * then prepared and reused), and a row only in `b` is not found through `a`.
 * @module
 */
import type { Store } from '@keyhold/activities';
import { expect } from 'vitest';
import { organization } from './records.js';

/**
 * Checks that stores `a` and `b` (two schemas, one session) each read only their own rows.
 * @example
 * await expectSchemasApart(storeA, storeB);
 */
export async function expectSchemasApart(a: Store, b: Store): Promise<void> {
  const inA = organization({ name: 'in schema a' });
  const inB = { ...inA, name: 'in schema b' };
  await a.transaction((tx) => tx.organizations.insert(inA));
  await b.transaction((tx) => tx.organizations.insert(inB));
  for (let i = 0; i < 4; i++) {
    expect(await a.transaction((tx) => tx.organizations.get(inA.organizationId))).toEqual(inA);
    expect(await b.transaction((tx) => tx.organizations.get(inB.organizationId))).toEqual(inB);
  }
  // A row only in b is found by b and not by a, right after a used the statement.
  const onlyB = organization({ name: 'only in b' });
  await b.transaction((tx) => tx.organizations.insert(onlyB));
  expect(await a.transaction((tx) => tx.organizations.get(onlyB.organizationId))).toBe(undefined);
  expect(await b.transaction((tx) => tx.organizations.get(onlyB.organizationId))).toEqual(onlyB);
}

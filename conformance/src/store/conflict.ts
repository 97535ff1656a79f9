/**
 * The assertion for refused writes: a Store write that breaks a uniqueness constraint must
 * reject with a StoreConflictError naming the constraint.
 * @module
 */
import assert from 'node:assert/strict';
import { StoreConflictError } from '@keyhold/activities';

/**
 * Awaits `promise` and returns the constraint of the StoreConflictError it must reject with.
 * @example
 * expect(await conflict(tx((t) => t.users.insert(again)))).toBe('user_pkey');
 */
export async function conflict(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  // By code, not class: an outside adapter throws the StoreConflictError of its own copy of
  // @keyhold/activities, which the server recognizes the same way.
  assert.ok(StoreConflictError.is(error), `expected a StoreConflictError, got ${String(error)}`);
  return (error as StoreConflictError).constraint;
}

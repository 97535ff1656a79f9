/**
 * The assertion for refused writes: a Store write that breaks a uniqueness constraint must
 * reject with a StoreConflictError naming the constraint.
 * @module
 */
import { StoreConflictError } from '@keyhold/activities';
import { expect } from './expectation.js';

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
  expect(error).toBeInstanceOf(StoreConflictError);
  return (error as StoreConflictError).constraint;
}

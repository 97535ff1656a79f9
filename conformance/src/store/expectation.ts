/**
 * The few matchers the Store contract uses, with the meaning vitest and Jest give them, built
 * on node:assert so the contract imports no test framework. `toEqual` is recursive equality
 * that ignores properties whose value is `undefined` (a record without `userEmail` equals one
 * with `userEmail: undefined`), as the port promises nothing about absent optional fields
 * beyond their absence from the values.
 * @module
 */
import assert from 'node:assert/strict';

/** Drops `undefined` properties, recursively, and rebuilds plain objects and arrays. */
function comparable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(comparable);
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof Uint8Array || value instanceof Date || value instanceof Error) return value;
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    if (field !== undefined) out[key] = comparable(field);
  }
  return out;
}

/** What `expect(value)` offers. */
export interface Expectation {
  /** Recursive equality, `undefined` properties ignored. */
  toEqual(expected: unknown): void;
  /** `Object.is`. */
  toBe(expected: unknown): void;
  toBeUndefined(): void;
  toBeInstanceOf(type: abstract new (...args: never[]) => unknown): void;
  readonly not: {
    toBe(expected: unknown): void;
    /** The value has no such own or inherited property (even one set to `undefined`). */
    toHaveProperty(key: string): void;
  };
  /** For a promise: it must reject, and the reason must match. */
  readonly rejects: {
    toBe(expected: unknown): Promise<void>;
    /** An Error whose message contains the text, or matches the pattern. */
    toThrow(message: string | RegExp): Promise<void>;
  };
}

const rejection = async (promise: unknown): Promise<unknown> => {
  let resolved: unknown;
  try {
    resolved = await promise;
  } catch (error) {
    return error;
  }
  assert.fail(`expected a rejection, but it resolved with ${JSON.stringify(resolved)}`);
};

/**
 * Matchers over one value.
 * @example
 * expect(await tx((t) => t.users.get(org, id))).toEqual(user);
 * await expect(tx(() => Promise.reject(boom))).rejects.toBe(boom);
 */
export function expect(actual: unknown): Expectation {
  return {
    toEqual: (expected) => assert.deepStrictEqual(comparable(actual), comparable(expected)),
    toBe: (expected) => assert.equal(actual, expected),
    toBeUndefined: () => assert.equal(actual, undefined),
    toBeInstanceOf: (type) =>
      assert.ok(
        actual instanceof type,
        `expected an instance of ${type.name}, got ${String(actual)}`,
      ),
    not: {
      toBe: (expected) => assert.notEqual(actual, expected),
      toHaveProperty: (key) =>
        assert.ok(
          !(typeof actual === 'object' && actual !== null && key in actual),
          `expected no property ${key}, got ${JSON.stringify(actual)}`,
        ),
    },
    rejects: {
      toBe: async (expected) => assert.equal(await rejection(actual), expected),
      toThrow: async (message) => {
        const error = await rejection(actual);
        assert.ok(error instanceof Error, `expected an Error, got ${String(error)}`);
        if (typeof message === 'string') assert.ok(error.message.includes(message), error.message);
        else assert.match(error.message, message);
      },
    },
  };
}

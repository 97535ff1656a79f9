/**
 * Assertions for refusals: a vault call that must reject, either with a given catalogue error
 * (a KeyholdError whose `key` names the entry of @keyhold/protocol's `Messages`) or with any
 * error at all where the port does not fix one (a sealed secret that does not open). A call
 * that resolves fails the assertion, with what it returned.
 * @module
 */
import assert from 'node:assert/strict';

/**
 * Asserts that `attempt` rejects (or throws) with the catalogue error `key`.
 * @example
 * await assertRefusedWith(() => vault.createSeed(13), 'INVALID_MNEMONIC_LENGTH', 'createSeed(13)');
 */
export async function assertRefusedWith(
  attempt: () => unknown,
  key: string,
  what: string,
): Promise<void> {
  const error = await outcome(attempt, what);
  const actual = (error as { key?: unknown } | null)?.key;
  assert.ok(
    error instanceof Error && actual === key,
    `${what} must be refused with ${key}, but threw ${describeError(error)}`,
  );
}

/**
 * Asserts that `attempt` rejects (or throws) with an Error of any kind.
 * @example
 * await assertRefused(() => vault.sign(seed, 'CURVE_SECP256K1', digest), 'signing with a seed');
 */
export async function assertRefused(attempt: () => unknown, what: string): Promise<void> {
  const error = await outcome(attempt, what);
  assert.ok(error instanceof Error, `${what} must be refused with an Error, but threw ${error}`);
}

/** The error of `attempt`; fails when it resolves. */
async function outcome(attempt: () => unknown, what: string): Promise<unknown> {
  let result: unknown;
  try {
    result = await attempt();
  } catch (error) {
    return error;
  }
  assert.fail(`${what} must be refused, but it returned ${describeValue(result)}`);
}

function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const key = (error as { key?: unknown }).key;
  return `${error.name}${key === undefined ? '' : ` ${String(key)}`}: ${error.message}`;
}

function describeValue(value: unknown): string {
  if (value instanceof Uint8Array) return `${value.length} bytes`;
  if (typeof value === 'string') return JSON.stringify(value.slice(0, 80));
  if (value && typeof value === 'object') return `{ ${Object.keys(value).join(', ')} }`;
  return String(value);
}

/**
 * The Clock port: injected so tests and the conformance suite control time.
 * @module
 */
export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
}

export const Clock: unique symbol = Symbol.for('keyhold.Clock');

/** The wall clock. */
export const systemClock: Clock = { now: () => Date.now() };

/**
 * The Clock port: injected so tests and the conformance suite control time.
 * @module
 */
/** The Clock port: the time the domain sees. */
export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
}

/** The injection token of the Clock port. */
export const Clock: unique symbol = Symbol.for('keyhold.Clock');

/** The wall clock. */
export const systemClock: Clock = { now: () => Date.now() };

/**
 * The shape of one conformance property: a name, one sentence saying what it asserts, and a
 * `run` that throws (with a counterexample and the fast-check seed) when the target breaks it.
 * @module
 */
import type { Parameters } from 'fast-check';
import type { ConformanceTarget } from './target.js';

export const DEFAULT_NUM_RUNS = 20;

export interface PropertyOptions {
  /** Generated cases per property. Default 20. */
  numRuns?: number;
  /** A fast-check seed, to replay a reported failure. */
  seed?: number;
}

export interface ConformanceProperty {
  /** Kebab-case, stable: reports and test names use it. */
  readonly name: string;
  /** What the property asserts, in one sentence. */
  readonly description: string;
  run(target: ConformanceTarget, options?: PropertyOptions): Promise<void>;
}

/** fast-check parameters for a property run. */
export function fcParameters<T>(options: PropertyOptions = {}): Parameters<T> {
  return {
    numRuns: options.numRuns ?? DEFAULT_NUM_RUNS,
    // The report names the failed assertion, not only the counterexample.
    includeErrorInReport: true,
    ...(options.seed === undefined ? {} : { seed: options.seed }),
  };
}

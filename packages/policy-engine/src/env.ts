/**
 * The evaluation environment of a compiled expression. Its own module so that the atoms and
 * the compiler, which both evaluate against it, do not import each other.
 * @module
 */
import type { PathFault } from './paths.js';
import type { ErrorClass, FaultSink, StepMeter } from './runtime.js';

/** What a compiled expression reads (keyword roots, lambda slots, the time) and where it
 *  records an error. */
export interface Env extends FaultSink, StepMeter {
  readonly roots: Readonly<Record<string, unknown>>;
  /** Hydrated keyword paths, by {@link PathSpec.index}. */
  readonly paths: unknown[];
  /** For a path that could not be read, its fault (same index); undefined otherwise. Kept
   *  apart from `paths` so reading a path costs two array loads and no type test. */
  readonly pathFaults: (PathFault | undefined)[];
  readonly vars: unknown[];
  readonly nowMs: number;
  fault: ErrorClass | undefined;
  faultMessage: string;
}

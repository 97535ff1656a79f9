/**
 * What evaluation can go wrong with, and the checks that keep a value true to its static type.
 *
 * Errors come in two classes:
 *  - `missing`: the request does not carry the data — an absent keyword (`wallet` on a
 *    private-key request), field, map key or `activity.params` entry, a null, or an index or
 *    slice outside the list or string. The reference calls this a MissingField error.
 *  - `type`: the data is there but not of the type the policy was checked against (a dynamic
 *    value of the wrong kind, a non-integer number, a malformed context) — or an internal fault.
 *  - `budget`: the evaluation took more steps than its budget (see cost.ts) and was stopped.
 * The class decides how an erroring DENY policy counts (see `decision.ts`).
 *
 * Compiled code does not throw: a failing node records the error on the environment and returns
 * the {@link FAULT} sentinel, and every node that sees FAULT from a child returns FAULT. (Throwing
 * cost about 1.5 µs per erroring policy, and erroring policies are common: every DENY about
 * another chain errors with missing data on this request.)
 */
import type { Type } from './types.js';

export type ErrorClass = 'missing' | 'type' | 'budget';

/** What a failed node returns. */
export const FAULT: unique symbol = Symbol('policy evaluation fault');
export type Fault = typeof FAULT;

/** Where a compiled expression records its errors. */
export interface FaultSink {
  /** The weightiest error class seen so far (`budget` over `type` over `missing`), or undefined. */
  fault: ErrorClass | undefined;
  /** The first message of that class. */
  faultMessage: string;
  /** The keyword path that error was about (`eth.eip_712.message`), when it was about one. */
  faultKeyword?: string | undefined;
}

const WEIGHT: Readonly<Record<ErrorClass, number>> = { missing: 1, type: 2, budget: 3 };

/** Record an error and return FAULT. Order-independent: the weightier class wins. */
export function raise(
  sink: FaultSink,
  errorClass: ErrorClass,
  message: string,
  keyword?: string,
): Fault {
  if (sink.fault === undefined || WEIGHT[errorClass] > WEIGHT[sink.fault]) {
    sink.fault = errorClass;
    sink.faultMessage = message;
    sink.faultKeyword = keyword;
  }
  return FAULT;
}

/** The message of an evaluation stopped by its step budget. */
export const BUDGET_EXCEEDED = 'evaluation budget exceeded';

/** What an evaluation may still spend. Loops charge their work here *before* they run it. */
export interface StepMeter {
  /** Steps charged so far. */
  steps: number;
  /** The most it may charge; past it every loop refuses to start. */
  budget: number;
}

/**
 * Charge `n` steps before doing them. False (and a `budget` error recorded) when that would go
 * over the budget: the caller returns FAULT without doing the work, so an evaluation stops
 * within one loop's worth of its budget however the loops nest.
 */
export function charge(env: StepMeter & FaultSink, n: number): boolean {
  env.steps += n;
  if (env.steps <= env.budget) return true;
  raise(env, 'budget', BUDGET_EXCEEDED);
  return false;
}

export function describeValue(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  switch (typeof v) {
    case 'string':
      return 'a string';
    case 'bigint':
      return 'an int';
    case 'number':
      return Number.isSafeInteger(v) ? 'an int' : `the number ${v}`;
    case 'boolean':
      return 'a bool';
    case 'object':
      return 'a struct';
    default:
      return typeof v;
  }
}

/** A value read from dynamic data, normalized: integers become bigint; null is missing. */
export function dynamic(v: unknown, sink: FaultSink, what: string): unknown {
  switch (typeof v) {
    case 'string':
    case 'boolean':
    case 'bigint':
      return v;
    case 'number':
      if (Number.isSafeInteger(v)) return BigInt(v);
      return raise(sink, 'type', `${what} is ${describeValue(v)}, not an integer`);
    case 'object':
      if (v === null) return raise(sink, 'missing', `${what} is missing (null)`);
      return v;
    case 'undefined':
      return raise(sink, 'missing', `${what} is missing`);
    default:
      return raise(sink, 'type', `${what} is ${typeof v}`);
  }
}

function absentOr(v: unknown, sink: FaultSink, what: string, expected: string): Fault {
  if (v === undefined || v === null) return raise(sink, 'missing', `${what} is missing`);
  return raise(sink, 'type', `${what} should be ${expected} but is ${describeValue(v)}`);
}

export type Conformer = (v: unknown, sink: FaultSink, what: string) => unknown;

const conformBool: Conformer = (v, sink, what) =>
  typeof v === 'boolean' ? v : absentOr(v, sink, what, 'a bool');
const conformString: Conformer = (v, sink, what) =>
  typeof v === 'string' ? v : absentOr(v, sink, what, 'a string');
const conformInt: Conformer = (v, sink, what) => {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isSafeInteger(v)) return BigInt(v);
  return absentOr(v, sink, what, 'an int');
};
const conformTimestamp: Conformer = (v, sink, what) =>
  typeof v === 'bigint' ? v : absentOr(v, sink, what, 'a timestamp');
const conformList: Conformer = (v, sink, what) =>
  Array.isArray(v) ? v : absentOr(v, sink, what, 'a list');
const conformObject: Conformer = (v, sink, what) =>
  typeof v === 'object' && v !== null && !Array.isArray(v)
    ? v
    : absentOr(v, sink, what, 'a struct');

/**
 * The runtime check for a static type: returns the value in its runtime form (int → bigint),
 * or FAULT (`missing` for undefined/null, `type` for anything else that does not fit).
 * Lists are checked shallowly; their elements are checked when read.
 */
export function conformerFor(type: Type): Conformer {
  switch (type.t) {
    case 'bool':
      return conformBool;
    case 'int':
      return conformInt;
    case 'string':
      return conformString;
    case 'timestamp':
      return conformTimestamp;
    case 'list':
      return conformList;
    case 'map':
    case 'struct':
    case 'namespace':
      return conformObject;
    case 'any':
      return dynamic;
  }
}

export function isScalarValue(v: unknown): boolean {
  const t = typeof v;
  return t === 'string' || t === 'bigint' || t === 'boolean';
}

/** `==` between two runtime values when at least one side is dynamic. */
export function dynamicEquals(a: unknown, b: unknown, sink: FaultSink): boolean | Fault {
  if (!isScalarValue(a) || typeof a !== typeof b) {
    return raise(sink, 'type', `cannot compare ${describeValue(a)} with ${describeValue(b)}`);
  }
  return a === b;
}

/** Index into a list or string of `length`; a non-int is `type`, out of range is `missing`. */
export function indexInto(
  i: unknown,
  length: number,
  sink: FaultSink,
  what: string,
): number | Fault {
  if (typeof i !== 'bigint')
    return raise(sink, 'type', `${what}: the index is ${describeValue(i)}, not an int`);
  if (i < 0n || i >= BigInt(length)) {
    return raise(sink, 'missing', `${what}: index ${i} is out of range (length ${length})`);
  }
  return Number(i);
}

/**
 * The compiler: a checked tree becomes closures, built once per expression and shared by every
 * policy set that uses the same text, so an evaluation never walks the tree. Three
 * specializations carry most of the speed:
 *  - keyword paths (`activity.resource`, `eth.tx.to`) are read once per evaluation into an
 *    array (paths.ts) and a closure reads them by index;
 *  - `&&` / `||` chains are n-ary, and their simple comparisons run inline as atoms (atoms.ts);
 *  - `count() OP n` and `filter(…).count() OP n` count without allocating.
 *
 * Semantics (the reference evaluator in `__testing__/reference-evaluator.ts` states the same
 * rules as plainly as possible, and a differential test holds the two together):
 *  - No short-circuit: both sides of `&&` / `||`, every element of `all` / `any` / `filter` /
 *    `in` and every operand are evaluated. If any of them fails the expression fails, with the
 *    weightier error class (`type` over `missing`), whatever the order.
 *  - Each value read from the context is checked against its static type when it is read.
 *  - A failing node records its error on the environment and returns FAULT (see runtime.ts).
 */

import { type Atom, atomOf, evalAtom, pathOf } from './atoms.js';
import type { Checked, CheckedExpression } from './checked.js';
import { localCost } from './cost.js';
import { cronSpanActive, type ZoneClock, zoneClock } from './cron-span.js';
import type { Env } from './env.js';
import type { PathRegistry, PathSpec } from './paths.js';
import type { PolicyField } from './policy-error.js';
import {
  charge,
  conformerFor,
  describeValue,
  dynamic,
  dynamicEquals,
  FAULT,
  type Fault,
  indexInto,
  isScalarValue,
  raise,
} from './runtime.js';
import type { Type } from './types.js';

/** A compiled node: its value, or FAULT with the error recorded on `env`. */
export type Compiled = (env: Env) => unknown;
/** A compiled top-level expression: a boolean, or FAULT. */
export type CompiledPredicate = (env: Env) => boolean | Fault;

type Const = Extract<Checked, { k: 'const' }>;

/** What compiling one expression needs: its field, the schema's path registry, and the paths
 *  it reads (so the policy set knows what to read from the context). */
export interface CompileScope {
  readonly field: PolicyField;
  readonly registry: PathRegistry;
  readonly used: Set<PathSpec>;
}

/** Read a hydrated path: its value, or its fault raised on this evaluation. */
function pathReader(index: number): Compiled {
  return (env) => {
    const fault = env.pathFaults[index];
    return fault === undefined
      ? env.paths[index]
      : raise(env, fault.errorClass, fault.message, fault.keyword);
  };
}

function isConst(n: Checked): n is Const {
  return n.k === 'const';
}

function elementType(t: Type): Type {
  return t.t === 'list' ? t.of : { t: 'any' };
}

/** Compile one node. */
function compileNode(n: Checked, cx: CompileScope): Compiled {
  switch (n.k) {
    case 'const': {
      const v = n.value;
      return () => v;
    }
    case 'list': {
      if (n.items.every(isConst)) {
        const values = n.items.map((i) => (i as Const).value);
        return () => values;
      }
      const items = n.items.map((i) => compileNode(i, cx));
      return (env) => {
        const out = new Array<unknown>(items.length);
        let failed = false;
        for (let i = 0; i < items.length; i++) {
          const v = (items[i] as Compiled)(env);
          if (v === FAULT) failed = true;
          out[i] = v;
        }
        return failed ? FAULT : out;
      };
    }
    case 'root':
      return pathReader((pathOf(n, cx) as PathSpec).index);
    case 'var': {
      const slot = n.slot;
      return (env) => env.vars[slot];
    }
    case 'field':
      return compileField(n, cx);
    case 'index':
      return compileIndex(n, cx);
    case 'slice': {
      const target = compileNode(n.target, cx);
      const start = compileNode(n.start, cx);
      const end = compileNode(n.end, cx);
      return (env) => {
        const t = target(env);
        const s = start(env);
        const e = end(env);
        if (t === FAULT || s === FAULT || e === FAULT) return FAULT;
        if (typeof t !== 'string' && !Array.isArray(t)) {
          return raise(
            env,
            'type',
            `only lists and strings can be sliced, not ${describeValue(t)}`,
          );
        }
        if (typeof s !== 'bigint' || typeof e !== 'bigint') {
          return raise(env, 'type', 'slice bounds must be ints');
        }
        if (s < 0n || e < s || e > BigInt(t.length)) {
          return raise(env, 'missing', `slice [${s}..${e}] is out of range (length ${t.length})`);
        }
        return t.slice(Number(s), Number(e));
      };
    }
    case 'not': {
      const operand = boolOf(n.operand, cx);
      return (env) => {
        const v = operand(env);
        return v === FAULT ? FAULT : !v;
      };
    }
    case 'and':
    case 'or':
      return compileJunction(n, cx);
    case 'cmp':
    case 'in': {
      const atom = atomOf(n, cx);
      if (atom) return (env) => evalAtom(atom, env);
      return n.k === 'cmp' ? compileCompare(n, cx) : compileIn(n, cx);
    }
    case 'all':
    case 'any':
    case 'filter':
      return compileLambda(n, cx);
    case 'count': {
      const target = compileNode(n.target, cx);
      return (env) => {
        const v = target(env);
        if (v === FAULT) return FAULT;
        if (!Array.isArray(v))
          return raise(env, 'type', `count() needs a list, found ${describeValue(v)}`);
        return BigInt(v.length);
      };
    }
    case 'cronspan': {
      const span = n.span;
      const clock = zoneClock(span.timeZone) as ZoneClock;
      return (env) => cronSpanActive(span, clock, env.nowMs);
    }
  }
}

/**
 * An `&&` or `||` chain as one n-ary node: its atoms run inline (atoms.ts), the rest as
 * closures. No short-circuit: every operand is evaluated, and any failure fails the chain.
 */
function compileJunction(n: Extract<Checked, { k: 'and' | 'or' }>, cx: CompileScope): Compiled {
  const operands = n.operands;
  const atoms: Atom[] = [];
  const others: ((env: Env) => boolean | Fault)[] = [];
  for (const operand of operands) {
    const atom = atomOf(operand, cx);
    if (atom) atoms.push(atom);
    else others.push(boolOf(operand, cx));
  }
  const and = n.k === 'and';
  return (env) => {
    let failed = false;
    let result = and;
    for (let i = 0; i < atoms.length; i++) {
      const r = evalAtom(atoms[i] as Atom, env);
      if (r === FAULT) failed = true;
      else if (r !== and) result = !and;
    }
    for (let i = 0; i < others.length; i++) {
      const r = (others[i] as (env: Env) => boolean | Fault)(env);
      if (r === FAULT) failed = true;
      else if (r !== and) result = !and;
    }
    return failed ? FAULT : result;
  };
}

/** A closure returning a boolean or FAULT: static bools pass through, dynamic values are checked. */
function boolOf(n: Checked, cx: CompileScope): (env: Env) => boolean | Fault {
  const c = compileNode(n, cx);
  if (n.type.t === 'bool') return c as (env: Env) => boolean | Fault;
  return (env) => {
    const v = c(env);
    if (v === FAULT || typeof v === 'boolean') return v;
    return raise(env, 'type', `a condition should be a bool but is ${describeValue(v)}`);
  };
}

function compileField(n: Extract<Checked, { k: 'field' }>, cx: CompileScope): Compiled {
  const name = n.name;
  const what = `field '${name}'`;
  const absent = `${what} is missing`;
  if (n.target.type.t === 'any') {
    const target = compileNode(n.target, cx);
    return (env) => {
      const o = target(env);
      if (o === FAULT) return FAULT;
      if (typeof o !== 'object' || o === null || Array.isArray(o)) {
        return raise(env, 'type', `.${name}: ${describeValue(o)} has no fields`);
      }
      if (!Object.hasOwn(o, name)) return raise(env, 'missing', absent);
      return dynamic((o as Record<string, unknown>)[name], env, what);
    };
  }
  const path = pathOf(n, cx);
  if (path) return pathReader(path.index);
  // The target is a struct (an object, checked when it was read) reached through a variable or
  // an index; `name` is a schema field, never an Object.prototype property.
  const conform = conformerFor(n.type);
  const target = n.target;
  const compiledTarget = compileNode(target, cx);
  return (env) => {
    const o = compiledTarget(env);
    if (o === FAULT) return FAULT;
    return conform((o as Record<string, unknown>)[name], env, what);
  };
}

function compileIndex(n: Extract<Checked, { k: 'index' }>, cx: CompileScope): Compiled {
  const target = compileNode(n.target, cx);
  const index = compileNode(n.index, cx);
  const t = n.target.type;
  switch (t.t) {
    case 'list': {
      const conform = conformerFor(t.of);
      return (env) => {
        const list = target(env);
        const i = index(env);
        if (list === FAULT || i === FAULT) return FAULT;
        const k = indexInto(i, (list as unknown[]).length, env, 'list index');
        return k === FAULT ? FAULT : conform((list as unknown[])[k], env, 'list element');
      };
    }
    case 'string':
      return (env) => {
        const s = target(env);
        const i = index(env);
        if (s === FAULT || i === FAULT) return FAULT;
        const k = indexInto(i, (s as string).length, env, 'string index');
        return k === FAULT ? FAULT : (s as string).charAt(k);
      };
    case 'map': {
      const conform = conformerFor(t.of);
      return (env) => {
        const m = target(env);
        const k = index(env);
        if (m === FAULT || k === FAULT) return FAULT;
        if (typeof k !== 'string')
          return raise(env, 'type', `a map key must be a string, not ${describeValue(k)}`);
        if (!Object.hasOwn(m as object, k)) return raise(env, 'missing', `key '${k}' is missing`);
        return conform((m as Record<string, unknown>)[k], env, `key '${k}'`);
      };
    }
    default:
      return (env) => {
        const v = target(env);
        const k = index(env);
        if (v === FAULT || k === FAULT) return FAULT;
        return dynamicIndex(v, k, env);
      };
  }
}

/** `x[i]` on dynamic data: list or string with an int, map with a string key. */
function dynamicIndex(target: unknown, key: unknown, env: Env): unknown {
  if (Array.isArray(target)) {
    const k = indexInto(key, target.length, env, 'list index');
    return k === FAULT ? FAULT : dynamic(target[k], env, 'list element');
  }
  if (typeof target === 'string') {
    const k = indexInto(key, target.length, env, 'string index');
    return k === FAULT ? FAULT : target.charAt(k);
  }
  if (typeof target === 'object' && target !== null) {
    if (typeof key !== 'string')
      return raise(env, 'type', `a map key must be a string, not ${describeValue(key)}`);
    if (!Object.hasOwn(target, key)) return raise(env, 'missing', `key '${key}' is missing`);
    return dynamic((target as Record<string, unknown>)[key], env, `key '${key}'`);
  }
  return raise(env, 'type', `${describeValue(target)} cannot be indexed`);
}

function compileCompare(n: Extract<Checked, { k: 'cmp' }>, cx: CompileScope): Compiled {
  const dyn = n.left.type.t === 'any' || n.right.type.t === 'any';
  const op = n.op;
  if (!dyn && (op === '==' || op === '!=') && (isConst(n.right) || isConst(n.left))) {
    // The hot path: a field compared with a literal.
    const c = isConst(n.right) ? n.right.value : (n.left as Const).value;
    const otherNode = isConst(n.right) ? n.left : n.right;
    const other = compileNode(otherNode, cx);
    if (op === '==') {
      return (env) => {
        const v = other(env);
        return v === FAULT ? FAULT : v === c;
      };
    }
    return (env) => {
      const v = other(env);
      return v === FAULT ? FAULT : v !== c;
    };
  }
  if (n.left.k === 'count' && isConst(n.right)) {
    // `list.count() OP n` (and `list.filter(…).count() OP n`): compare lengths as numbers,
    // without allocating a BigInt per evaluation. Exact: lengths are safe integers.
    const length = compileLength(n.left.target, cx);
    const test = lengthTest(op, n.right.value as bigint);
    return (env) => {
      const len = length(env);
      return len === FAULT ? FAULT : test(len);
    };
  }
  if (!dyn && isConst(n.right) && op !== '==' && op !== '!=') {
    const c = n.right.value as bigint;
    const left = compileNode(n.left, cx);
    switch (op) {
      case '<':
        return (env) => {
          const v = left(env);
          return v === FAULT ? FAULT : (v as bigint) < c;
        };
      case '>':
        return (env) => {
          const v = left(env);
          return v === FAULT ? FAULT : (v as bigint) > c;
        };
      case '<=':
        return (env) => {
          const v = left(env);
          return v === FAULT ? FAULT : (v as bigint) <= c;
        };
      default:
        return (env) => {
          const v = left(env);
          return v === FAULT ? FAULT : (v as bigint) >= c;
        };
    }
  }
  const left = compileNode(n.left, cx);
  const right = compileNode(n.right, cx);
  const test = comparison(op, dyn);
  return (env) => {
    const a = left(env);
    const b = right(env);
    if (a === FAULT || b === FAULT) return FAULT;
    return test(a, b, env);
  };
}

function comparison(
  op: string,
  dyn: boolean,
): (a: unknown, b: unknown, env: Env) => boolean | Fault {
  if (op === '==') return dyn ? dynamicEquals : (a, b) => a === b;
  if (op === '!=') {
    return dyn
      ? (a, b, env) => {
          const eq = dynamicEquals(a, b, env);
          return eq === FAULT ? FAULT : !eq;
        }
      : (a, b) => a !== b;
  }
  const order = (a: bigint, b: bigint): boolean =>
    op === '<' ? a < b : op === '>' ? a > b : op === '<=' ? a <= b : a >= b;
  return (a, b, env) => {
    if (typeof a !== 'bigint' || typeof b !== 'bigint') {
      return raise(
        env,
        'type',
        `cannot order ${describeValue(a)} and ${describeValue(b)}: ints only`,
      );
    }
    return order(a, b);
  };
}

/** The length of a list, or of the elements a filter keeps (without building the list). */
function compileLength(n: Checked, cx: CompileScope): (env: Env) => number | Fault {
  if (n.k === 'filter') return compileLambda(n, cx, 'count') as (env: Env) => number | Fault;
  const target = compileNode(n, cx);
  return (env) => {
    const v = target(env);
    if (v === FAULT) return FAULT;
    if (!Array.isArray(v))
      return raise(env, 'type', `count() needs a list, found ${describeValue(v)}`);
    return v.length;
  };
}

/** `length OP c` for a bigint constant c, computed on numbers. */
function lengthTest(op: string, c: bigint): (length: number) => boolean {
  // Lengths are far below 2^40: clamp c where Number(c) is exact and the order is kept.
  const k = c > 2n ** 40n ? 2 ** 40 + 0.5 : c < 0n ? -0.5 : Number(c);
  switch (op) {
    case '==':
      return (len) => len === k;
    case '!=':
      return (len) => len !== k;
    case '<':
      return (len) => len < k;
    case '>':
      return (len) => len > k;
    case '<=':
      return (len) => len <= k;
    default:
      return (len) => len >= k;
  }
}

function compileIn(n: Extract<Checked, { k: 'in' }>, cx: CompileScope): Compiled {
  const value = compileNode(n.left, cx);
  const elem = elementType(n.right.type);
  const dyn = n.left.type.t === 'any' || elem.t === 'any';
  // A literal list of literals: a set lookup.
  if (n.right.k === 'list' && n.right.items.every(isConst)) {
    const members = new Set<unknown>(n.right.items.map((i) => (i as Const).value));
    if (!dyn) {
      return (env) => {
        const v = value(env);
        return v === FAULT ? FAULT : members.has(v);
      };
    }
    const kinds = new Set<string>([...members].map((m) => typeof m));
    return (env) => {
      const v = value(env);
      if (v === FAULT) return FAULT;
      if (!isScalarValue(v) || (kinds.size > 0 && !kinds.has(typeof v))) {
        return raise(env, 'type', `'in' cannot look for ${describeValue(v)} in this list`);
      }
      return members.has(v);
    };
  }
  const list = compileNode(n.right, cx);
  const conform = conformerFor(elem);
  // A literal needle (e.g. tags.contains('x')): the left side cannot fail.
  if (isConst(n.left) && !dyn) {
    const needle = n.left.value;
    return (env) => {
      const items = list(env);
      if (items === FAULT) return FAULT;
      if (!Array.isArray(items))
        return raise(env, 'type', `'in' needs a list, found ${describeValue(items)}`);
      if (!charge(env, items.length)) return FAULT;
      let found = false;
      let failed = false;
      for (let i = 0; i < items.length; i++) {
        const item = conform(items[i], env, 'list element');
        if (item === FAULT) failed = true;
        else if (item === needle) found = true;
      }
      return failed ? FAULT : found;
    };
  }
  return (env) => {
    const v = value(env);
    const items = list(env);
    if (v === FAULT || items === FAULT) return FAULT;
    if (!Array.isArray(items))
      return raise(env, 'type', `'in' needs a list, found ${describeValue(items)}`);
    if (dyn && !isScalarValue(v))
      return raise(env, 'type', `'in' cannot look for ${describeValue(v)}`);
    if (!charge(env, items.length)) return FAULT;
    let found = false;
    let failed = false;
    for (let i = 0; i < items.length; i++) {
      const item = conform(items[i], env, 'list element');
      const eq = item === FAULT ? FAULT : dyn ? dynamicEquals(v, item, env) : item === v;
      if (eq === FAULT) failed = true;
      else if (eq) found = true;
    }
    return failed ? FAULT : found;
  };
}

function compileLambda(
  n: Extract<Checked, { k: 'all' | 'any' | 'filter' }>,
  cx: CompileScope,
  mode: 'all' | 'any' | 'filter' | 'count' = n.k,
): Compiled {
  const target = compileNode(n.target, cx);
  const body = boolOf(n.body, cx);
  const conform = conformerFor(elementType(n.target.type));
  const slot = n.slot;
  const kind = n.k;
  // Each element costs one step plus the body's own nodes; loops inside the body charge
  // their own work when they start.
  const perItem = 1 + localCost(n.body);
  if (mode === 'count') {
    // `filter(…).count()`: count what the filter keeps, evaluating every element.
    return (env) => {
      const items = target(env);
      if (items === FAULT) return FAULT;
      if (!Array.isArray(items)) {
        return raise(env, 'type', `filter() needs a list, found ${describeValue(items)}`);
      }
      if (!charge(env, items.length * perItem)) return FAULT;
      const vars = env.vars;
      let failed = false;
      let kept = 0;
      for (let i = 0; i < items.length; i++) {
        const item = conform(items[i], env, 'list element');
        if (item === FAULT) {
          failed = true;
          continue;
        }
        vars[slot] = item;
        const verdict = body(env);
        if (verdict === FAULT) failed = true;
        else if (verdict) kept++;
      }
      return failed ? FAULT : kept;
    };
  }
  return (env) => {
    const items = target(env);
    if (items === FAULT) return FAULT;
    if (!Array.isArray(items))
      return raise(env, 'type', `${kind}() needs a list, found ${describeValue(items)}`);
    if (!charge(env, items.length * perItem)) return FAULT;
    const vars = env.vars;
    let failed = false;
    let every = true;
    let some = false;
    const kept: unknown[] | undefined = kind === 'filter' ? [] : undefined;
    for (let i = 0; i < items.length; i++) {
      const item = conform(items[i], env, 'list element');
      if (item === FAULT) {
        failed = true;
        continue;
      }
      vars[slot] = item;
      const verdict = body(env);
      if (verdict === FAULT) failed = true;
      else if (verdict) {
        some = true;
        kept?.push(item);
      } else every = false;
    }
    if (failed) return FAULT;
    return kind === 'all' ? every : kind === 'any' ? some : kept;
  };
}

/** Compile a checked top-level expression into a predicate. */
export function compileExpression(checked: CheckedExpression, cx: CompileScope): CompiledPredicate {
  return boolOf(checked.root, cx);
}

/**
 * Atoms: the comparisons most conditions are made of, evaluated without a closure call.
 *
 *   path == c   path != c   path < c …     (a keyword path of bool, int, string or timestamp)
 *   path in [c1, c2 …]                      (a literal list of literals)
 *   path.contains(c)                        (a keyword path of list<scalar>)
 *   dyn.name OP c   dyn['name'] OP c        (a field of a dynamic keyword path, e.g. activity.params)
 *
 * An `&&` / `||` chain keeps its atoms in an array and runs them through {@link evalAtom} — one
 * monomorphic function with a switch — instead of a tree of closures, so a typical condition
 * costs a few array loads per atom. The semantics are exactly those of the closures they
 * replace (compile.ts), including every error; the differential test holds them to it.
 */
import type { Checked } from './checked.js';
import type { Env } from './env.js';
import type { PathRegistry, PathSpec } from './paths.js';
import type { PolicyField } from './policy-error.js';
import {
  type Conformer,
  charge,
  conformerFor,
  describeValue,
  dynamic,
  FAULT,
  type Fault,
  isScalarValue,
  raise,
} from './runtime.js';
import type { Type } from './types.js';

const EQ = 0;
const NE = 1;
const LT = 2;
const GT = 3;
const LE = 4;
const GE = 5;
const IN = 6;
const CONTAINS = 7;
const DYN = 8;

const OPS: Readonly<Record<string, number>> = {
  '==': EQ,
  '!=': NE,
  '<': LT,
  '>': GT,
  '<=': LE,
  '>=': GE,
};
const FLIPPED: Readonly<Record<string, string>> = {
  '==': '==',
  '!=': '!=',
  '<': '>',
  '>': '<',
  '<=': '>=',
  '>=': '<=',
};

export class Atom {
  constructor(
    /** EQ … GE, IN, CONTAINS, or DYN (then `op` is the comparison). */
    readonly kind: number,
    /** The path index. */
    readonly path: number,
    /** The literal compared with, the needle of CONTAINS. */
    readonly value: unknown,
    /** IN: the literal list. */
    readonly set: ReadonlySet<unknown> | undefined,
    /** DYN: the field name, its comparison, and the messages of its errors. */
    readonly name: string,
    readonly op: number,
    /** CONTAINS: the element check. */
    readonly conform: Conformer | undefined,
    readonly absent: string,
  ) {}
}

interface AtomScope {
  readonly field: PolicyField;
  readonly registry: PathRegistry;
  readonly used: Set<PathSpec>;
}

type Const = Extract<Checked, { k: 'const' }>;

function isConst(n: Checked): n is Const {
  return n.k === 'const';
}

/** The keyword path a node reads, if it is a keyword followed by struct fields only. */
export function pathOf(n: Checked, cx: AtomScope): PathSpec | undefined {
  const fields: { name: string; type: Type }[] = [];
  let node = n;
  while (node.k === 'field' && node.target.type.t === 'struct') {
    fields.unshift({ name: node.name, type: node.type });
    node = node.target;
  }
  if (node.k !== 'root') return undefined;
  const spec = cx.registry.intern(cx.field, node.path, node.type, fields);
  cx.used.add(spec);
  return spec;
}

function isStaticScalar(t: Type): boolean {
  return t.t === 'bool' || t.t === 'int' || t.t === 'string' || t.t === 'timestamp';
}

/** `dyn.name` or `dyn['name']` on a dynamic keyword path: the path and the name. */
function dynamicField(n: Checked, cx: AtomScope): { path: PathSpec; name: string } | undefined {
  if (n.k === 'field' && n.target.type.t === 'any') {
    const path = pathOf(n.target, cx);
    return path ? { path, name: n.name } : undefined;
  }
  if (
    n.k === 'index' &&
    n.target.type.t === 'any' &&
    isConst(n.index) &&
    typeof n.index.value === 'string'
  ) {
    const path = pathOf(n.target, cx);
    return path ? { path, name: n.index.value } : undefined;
  }
  return undefined;
}

/** The atom a boolean node is, if it is one. */
export function atomOf(n: Checked, cx: AtomScope): Atom | undefined {
  if (n.k === 'cmp') {
    const constRight = isConst(n.right);
    if (!constRight && !isConst(n.left)) return undefined;
    const c = (constRight ? n.right : n.left) as Const;
    const other = constRight ? n.left : n.right;
    const op = constRight ? n.op : (FLIPPED[n.op] as string);
    if (isStaticScalar(other.type) && isStaticScalar(c.type)) {
      const path = pathOf(other, cx);
      return path
        ? new Atom(OPS[op] as number, path.index, c.value, undefined, '', 0, undefined, '')
        : undefined;
    }
    if (other.type.t === 'any') {
      const f = dynamicField(other, cx);
      if (!f) return undefined;
      return new Atom(
        DYN,
        f.path.index,
        c.value,
        undefined,
        f.name,
        OPS[op] as number,
        undefined,
        `field '${f.name}' is missing`,
      );
    }
    return undefined;
  }
  if (n.k === 'in') {
    const elem = n.right.type.t === 'list' ? n.right.type.of : undefined;
    if (!elem || elem.t === 'any' || n.left.type.t === 'any') return undefined;
    if (n.right.k === 'list' && n.right.items.every(isConst)) {
      const path = pathOf(n.left, cx);
      if (!path) return undefined;
      const set = new Set<unknown>(n.right.items.map((i) => (i as Const).value));
      return new Atom(IN, path.index, undefined, set, '', 0, undefined, '');
    }
    if (isConst(n.left) && isStaticScalar(elem)) {
      const path = pathOf(n.right, cx);
      if (!path) return undefined;
      return new Atom(CONTAINS, path.index, n.left.value, undefined, '', 0, conformerFor(elem), '');
    }
  }
  return undefined;
}

function order(op: number, a: bigint, b: bigint): boolean {
  switch (op) {
    case LT:
      return a < b;
    case GT:
      return a > b;
    case LE:
      return a <= b;
    default:
      return a >= b;
  }
}

/** Evaluate one atom: a boolean, or FAULT with the error recorded on `env`. */
export function evalAtom(a: Atom, env: Env): boolean | Fault {
  const fault = env.pathFaults[a.path];
  if (fault !== undefined) return raise(env, fault.errorClass, fault.message, fault.keyword);
  const v = env.paths[a.path];
  switch (a.kind) {
    case EQ:
      return v === a.value;
    case NE:
      return v !== a.value;
    case IN:
      return (a.set as ReadonlySet<unknown>).has(v);
    case CONTAINS: {
      const items = v as unknown[];
      if (!charge(env, items.length)) return FAULT;
      let found = false;
      let failed = false;
      const needleType = typeof a.value;
      for (let i = 0; i < items.length; i++) {
        let item = items[i];
        // An element already of the needle's type needs no conversion or check.
        if (typeof item !== needleType) {
          item = (a.conform as Conformer)(item, env, 'list element');
          if (item === FAULT) {
            failed = true;
            continue;
          }
        }
        if (item === a.value) found = true;
      }
      return failed ? FAULT : found;
    }
    case DYN: {
      if (typeof v !== 'object' || v === null || Array.isArray(v)) {
        return raise(env, 'type', `.${a.name}: ${describeValue(v)} has no fields`);
      }
      if (!Object.hasOwn(v, a.name)) return raise(env, 'missing', a.absent);
      const x = dynamic((v as Record<string, unknown>)[a.name], env, `field '${a.name}'`);
      if (x === FAULT) return FAULT;
      if (a.op === EQ || a.op === NE) {
        if (!isScalarValue(x) || typeof x !== typeof a.value) {
          return raise(
            env,
            'type',
            `cannot compare ${describeValue(x)} with ${describeValue(a.value)}`,
          );
        }
        return a.op === EQ ? x === a.value : x !== a.value;
      }
      if (typeof x !== 'bigint' || typeof a.value !== 'bigint') {
        return raise(
          env,
          'type',
          `cannot order ${describeValue(x)} and ${describeValue(a.value)}: ints only`,
        );
      }
      return order(a.op, x, a.value);
    }
    default:
      return order(a.kind, v as bigint, a.value as bigint);
  }
}

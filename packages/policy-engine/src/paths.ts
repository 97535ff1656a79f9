/**
 * Keyword paths, read once per evaluation. A path is a keyword and a chain of struct fields
 * with static types (`activity.resource`, `eth.tx.to`, `approvers`). Every distinct path a
 * policy set uses is read from the context once, checked against its type, and stored in a flat
 * array; compiled closures then read `env.paths[index]` instead of walking objects with
 * per-closure property names (megamorphic lookups), and a request's `activity.resource` is read
 * once, not once per policy. A path that cannot be read stores a {@link PathFault}, which each
 * use raises exactly as a fresh read would.
 */
import type { PolicyField } from './policy-error.js';
import { type Conformer, conformerFor, type ErrorClass } from './runtime.js';
import type { Type } from './types.js';

export class PathFault {
  constructor(
    readonly errorClass: ErrorClass,
    readonly message: string,
    /** The keyword path read (`wallet.id`), for "why was this denied?". */
    readonly keyword: string,
  ) {}
}

interface Step {
  readonly name: string;
  /** A namespace member (`eth` → `tx`) or a struct field. */
  readonly kind: 'namespace' | 'root' | 'field';
  readonly conform?: Conformer;
  readonly label: string;
  /** The dotted keyword path up to this step. */
  readonly keyword: string;
  /** The fault when the value is absent (built once: the same every time). */
  readonly absent: PathFault;
  /** The fault when a namespace holder is not an object. */
  readonly notObject: PathFault;
}

export interface PathSpec {
  readonly index: number;
  readonly scope: PolicyField;
  readonly key: string;
  readonly steps: readonly Step[];
}

/** Where a conformer's error is caught while reading a path (evaluation is synchronous, so one
 *  shared sink is enough). */
const capture: { fault: ErrorClass | undefined; faultMessage: string } = {
  fault: undefined,
  faultMessage: '',
};

/** Read one path from a scope's roots: the checked value, or a PathFault. */
export function readPath(spec: PathSpec, roots: Readonly<Record<string, unknown>>): unknown {
  let v: unknown = roots;
  for (const step of spec.steps) {
    if (step.kind === 'field') {
      v = (v as Record<string, unknown>)[step.name];
      if (v === undefined || v === null) return step.absent;
    } else {
      if (typeof v !== 'object' || v === null) return step.notObject;
      v = (v as Record<string, unknown>)[step.name];
      if (v === undefined || v === null) return step.absent;
      if (step.kind === 'namespace') continue;
    }
    capture.fault = undefined;
    v = (step.conform as Conformer)(v, capture, step.label);
    if (capture.fault !== undefined) {
      return new PathFault(capture.fault, capture.faultMessage, step.keyword);
    }
  }
  return v;
}

/** The paths of one schema, numbered once for the life of the process (bounded by the schema). */
export class PathRegistry {
  private readonly byKey = new Map<string, PathSpec>();
  readonly specs: PathSpec[] = [];

  /**
   * The path of keyword `root` (namespace members included) and struct `fields`, whose value
   * has type `type`. `types[i]` is the type after step i of root and fields.
   */
  intern(
    scope: PolicyField,
    root: readonly string[],
    rootType: Type,
    fields: readonly { name: string; type: Type }[],
  ): PathSpec {
    const key = `${scope}:${[...root, ...fields.map((f) => f.name)].join('.')}`;
    const known = this.byKey.get(key);
    if (known) return known;
    const steps: Step[] = [];
    const keyword = root.join('.');
    root.forEach((name, i) => {
      const label = root.slice(0, i + 1).join('.');
      const absent = new PathFault(
        'missing',
        `${keyword} is not available for this request`,
        keyword,
      );
      const parent = i === 0 ? 'the context' : root.slice(0, i).join('.');
      const notObject = new PathFault('type', `${parent} should be a namespace object`, label);
      if (i < root.length - 1) {
        steps.push({ name, kind: 'namespace', label, keyword: label, absent, notObject });
      } else {
        steps.push({
          name,
          kind: 'root',
          conform: conformerFor(rootType),
          label,
          keyword,
          absent,
          notObject,
        });
      }
    });
    let path = keyword;
    for (const f of fields) {
      const label = `field '${f.name}'`;
      path = `${path}.${f.name}`;
      steps.push({
        name: f.name,
        kind: 'field',
        conform: conformerFor(f.type),
        label,
        keyword: path,
        absent: new PathFault('missing', `${label} is missing`, path),
        notObject: new PathFault('type', `${label} should be in a struct`, path),
      });
    }
    const spec: PathSpec = { index: this.specs.length, scope, key, steps };
    this.specs.push(spec);
    this.byKey.set(key, spec);
    return spec;
  }
}

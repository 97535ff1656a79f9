/**
 * The reference evaluator: the model the compiled engine is differential-tested against.
 * A direct walk over the checked tree, written to be obviously right rather than fast:
 * every node returns a Result, errors are plain values, and nothing short-circuits.
 * CronSpan is computed by brute force, minute by minute, from its definition.
 *
 * It shares only the front end (parser and checker) with the engine: the compiler, the runtime
 * checks, the CronSpan algorithm and the decision rule are all written again here.
 */
import type { Checked } from '../checked.js';
import type { PolicyInput } from '../policy.js';
import { checkPolicy } from '../policy.js';
import { PolicyError } from '../policy-error.js';
import type { KeywordSchema } from '../schema.js';
import type { Type } from '../types.js';

type ErrorClass = 'missing' | 'type';
type Result = { ok: true; value: unknown } | { ok: false; error: ErrorClass };

const ok = (value: unknown): Result => ({ ok: true, value });
const MISSING: Result = { ok: false, error: 'missing' };
const TYPE: Result = { ok: false, error: 'type' };

/** The combined error of several results: `type` if any is a type error, else `missing`. */
function errorOf(results: Result[]): Result | undefined {
  const errors = results.filter((r) => !r.ok);
  if (errors.length === 0) return undefined;
  return errors.some((r) => !r.ok && r.error === 'type') ? TYPE : MISSING;
}

function isScalar(v: unknown): boolean {
  return typeof v === 'string' || typeof v === 'bigint' || typeof v === 'boolean';
}

function isStruct(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Read a raw context value as a value of `type`. */
function read(type: Type, raw: unknown): Result {
  if (raw === undefined || raw === null) return MISSING;
  switch (type.t) {
    case 'bool':
      return typeof raw === 'boolean' ? ok(raw) : TYPE;
    case 'int':
      if (typeof raw === 'bigint') return ok(raw);
      if (typeof raw === 'number' && Number.isSafeInteger(raw)) return ok(BigInt(raw));
      return TYPE;
    case 'string':
      return typeof raw === 'string' ? ok(raw) : TYPE;
    case 'timestamp':
      return typeof raw === 'bigint' ? ok(raw) : TYPE;
    case 'list':
      return Array.isArray(raw) ? ok(raw) : TYPE;
    case 'struct':
    case 'map':
    case 'namespace':
      return isStruct(raw) ? ok(raw) : TYPE;
    case 'any':
      if (typeof raw === 'string' || typeof raw === 'boolean' || typeof raw === 'bigint')
        return ok(raw);
      if (typeof raw === 'number') return Number.isSafeInteger(raw) ? ok(BigInt(raw)) : TYPE;
      if (typeof raw === 'object') return ok(raw);
      return TYPE;
  }
}

function asBool(r: Result): Result {
  if (!r.ok) return r;
  return typeof r.value === 'boolean' ? r : TYPE;
}

function elementType(t: Type): Type {
  return t.t === 'list' ? t.of : { t: 'any' };
}

/** Index a list or string; out of range is missing. */
function at(length: number, i: unknown): number | Result {
  if (typeof i !== 'bigint') return TYPE;
  if (i < 0n || i >= BigInt(length)) return MISSING;
  return Number(i);
}

export interface ReferenceEnv {
  readonly roots: Readonly<Record<string, unknown>>;
  readonly vars: Map<number, unknown>;
  readonly nowMs: number;
}

export function evalNode(n: Checked, env: ReferenceEnv): Result {
  switch (n.k) {
    case 'const':
      return ok(n.value);

    case 'list': {
      const items = n.items.map((item) => evalNode(item, env));
      return errorOf(items) ?? ok(items.map((r) => (r.ok ? r.value : undefined)));
    }

    case 'root': {
      let v: unknown = env.roots[n.path[0] as string];
      for (const name of n.path.slice(1)) {
        if (v === undefined || v === null) return MISSING;
        if (typeof v !== 'object') return TYPE;
        v = (v as Record<string, unknown>)[name];
      }
      return read(n.type, v);
    }

    case 'var':
      return ok(env.vars.get(n.slot));

    case 'field': {
      const target = evalNode(n.target, env);
      if (!target.ok) return target;
      const o = target.value;
      if (n.target.type.t === 'any') {
        if (!isStruct(o)) return TYPE;
        if (!Object.hasOwn(o, n.name)) return MISSING;
      }
      return read(n.type, (o as Record<string, unknown>)[n.name]);
    }

    case 'index': {
      const target = evalNode(n.target, env);
      const index = evalNode(n.index, env);
      const err = errorOf([target, index]);
      if (err || !target.ok || !index.ok) return err ?? TYPE;
      const t = target.value;
      const i = index.value;
      if (Array.isArray(t)) {
        const k = at(t.length, i);
        return typeof k === 'number' ? read(elementType(n.target.type), t[k]) : k;
      }
      if (typeof t === 'string') {
        const k = at(t.length, i);
        return typeof k === 'number' ? ok(t.charAt(k)) : k;
      }
      if (isStruct(t)) {
        if (typeof i !== 'string') return TYPE;
        if (!Object.hasOwn(t, i)) return MISSING;
        return read(n.type, t[i]);
      }
      return TYPE;
    }

    case 'slice': {
      const parts = [evalNode(n.target, env), evalNode(n.start, env), evalNode(n.end, env)];
      const err = errorOf(parts);
      if (err) return err;
      const [t, s, e] = parts.map((r) => (r.ok ? r.value : undefined));
      if (typeof t !== 'string' && !Array.isArray(t)) return TYPE;
      if (typeof s !== 'bigint' || typeof e !== 'bigint') return TYPE;
      if (s < 0n || e < s || e > BigInt(t.length)) return MISSING;
      return ok(t.slice(Number(s), Number(e)));
    }

    case 'not': {
      const v = asBool(evalNode(n.operand, env));
      return v.ok ? ok(!v.value) : v;
    }

    case 'and':
    case 'or': {
      const values = n.operands.map((o) => asBool(evalNode(o, env)));
      const err = errorOf(values);
      if (err) return err;
      const bools = values.map((v) => (v.ok ? v.value : false));
      return ok(n.k === 'and' ? bools.every(Boolean) : bools.some(Boolean));
    }

    case 'cmp': {
      const l = evalNode(n.left, env);
      const r = evalNode(n.right, env);
      const err = errorOf([l, r]);
      if (err || !l.ok || !r.ok) return err ?? TYPE;
      const a = l.value;
      const b = r.value;
      const dynamic = n.left.type.t === 'any' || n.right.type.t === 'any';
      if (n.op === '==' || n.op === '!=') {
        if (dynamic && (!isScalar(a) || typeof a !== typeof b)) return TYPE;
        return ok(n.op === '==' ? a === b : a !== b);
      }
      if (typeof a !== 'bigint' || typeof b !== 'bigint') return TYPE;
      switch (n.op) {
        case '<':
          return ok(a < b);
        case '>':
          return ok(a > b);
        case '<=':
          return ok(a <= b);
        default:
          return ok(a >= b);
      }
    }

    case 'in': {
      const l = evalNode(n.left, env);
      const r = evalNode(n.right, env);
      const err = errorOf([l, r]);
      if (err || !l.ok || !r.ok) return err ?? TYPE;
      if (!Array.isArray(r.value)) return TYPE;
      const dynamic = n.left.type.t === 'any' || elementType(n.right.type).t === 'any';
      if (dynamic && !isScalar(l.value)) return TYPE;
      const checks = r.value.map((raw): Result => {
        const item = read(elementType(n.right.type), raw);
        if (!item.ok) return item;
        if (dynamic && typeof item.value !== typeof l.value) return TYPE;
        return ok(item.value === l.value);
      });
      return errorOf(checks) ?? ok(checks.some((c) => c.ok && c.value === true));
    }

    case 'all':
    case 'any':
    case 'filter': {
      const target = evalNode(n.target, env);
      if (!target.ok) return target;
      if (!Array.isArray(target.value)) return TYPE;
      const kept: unknown[] = [];
      const results = target.value.map((raw): Result => {
        const item = read(elementType(n.target.type), raw);
        if (!item.ok) return item;
        env.vars.set(n.slot, item.value);
        const verdict = asBool(evalNode(n.body, env));
        if (verdict.ok && verdict.value === true) kept.push(item.value);
        return verdict;
      });
      const err = errorOf(results);
      if (err) return err;
      const values = results.map((r) => r.ok && r.value === true);
      if (n.k === 'all') return ok(values.every(Boolean));
      if (n.k === 'any') return ok(values.some(Boolean));
      return ok(kept);
    }

    case 'count': {
      const target = evalNode(n.target, env);
      if (!target.ok) return target;
      return Array.isArray(target.value) ? ok(BigInt(target.value.length)) : TYPE;
    }

    case 'cronspan':
      return ok(cronSpanBruteForce(n.span, env.nowMs));
  }
}

// ---------------------------------------------------------------- CronSpan, by brute force

const MINUTE = 60_000;
const DAY = 86_400_000;
const formats = new Map<string, Intl.DateTimeFormat>();

const walls = new Map<string, number>();

/** The zone's wall-clock time at instant t, as a naive UTC-style millisecond count (memoized:
 *  the brute force asks for the same minutes again and again). */
export function wallClock(timeZone: string, t: number): number {
  const key = `${timeZone} ${t}`;
  const known = walls.get(key);
  if (known !== undefined) return known;
  if (walls.size > 200_000) walls.clear();
  const wall = readWallClock(timeZone, t);
  walls.set(key, wall);
  return wall;
}

function readWallClock(timeZone: string, t: number): number {
  let format = formats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-GB', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formats.set(timeZone, format);
  }
  const p = Object.fromEntries(format.formatToParts(t).map((x) => [x.type, Number(x.value)]));
  return Date.UTC(p.year as number, (p.month as number) - 1, p.day, p.hour, p.minute, p.second);
}

function cronMatches(
  schedule: Extract<Checked, { k: 'cronspan' }>['span']['schedule'],
  wall: number,
): boolean {
  const d = new Date(wall);
  if (!schedule.minutes[d.getUTCMinutes()] || !schedule.hours[d.getUTCHours()]) return false;
  if (!schedule.months[d.getUTCMonth() + 1]) return false;
  const dom = schedule.daysOfMonth[d.getUTCDate()] === true;
  const dow = schedule.daysOfWeek[d.getUTCDay()] === true;
  if (schedule.dayOfMonthRestricted && schedule.dayOfWeekRestricted) return dom || dow;
  return dom && dow;
}

/**
 * Walk instants minute by minute from a day before the window to now. A wall time W fires at
 * the first instant the clock reads W or later, so the walls first reached at instant t are
 * those above every wall seen before t, up to the wall at t.
 */
export function cronSpanBruteForce(
  span: Extract<Checked, { k: 'cronspan' }>['span'],
  nowMs: number,
): boolean {
  const windowStart = nowMs - span.durationMs;
  let t = Math.floor(windowStart / MINUTE) * MINUTE - DAY;
  let highest = wallClock(span.timeZone, t);
  for (t += MINUTE; t <= nowMs; t += MINUTE) {
    const wall = wallClock(span.timeZone, t);
    for (let w = highest + MINUTE; w <= wall; w += MINUTE) {
      if (t > windowStart && cronMatches(span.schedule, w)) return true;
    }
    highest = Math.max(highest, wall);
  }
  return false;
}

// ---------------------------------------------------------------- policies and the decision

export type ReferenceOutcome =
  | 'OUTCOME_ALLOW'
  | 'OUTCOME_DENY_EXPLICIT'
  | 'OUTCOME_DENY_IMPLICIT'
  | 'OUTCOME_REQUIRES_CONSENSUS'
  | 'OUTCOME_REJECTED'
  | 'OUTCOME_ERROR'
  | 'OUTCOME_TIME_INACTIVE';

export interface ReferenceContext {
  readonly condition: Readonly<Record<string, unknown>>;
  readonly consensus: Readonly<Record<string, unknown>>;
  readonly now: number;
  readonly rejected?: boolean;
}

export interface ReferenceResult {
  readonly decision: 'ALLOW' | 'DENY' | 'REQUIRES_CONSENSUS';
  readonly decidingPolicyIds: string[];
  readonly outcomes: { policyId: string; outcome: ReferenceOutcome }[];
  /** Per policy: the class of its error, if it has one. */
  readonly errorClasses: (ErrorClass | 'invalid' | undefined)[];
}

function runField(
  checked: Checked | undefined,
  roots: Record<string, unknown>,
  nowMs: number,
): Result {
  if (!checked) return ok(true);
  return asBool(evalNode(checked, { roots, vars: new Map(), nowMs }));
}

export function referenceEvaluate(
  policies: readonly PolicyInput[],
  context: ReferenceContext,
  schema: KeywordSchema,
  strictDenyErrors = false,
): ReferenceResult {
  const outcomes: { policyId: string; outcome: ReferenceOutcome }[] = [];
  const errorClasses: (ErrorClass | 'invalid' | undefined)[] = [];
  const timeRoots = { time: { now: BigInt(context.now) * 1_000_000n } };

  for (const policy of policies) {
    let checked: ReturnType<typeof checkPolicy> | undefined;
    try {
      // Types only: a stored policy over the cost estimate still compiles (its run is metered).
      checked = checkPolicy(policy, schema, { costBudget: Number.POSITIVE_INFINITY });
    } catch (e) {
      if (!(e instanceof PolicyError)) throw e;
    }
    if (!checked || (policy.effect !== 'EFFECT_ALLOW' && policy.effect !== 'EFFECT_DENY')) {
      outcomes.push({ policyId: policy.policyId, outcome: 'OUTCOME_ERROR' });
      errorClasses.push('invalid');
      continue;
    }
    let outcome: ReferenceOutcome;
    let errorClass: ErrorClass | undefined;
    const time = runField(checked.time?.root, timeRoots, context.now);
    if (!time.ok) {
      outcome = 'OUTCOME_ERROR';
      errorClass = time.error;
    } else if (time.value === false) {
      outcome = 'OUTCOME_TIME_INACTIVE';
    } else {
      const condition = runField(checked.condition?.root, context.condition, context.now);
      if (!condition.ok) {
        outcome = 'OUTCOME_ERROR';
        errorClass = condition.error;
      } else if (condition.value === false) {
        outcome = 'OUTCOME_DENY_IMPLICIT';
      } else {
        const consensus = runField(checked.consensus?.root, context.consensus, context.now);
        if (!consensus.ok) {
          outcome = 'OUTCOME_ERROR';
          errorClass = consensus.error;
        } else if (policy.effect === 'EFFECT_DENY') {
          outcome = consensus.value ? 'OUTCOME_DENY_EXPLICIT' : 'OUTCOME_DENY_IMPLICIT';
        } else if (context.rejected) {
          outcome = 'OUTCOME_REJECTED';
        } else {
          outcome = consensus.value ? 'OUTCOME_ALLOW' : 'OUTCOME_REQUIRES_CONSENSUS';
        }
      }
    }
    outcomes.push({ policyId: policy.policyId, outcome });
    errorClasses.push(errorClass);
  }

  const ids = (keep: (i: number) => boolean): string[] => [
    ...new Set(outcomes.filter((_, i) => keep(i)).map((o) => o.policyId)),
  ];
  const denying = ids((i) => {
    const o = outcomes[i]?.outcome;
    if (o === 'OUTCOME_DENY_EXPLICIT') return true;
    if (o !== 'OUTCOME_ERROR') return false;
    const deny = policies[i]?.effect !== 'EFFECT_ALLOW';
    return deny && (strictDenyErrors || errorClasses[i] !== 'missing');
  });
  if (denying.length > 0)
    return { decision: 'DENY', decidingPolicyIds: denying, outcomes, errorClasses };
  const rejecting = ids((i) => outcomes[i]?.outcome === 'OUTCOME_REJECTED');
  if (rejecting.length > 0)
    return { decision: 'DENY', decidingPolicyIds: rejecting, outcomes, errorClasses };
  const allowing = ids((i) => outcomes[i]?.outcome === 'OUTCOME_ALLOW');
  if (allowing.length > 0)
    return { decision: 'ALLOW', decidingPolicyIds: allowing, outcomes, errorClasses };
  const waiting = ids((i) => outcomes[i]?.outcome === 'OUTCOME_REQUIRES_CONSENSUS');
  if (waiting.length > 0) {
    return { decision: 'REQUIRES_CONSENSUS', decidingPolicyIds: waiting, outcomes, errorClasses };
  }
  return { decision: 'DENY', decidingPolicyIds: [], outcomes, errorClasses };
}

/**
 * Compiling a policy set (once, cached by its exact content) and evaluating it.
 *
 * Per policy, in order (a step that decides stops the policy):
 *  1. `time`: false → OUTCOME_TIME_INACTIVE (the policy takes no part); an error → OUTCOME_ERROR.
 *  2. `condition`: false → OUTCOME_DENY_IMPLICIT (the policy does not apply); error → ERROR.
 *  3. `consensus` against the approvers so far (absent = met): error → ERROR.
 *     ALLOW policy: met → OUTCOME_ALLOW, unmet → OUTCOME_REQUIRES_CONSENSUS.
 *     DENY policy:  met → OUTCOME_DENY_EXPLICIT, unmet → OUTCOME_DENY_IMPLICIT (a DENY applies
 *     only to the approvers its consensus names, as the docs' "deny deletes for users with a
 *     tag" example needs).
 *  4. For a REJECT vote (`context.rejected`), ALLOW and REQUIRES_CONSENSUS become REJECTED.
 * Then {@link decide}: deny wins, then rejection, then allow, then consensus, else implicit deny.
 */

import type { Effect } from '@keyhold/protocol';
import { LRUCache } from 'lru-cache';
import { checkExpression } from './checker.js';
import { type CompiledPredicate, compileExpression } from './compile.js';
import type { EvaluationContext } from './context.js';
import { COST_BUDGET, DECISION_BUDGET } from './cost.js';
import {
  type DecisionKind,
  decide,
  type ErrorClassForDecision,
  type PolicyOutcome,
  verdictOf,
} from './decision.js';
import type { Env } from './env.js';
import { parseExpression } from './parser.js';
import { PathFault, PathRegistry, type PathSpec, readPath } from './paths.js';
import { fieldText, POLICY_FIELDS, type PolicyInput, presentText } from './policy.js';
import { PolicyError, type PolicyField } from './policy-error.js';
import { type ErrorClass, FAULT, type Fault } from './runtime.js';
import { assertSchema, type KeywordSchema, TURNKEY_SCHEMA } from './schema.js';
import { msToNs } from './timestamp.js';

export interface CompileOptions {
  /** The keywords (default: Turnkey's, wire-compat §5). */
  readonly schema?: KeywordSchema;
  /** Count every erroring DENY policy as a deny, even when the error is only missing data.
   *  Default false: missing data makes a DENY policy not apply (see the README). */
  readonly strictDenyErrors?: boolean;
}

/** One compiled expression, shared by every set (and policy) with the same text. */
interface CompiledField {
  readonly predicate: CompiledPredicate;
  readonly slots: number;
  readonly paths: readonly PathSpec[];
}

export interface CompiledPolicy {
  readonly policyId: string;
  readonly effect: Effect;
  /** Set when the policy could not be compiled: it evaluates to OUTCOME_ERROR (fail closed). */
  readonly compileError?: Error;
}

export interface CompiledPolicySet {
  readonly policies: readonly CompiledPolicy[];
  readonly strictDenyErrors: boolean;
  /** Policies that failed to compile (they evaluate to OUTCOME_ERROR). */
  readonly compileErrors: readonly { readonly policyId: string; readonly error: Error }[];
  /** Internal: what evaluation needs. */
  readonly plan: EvaluationPlan;
}

export interface PolicyEvaluation {
  readonly policyId: string;
  readonly outcome: PolicyOutcome;
}

export interface PolicyEvaluationError {
  readonly policyId: string;
  readonly field: PolicyField | 'policy';
  /** `missing` data, `type` mismatch (or internal fault), an `invalid` policy text, or the
   *  evaluation stopped by its step `budget`. */
  readonly errorClass: ErrorClassForDecision;
  readonly message: string;
  /** Whether this error made the policy count as a deny (fail closed). */
  readonly countedAsDeny: boolean;
  /** The keyword path the error was about (`bitcoin.tx`, `wallet.id`), when it was about one. */
  readonly keyword?: string;
}

export interface PolicyDecision {
  readonly decision: DecisionKind;
  readonly decidingPolicyIds: string[];
  /** One per input policy, in input order. (Entries are shared, frozen objects.) */
  readonly outcomes: PolicyEvaluation[];
  /** Why each OUTCOME_ERROR happened (diagnostics; not part of the wire). */
  readonly errors: PolicyEvaluationError[];
}

type Predicate = (env: Env) => boolean | Fault;

/** The parts of a compiled set only `evaluate` uses. */
interface EvaluationPlan {
  /** Per policy, its compiled fields (undefined: absent). A text shared by several policies is
   *  wrapped to run once per evaluation. */
  readonly time: readonly (Predicate | undefined)[];
  readonly condition: readonly (Predicate | undefined)[];
  readonly consensus: readonly (Predicate | undefined)[];
  readonly slots: number;
  readonly usesTime: boolean;
  /** The keyword paths the set reads, once per evaluation, into reused buffers. */
  readonly paths: readonly PathSpec[];
  readonly pathBuffer: unknown[];
  readonly pathFaultBuffer: (PathFault | undefined)[];
  /** Whether the policy ids are distinct (then deciding ids need no de-duplication). */
  readonly distinctIds: boolean;
  /** The exact content the set was compiled from, to verify cache hits. */
  readonly content: readonly (string | undefined)[];
  /** Frozen outcome records: `records[policy * OUTCOMES.length + outcome code]`. */
  readonly records: readonly PolicyEvaluation[];
  /** The last error record of each policy, reused while the error stays the same. */
  readonly lastErrors: (PolicyEvaluationError | undefined)[];
  /** Results of shared predicates in the current evaluation. */
  readonly memo: Memo;
}

/** The outcomes in a fixed order, so a record can be found by number. */
const OUTCOMES: readonly PolicyOutcome[] = [
  'OUTCOME_ALLOW',
  'OUTCOME_DENY_EXPLICIT',
  'OUTCOME_DENY_IMPLICIT',
  'OUTCOME_REQUIRES_CONSENSUS',
  'OUTCOME_REJECTED',
  'OUTCOME_ERROR',
  'OUTCOME_TIME_INACTIVE',
];
const ALLOW = 0;
const DENY_EXPLICIT = 1;
const DENY_IMPLICIT = 2;
const REQUIRES_CONSENSUS = 3;
const REJECTED = 4;
const ERROR = 5;
const TIME_INACTIVE = 6;

const EXPRESSION_CACHE_SIZE = 8192;
const SET_CACHE_SIZE = 1024;

/**
 * Compiled expressions and policy sets, bounded: a tenant writing ever new policies evicts the
 * least recently used entries (lru-cache), never grows the process.
 */
interface Caches {
  readonly expressions: LRUCache<string, CompiledField | PolicyError>;
  /** By a cheap fingerprint; candidates are verified against their exact content. */
  readonly sets: LRUCache<string, CompiledPolicySet[]>;
  readonly registry: PathRegistry;
}

const cachesBySchema = new WeakMap<KeywordSchema, Caches>();

function cachesFor(schema: KeywordSchema): Caches {
  let caches = cachesBySchema.get(schema);
  if (!caches) {
    assertSchema(schema);
    caches = {
      expressions: new LRUCache({ max: EXPRESSION_CACHE_SIZE }),
      sets: new LRUCache({ max: SET_CACHE_SIZE }),
      registry: new PathRegistry(),
    };
    cachesBySchema.set(schema, caches);
  }
  return caches;
}

function compileField(
  caches: Caches,
  schema: KeywordSchema,
  field: PolicyField,
  text: string,
): CompiledField | PolicyError {
  const key = `${field}\u0000${text}`;
  const hit = caches.expressions.get(key);
  if (hit) return hit;
  let result: CompiledField | PolicyError;
  try {
    const checked = checkExpression(parseExpression(text, field), field, text, schema);
    const scope = { field, registry: caches.registry, used: new Set<PathSpec>() };
    const predicate = compileExpression(checked, scope);
    result = { predicate, slots: checked.slots, paths: [...scope.used] };
  } catch (e) {
    if (!(e instanceof PolicyError)) throw e;
    result = e;
  }
  caches.expressions.set(key, result);
  return result;
}

/** The content of a policy set: id, effect and the three texts per policy (blank = absent),
 *  and a cheap fingerprint of it (equal content ⇒ equal fingerprint, not the converse). */
function contentOf(
  policies: readonly PolicyInput[],
  strict: boolean,
): { content: (string | undefined)[]; fingerprint: string } {
  const content = new Array<string | undefined>(policies.length * 5);
  let total = 0;
  let i = 0;
  for (const p of policies) {
    const condition = presentText(p.condition);
    const consensus = presentText(p.consensus);
    const time = presentText(p.time);
    content[i++] = p.policyId;
    content[i++] = p.effect;
    content[i++] = condition;
    content[i++] = consensus;
    content[i++] = time;
    total += (condition?.length ?? -1) + (consensus?.length ?? -1) * 3 + (time?.length ?? -1) * 5;
  }
  const first = policies[0]?.policyId ?? '';
  const last = policies[policies.length - 1]?.policyId ?? '';
  return {
    content,
    fingerprint: `${strict ? 's' : 'd'}${policies.length}:${total}:${first}:${last}`,
  };
}

function sameContent(
  a: readonly (string | undefined)[],
  b: readonly (string | undefined)[],
): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Compile a policy set into closures, once: the result is cached by the set's exact content
 * (looked up by a cheap fingerprint, then verified field by field, so two different sets never
 * share an entry), and each expression by its text, so re-compiling after one policy changes
 * reuses the rest. Never throws for a bad policy: that policy evaluates to OUTCOME_ERROR.
 */
export function compilePolicySet(
  policies: readonly PolicyInput[],
  options: CompileOptions = {},
): CompiledPolicySet {
  const schema = options.schema ?? TURNKEY_SCHEMA;
  const strictDenyErrors = options.strictDenyErrors ?? false;
  const caches = cachesFor(schema);
  const { content, fingerprint: key } = contentOf(policies, strictDenyErrors);
  const candidates = caches.sets.get(key);
  if (candidates) {
    for (const set of candidates) if (sameContent(set.plan.content, content)) return set;
  }

  let slots = 0;
  const paths = new Set<PathSpec>();
  const compileErrors: { policyId: string; error: Error }[] = [];
  // How many fields use each compiled predicate: those used more than once are memoized.
  const uses = new Map<CompiledPredicate, number>();
  const fields: Record<PolicyField, (CompiledPredicate | undefined)[]> = {
    time: [],
    condition: [],
    consensus: [],
  };
  const compiled = policies.map((p, i): CompiledPolicy => {
    const broken = (error: Error): CompiledPolicy => {
      compileErrors.push({ policyId: p.policyId, error });
      for (const field of POLICY_FIELDS) fields[field][i] = undefined;
      return { policyId: p.policyId, effect: p.effect, compileError: error };
    };
    if (p.effect !== 'EFFECT_ALLOW' && p.effect !== 'EFFECT_DENY') {
      return broken(
        new TypeError(`policy ${p.policyId} has an unknown effect '${String(p.effect)}'`),
      );
    }
    const results: CompiledField[] = [];
    for (const field of POLICY_FIELDS) {
      const text = fieldText(p, field);
      fields[field][i] = undefined;
      if (text === undefined) continue;
      const result = compileField(caches, schema, field, text);
      if (result instanceof PolicyError) return broken(result);
      fields[field][i] = result.predicate;
      results.push(result);
    }
    for (const r of results) {
      slots = Math.max(slots, r.slots);
      for (const path of r.paths) paths.add(path);
      uses.set(r.predicate, (uses.get(r.predicate) ?? 0) + 1);
    }
    return { policyId: p.policyId, effect: p.effect };
  });
  const memo = newMemo(uses.size);
  const wrapped = new Map<CompiledPredicate, Predicate>();
  const prepare = (f: CompiledPredicate | undefined): Predicate | undefined => {
    if (f === undefined || (uses.get(f) ?? 0) < 2) return f;
    let w = wrapped.get(f);
    if (!w) {
      w = memoize(f, wrapped.size, memo);
      wrapped.set(f, w);
    }
    return w;
  };
  const size = caches.registry.specs.length;
  const records: PolicyEvaluation[] = [];
  for (const p of compiled) {
    for (const outcome of OUTCOMES) records.push(Object.freeze({ policyId: p.policyId, outcome }));
  }
  const set: CompiledPolicySet = {
    policies: compiled,
    strictDenyErrors,
    compileErrors,
    plan: {
      time: fields.time.map(prepare),
      condition: fields.condition.map(prepare),
      consensus: fields.consensus.map(prepare),
      slots,
      usesTime: fields.time.some((f) => f !== undefined),
      paths: [...paths],
      pathBuffer: new Array(size),
      pathFaultBuffer: new Array(size),
      distinctIds: new Set(policies.map((p) => p.policyId)).size === policies.length,
      content,
      records,
      lastErrors: new Array(compiled.length),
      memo,
    },
  };
  caches.sets.set(key, [...(candidates ?? []), set]);
  return set;
}

function envFor(
  roots: Readonly<Record<string, unknown>>,
  paths: unknown[],
  pathFaults: (PathFault | undefined)[],
  vars: unknown[],
  nowMs: number,
): Env {
  return {
    roots,
    paths,
    pathFaults,
    vars,
    nowMs,
    fault: undefined,
    faultMessage: '',
    faultKeyword: undefined,
    steps: 0,
    budget: COST_BUDGET,
  };
}

/** Results of the shared predicates in the current evaluation (`epoch` says which is current). */
interface Memo {
  epoch: number;
  readonly epochs: number[];
  readonly value: boolean[];
  readonly fault: (ErrorClass | undefined)[];
  readonly message: string[];
  readonly keyword: (string | undefined)[];
}

function newMemo(n: number): Memo {
  return {
    epoch: 0,
    epochs: new Array(n).fill(-1),
    value: new Array(n).fill(false),
    fault: new Array(n).fill(undefined),
    message: new Array(n).fill(''),
    keyword: new Array(n).fill(undefined),
  };
}

/** Run `f` at most once per evaluation; later calls replay its result (and its error). */
function memoize(f: CompiledPredicate, k: number, memo: Memo): Predicate {
  return (env) => {
    if (memo.epochs[k] === memo.epoch) {
      const fault = memo.fault[k];
      if (fault === undefined) return memo.value[k] as boolean;
      env.fault = fault;
      env.faultMessage = memo.message[k] as string;
      env.faultKeyword = memo.keyword[k];
      return FAULT;
    }
    const r = f(env);
    memo.epochs[k] = memo.epoch;
    if (r === FAULT) {
      memo.fault[k] = env.fault ?? 'type';
      memo.message[k] = env.faultMessage;
      memo.keyword[k] = env.faultKeyword;
    } else {
      memo.fault[k] = undefined;
      memo.value[k] = r;
    }
    return r;
  };
}

function errorRecord(
  plan: EvaluationPlan,
  i: number,
  policyId: string,
  field: PolicyField | 'policy',
  errorClass: ErrorClassForDecision,
  message: string,
  countedAsDeny: boolean,
  keyword?: string,
): PolicyEvaluationError {
  const last = plan.lastErrors[i];
  if (
    last &&
    last.field === field &&
    last.errorClass === errorClass &&
    last.message === message &&
    last.countedAsDeny === countedAsDeny &&
    last.keyword === keyword
  ) {
    return last;
  }
  const r: PolicyEvaluationError = Object.freeze(
    keyword === undefined
      ? { policyId, field, errorClass, message, countedAsDeny }
      : { policyId, field, errorClass, message, countedAsDeny, keyword },
  );
  plan.lastErrors[i] = r;
  return r;
}

let evaluating = false;

/**
 * Evaluate a compiled set against one request (or one vote). Pure; never throws for bad data
 * (an error in a policy becomes its OUTCOME_ERROR); throws RangeError only for an invalid `now`.
 */
export function evaluate(set: CompiledPolicySet, context: EvaluationContext): PolicyDecision {
  const nowMs = context.now instanceof Date ? context.now.getTime() : context.now;
  if (typeof nowMs !== 'number' || !Number.isFinite(nowMs)) {
    throw new RangeError('context.now must be a valid Date or epoch milliseconds');
  }
  const plan = set.plan;
  const timeRoots = plan.usesTime ? { time: { now: msToNs(nowMs) } } : {};
  // Read every keyword path the set uses, once, into the set's buffers. (A context getter that
  // re-enters evaluate gets buffers of its own.)
  const reentered = evaluating;
  const paths = reentered ? new Array<unknown>(plan.pathBuffer.length) : plan.pathBuffer;
  const pathFaults = reentered
    ? new Array<PathFault | undefined>(paths.length)
    : plan.pathFaultBuffer;
  evaluating = true;
  try {
    for (const spec of plan.paths) {
      const roots =
        spec.scope === 'condition'
          ? context.condition
          : spec.scope === 'consensus'
            ? context.consensus
            : timeRoots;
      const v = readPath(spec, roots);
      if (v instanceof PathFault) {
        paths[spec.index] = undefined;
        pathFaults[spec.index] = v;
      } else {
        paths[spec.index] = v;
        pathFaults[spec.index] = undefined;
      }
    }
    const vars = new Array<unknown>(plan.slots);
    // A new epoch invalidates the shared results of the previous evaluation. A re-entered
    // evaluation must not disturb them: it runs without the shortcut (see decideSet).
    plan.memo.epoch++;
    return decideSet(set, context, reentered, {
      condition: envFor(context.condition, paths, pathFaults, vars, nowMs),
      consensus: envFor(context.consensus, paths, pathFaults, vars, nowMs),
      time: envFor(timeRoots, paths, pathFaults, vars, nowMs),
    });
  } finally {
    evaluating = reentered;
    // Results memoized by a re-entered evaluation belong to its context, not ours.
    if (reentered) plan.memo.epoch++;
  }
}

function decideSet(
  set: CompiledPolicySet,
  context: EvaluationContext,
  reentered: boolean,
  envs: Readonly<Record<PolicyField, Env>>,
): PolicyDecision {
  const plan = set.plan;
  try {
    return decidePolicies(set, context, envs, reentered ? () => plan.memo.epoch++ : undefined);
  } catch (thrown) {
    // Compiled code does not throw; if it ever does, decide again with every field guarded, and
    // the failing one counts as a type error (fail closed).
    plan.memo.epoch++;
    return decidePolicies(set, context, envs, undefined, thrown);
  }
}

/** Run one compiled field with a clean error slot and a fresh step budget of `budget`. */
function run(
  f: Predicate,
  env: Env,
  budget: number,
  bump: (() => void) | undefined,
  guarded: unknown,
): boolean | Fault {
  env.fault = undefined;
  env.faultKeyword = undefined;
  env.steps = 0;
  env.budget = budget;
  if (bump !== undefined) bump();
  if (guarded === undefined) return f(env);
  try {
    return f(env);
  } catch (thrown) {
    env.fault = 'type';
    env.faultMessage = `internal error: ${thrown instanceof Error ? thrown.message : String(thrown)}`;
    return FAULT;
  }
}

/**
 * The per-policy loop. `bump` (for a re-entered evaluation) invalidates memoized results before
 * every call; `guarded` runs each field inside its own try/catch.
 */
function decidePolicies(
  set: CompiledPolicySet,
  context: EvaluationContext,
  envs: Readonly<Record<PolicyField, Env>>,
  bump: (() => void) | undefined,
  guarded?: unknown,
): PolicyDecision {
  const plan = set.plan;
  const rejected = context.rejected === true;
  const strict = set.strictDenyErrors;
  const policies = set.policies;

  const outcomes: PolicyEvaluation[] = new Array(policies.length);
  const errors: PolicyEvaluationError[] = [];
  const deny: string[] = [];
  const rejectedIds: string[] = [];
  const allow: string[] = [];
  const consensus: string[] = [];
  const exempt = context.ownCostExempt;
  // What the whole decision may still spend; an exempt policy spends from a budget of its own.
  let pool = DECISION_BUDGET;

  for (let i = 0; i < policies.length; i++) {
    const p = policies[i] as CompiledPolicy;
    let code: number;
    if (p.compileError) {
      code = ERROR;
      const field = p.compileError instanceof PolicyError ? p.compileError.kind : 'policy';
      // An invalid DENY denies; an invalid ALLOW grants nothing.
      const denies = verdictOf(p.effect, 'OUTCOME_ERROR', 'invalid', strict) === 'deny';
      if (denies) deny.push(p.policyId);
      errors.push(
        errorRecord(plan, i, p.policyId, field, 'invalid', p.compileError.message, denies),
      );
    } else {
      const isExempt = exempt !== undefined && exempt.has(p.policyId);
      let policyPool = isExempt ? COST_BUDGET * 3 : pool;
      const runField = (f: Predicate, env: Env): boolean | Fault => {
        const r = run(f, env, Math.min(COST_BUDGET, policyPool), bump, guarded);
        policyPool -= Math.min(env.steps, env.budget);
        return r;
      };
      let failed: Env | undefined;
      let field: PolicyField = 'time';
      const timeFn = plan.time[i];
      const time = timeFn === undefined ? true : runField(timeFn, envs.time);
      if (time === FAULT) {
        failed = envs.time;
        code = ERROR;
      } else if (!time) {
        code = TIME_INACTIVE;
      } else {
        field = 'condition';
        const conditionFn = plan.condition[i];
        const condition = conditionFn === undefined ? true : runField(conditionFn, envs.condition);
        if (condition === FAULT) {
          failed = envs.condition;
          code = ERROR;
        } else if (!condition) {
          code = DENY_IMPLICIT;
        } else {
          field = 'consensus';
          const consensusFn = plan.consensus[i];
          const met = consensusFn === undefined ? true : runField(consensusFn, envs.consensus);
          if (met === FAULT) {
            failed = envs.consensus;
            code = ERROR;
          } else if (p.effect === 'EFFECT_DENY') {
            code = met ? DENY_EXPLICIT : DENY_IMPLICIT;
          } else if (rejected) {
            code = REJECTED;
          } else {
            code = met ? ALLOW : REQUIRES_CONSENSUS;
          }
        }
      }
      switch (code) {
        case ALLOW:
          allow.push(p.policyId);
          break;
        case DENY_EXPLICIT:
          deny.push(p.policyId);
          break;
        case REQUIRES_CONSENSUS:
          consensus.push(p.policyId);
          break;
        case REJECTED:
          rejectedIds.push(p.policyId);
          break;
        case ERROR: {
          const env = failed as Env;
          const errorClass: ErrorClass = env.fault ?? 'type';
          // A policy the request removes cannot block it by running out of budget.
          const denies =
            !(isExempt && errorClass === 'budget') &&
            verdictOf(p.effect, 'OUTCOME_ERROR', errorClass, strict) === 'deny';
          if (denies) deny.push(p.policyId);
          errors.push(
            errorRecord(
              plan,
              i,
              p.policyId,
              field,
              errorClass,
              env.faultMessage,
              denies,
              env.faultKeyword,
            ),
          );
          break;
        }
      }
      if (!isExempt) pool = policyPool;
    }
    outcomes[i] = plan.records[i * OUTCOMES.length + code] as PolicyEvaluation;
  }
  const { decision, decidingPolicyIds } = decide(
    deny,
    rejectedIds,
    allow,
    consensus,
    plan.distinctIds,
  );
  return { decision, decidingPolicyIds, outcomes, errors };
}

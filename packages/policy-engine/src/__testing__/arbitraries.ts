/**
 * fast-check generators for the property and differential tests: well-typed expressions over a
 * small keyword schema (as source text, so the parser is exercised too), policies, policy sets,
 * and contexts — including absent data, malformed data and out-of-range indices, so the error
 * paths are generated as often as the happy ones.
 */
import fc from 'fast-check';
import type { PolicyInput } from '../policy.js';
import type { KeywordSchema } from '../schema.js';
import { ANY, BOOL, INT, listOf, mapOf, namespace, STRING, struct, TIMESTAMP } from '../types.js';

const ITEM = struct('Item', { id: STRING, amt: INT, ok: BOOL });
export const TEST_SCHEMA: KeywordSchema = {
  condition: {
    req: struct('Req', {
      s: STRING,
      n: INT,
      b: BOOL,
      tags: listOf(STRING),
      nums: listOf(INT),
      items: listOf(ITEM),
      m: mapOf(INT),
      data: ANY,
    }),
    opt: struct('Opt', { id: STRING }),
    ns: namespace('ns', { tx: struct('Tx', { to: STRING, amount: INT }) }),
  },
  consensus: {
    approvers: listOf(struct('User', { id: STRING, tags: listOf(STRING) })),
  },
  time: { time: namespace('time', { now: TIMESTAMP }) },
};

type Kind = 'bool' | 'int' | 'string' | 'strings' | 'ints' | 'items' | 'item' | 'any';
interface Var {
  readonly name: string;
  readonly kind: Kind;
}

export interface ExprOptions {
  /** Allow `req.data` (type any). Off for the soundness property. */
  readonly dynamic: boolean;
}

const STRINGS = ['a', 'b', 't1', '', 'abc'];
/** Lambda variable names; reusing one shadows the outer binding. */
const VAR_NAMES = ['x', 'y', 'z', 'v'];

function pick<T>(values: readonly T[]): fc.Arbitrary<T> {
  return fc.constantFrom(...values);
}

const memo = new Map<string, fc.Arbitrary<string>>();

/** Source text of a well-typed expression of `kind`, at most `depth` levels deep. */
export function expr(
  kind: Kind,
  depth: number,
  vars: readonly Var[],
  o: ExprOptions,
): fc.Arbitrary<string> {
  const key = `${kind}|${depth}|${o.dynamic}|${vars.map((v) => `${v.name}:${v.kind}`).join(',')}`;
  let arbitrary = memo.get(key);
  if (!arbitrary) {
    arbitrary = build(kind, depth, vars, o);
    memo.set(key, arbitrary);
  }
  return arbitrary;
}

function build(
  kind: Kind,
  depth: number,
  vars: readonly Var[],
  o: ExprOptions,
): fc.Arbitrary<string> {
  const leaves: fc.Arbitrary<string>[] = [];
  const inner: fc.Arbitrary<string>[] = [];
  const d = depth - 1;
  const sub = (k: Kind) => expr(k, d, vars, o);
  const varsOf = (k: Kind) => vars.filter((v) => v.kind === k).map((v) => v.name);
  const lambda = (listKind: Kind, elemKind: Kind, fn: string): fc.Arbitrary<string> =>
    fc
      .constantFrom(...VAR_NAMES)
      .chain((name) =>
        fc
          .tuple(
            sub(listKind),
            expr('bool', d, [...vars.filter((v) => v.name !== name), { name, kind: elemKind }], o),
          )
          .map(([list, body]) => `${list}.${fn}(${name}, ${body})`),
      );
  const ofKind = (k: Kind) => varsOf(k);
  switch (kind) {
    case 'bool':
      leaves.push(pick(['true', 'false', 'req.b']));
      for (const v of ofKind('item')) leaves.push(fc.constant(`${v}.ok`));
      if (d >= 0) {
        inner.push(
          fc
            .tuple(sub('bool'), pick(['&&', '||']), sub('bool'))
            .map(([a, op, b]) => `(${a} ${op} ${b})`),
          sub('bool').map((a) => `!(${a})`),
          fc
            .tuple(sub('int'), pick(['==', '!=', '<', '>', '<=', '>=']), sub('int'))
            .map(([a, op, b]) => `(${a} ${op} ${b})`),
          fc
            .tuple(sub('string'), pick(['==', '!=']), sub('string'))
            .map(([a, op, b]) => `(${a} ${op} ${b})`),
          fc
            .tuple(sub('bool'), pick(['==', '!=']), sub('bool'))
            .map(([a, op, b]) => `(${a} ${op} ${b})`),
          fc.tuple(sub('string'), sub('strings')).map(([a, b]) => `(${a} in ${b})`),
          fc.tuple(sub('int'), sub('ints')).map(([a, b]) => `(${a} in ${b})`),
          fc.tuple(sub('strings'), sub('string')).map(([a, b]) => `${a}.contains(${b})`),
          lambda('strings', 'string', 'all'),
          lambda('ints', 'int', 'any'),
          lambda('items', 'item', 'any'),
          lambda('items', 'item', 'all'),
        );
        if (o.dynamic) {
          inner.push(
            fc
              .tuple(sub('any'), pick(['==', '!=']), sub('string'))
              .map(([a, op, b]) => `(${a} ${op} ${b})`),
            fc
              .tuple(sub('any'), pick(['<', '>=', '==']), sub('int'))
              .map(([a, op, b]) => `(${a} ${op} ${b})`),
            fc.tuple(sub('any'), sub('strings')).map(([a, b]) => `(${a} in ${b})`),
            lambda('any', 'any', 'any'),
            sub('any'),
          );
        }
      }
      break;
    case 'int':
      leaves.push(
        fc.integer({ min: -2, max: 6 }).map(String),
        pick([
          '170141183460469231731687303715884105728',
          '-170141183460469231731687303715884105728',
        ]),
        pick(['req.n', 'ns.tx.amount', "req.m['k']"]),
      );
      for (const v of ofKind('int')) leaves.push(fc.constant(v));
      for (const v of ofKind('item')) leaves.push(fc.constant(`${v}.amt`));
      if (d >= 0) {
        inner.push(
          sub('strings').map((l) => `${l}.count()`),
          sub('items').map((l) => `${l}.count`),
          fc.tuple(sub('ints'), fc.integer({ min: 0, max: 3 })).map(([l, i]) => `${l}[${i}]`),
          fc.tuple(sub('items'), fc.integer({ min: 0, max: 2 })).map(([l, i]) => `${l}[${i}].amt`),
        );
        if (o.dynamic) inner.push(sub('any').map((a) => `${a}.count()`));
      }
      break;
    case 'string':
      leaves.push(
        pick(STRINGS).map((s) => `'${s}'`),
        pick(['req.s', 'opt.id', 'ns.tx.to']),
      );
      for (const v of ofKind('string')) leaves.push(fc.constant(v));
      for (const v of ofKind('item')) leaves.push(fc.constant(`${v}.id`));
      if (d >= 0) {
        inner.push(
          fc.tuple(sub('strings'), fc.integer({ min: 0, max: 3 })).map(([l, i]) => `${l}[${i}]`),
          fc.tuple(sub('string'), fc.integer({ min: 0, max: 3 })).map(([l, i]) => `${l}[${i}]`),
          fc
            .tuple(sub('string'), fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 3 }))
            .map(([l, a, b]) => `${l}[${Math.min(a, b)}..${Math.max(a, b)}]`),
          fc.tuple(sub('items'), fc.integer({ min: 0, max: 2 })).map(([l, i]) => `${l}[${i}].id`),
        );
      }
      break;
    case 'strings':
      leaves.push(pick(['req.tags', "['a', 'b']", "['t1']", '[]']));
      if (d >= 0) {
        inner.push(
          lambda('strings', 'string', 'filter'),
          fc.tuple(sub('string'), sub('string')).map(([a, b]) => `[${a}, ${b}]`),
          fc
            .tuple(sub('strings'), fc.integer({ min: 0, max: 2 }), fc.integer({ min: 0, max: 2 }))
            .map(([l, a, b]) => `${l}[${Math.min(a, b)}..${Math.max(a, b)}]`),
        );
      }
      break;
    case 'ints':
      leaves.push(pick(['req.nums', '[1, 2]', '[0]']));
      if (d >= 0) {
        inner.push(
          lambda('ints', 'int', 'filter'),
          fc.tuple(sub('int'), sub('int')).map(([a, b]) => `[${a}, ${b}]`),
        );
      }
      break;
    case 'items':
      leaves.push(fc.constant('req.items'));
      if (d >= 0) {
        inner.push(
          lambda('items', 'item', 'filter'),
          fc.integer({ min: 0, max: 2 }).map((a) => `req.items[${a}..${a + 1}]`),
        );
      }
      break;
    case 'item':
      leaves.push(fc.integer({ min: 0, max: 2 }).map((i) => `req.items[${i}]`));
      for (const v of ofKind('item')) leaves.push(fc.constant(v));
      break;
    case 'any':
      leaves.push(
        pick(['req.data', "req.data['k']", 'req.data.x', 'req.data[0]', "req.data['count']"]),
      );
      for (const v of ofKind('any')) leaves.push(fc.constant(v));
      if (d >= 0) {
        inner.push(
          fc
            .tuple(
              sub('any'),
              pick([
                "['k']",
                "['a']",
                '[0]',
                '[1]',
                '.x',
                '.k',
                '[0..1]',
                '.toString',
                "['constructor']",
              ]),
            )
            .map(([a, acc]) => `${a}${acc}`),
        );
      }
      break;
  }
  if (inner.length === 0 || depth <= 0) return fc.oneof(...leaves);
  return fc.oneof(
    { arbitrary: fc.oneof(...leaves), weight: 1 },
    { arbitrary: fc.oneof(...inner), weight: 2 },
  );
}

/** Consensus expressions over `approvers`. */
export function consensusExpr(depth: number): fc.Arbitrary<string> {
  const body = fc.oneof(
    pick(['a', 'b', 'c']).map((id) => `u.id == '${id}'`),
    pick(['t1', 't2']).map((t) => `u.tags.contains('${t}')`),
    pick(['t1', 't2']).map((t) => `'${t}' in u.tags`),
  );
  const leaves = fc.oneof(
    body.map((b) => `approvers.any(u, ${b})`),
    body.map((b) => `approvers.all(u, ${b})`),
    fc
      .tuple(body, fc.integer({ min: 0, max: 3 }))
      .map(([b, n]) => `approvers.filter(u, ${b}).count() >= ${n}`),
    fc.integer({ min: 0, max: 3 }).map((n) => `approvers.count() >= ${n}`),
    fc.integer({ min: 0, max: 2 }).map((i) => `approvers[${i}].id == 'a'`),
  );
  if (depth <= 0) return leaves;
  const sub = consensusExpr(depth - 1);
  return fc.oneof(
    leaves,
    fc.tuple(sub, pick(['&&', '||']), sub).map(([a, op, b]) => `(${a} ${op} ${b})`),
    sub.map((a) => `!(${a})`),
  );
}

export const TIME_ZONES = [
  'UTC',
  'America/New_York',
  'Europe/London',
  'Asia/Kolkata',
  'Asia/Kathmandu',
  'Australia/Lord_Howe',
  'Pacific/Chatham',
] as const;

/** Epoch ms in 2025–2027, snapped to seconds half the time. */
export const instant = fc
  .tuple(fc.integer({ min: Date.UTC(2025, 0, 1), max: Date.UTC(2027, 11, 31) }), fc.boolean())
  .map(([ms, snap]) => (snap ? Math.floor(ms / 60_000) * 60_000 : ms));

const cronField = (min: number, max: number): fc.Arbitrary<string> =>
  fc.oneof(
    { arbitrary: fc.constant('*'), weight: 3 },
    fc.integer({ min, max }).map(String),
    fc
      .tuple(fc.integer({ min, max }), fc.integer({ min, max }))
      .map(([a, b]) => `${Math.min(a, b)}-${Math.max(a, b)}`),
    fc
      .uniqueArray(fc.integer({ min, max }), { minLength: 1, maxLength: 3 })
      .map((xs) => xs.join(',')),
  );

export const cron = fc
  .tuple(cronField(0, 59), cronField(0, 23), cronField(1, 31), cronField(1, 12), cronField(0, 6))
  .map((fields) => fields.join(' '));

/** Durations, capped (the reference's brute force walks every minute). */
export function duration(maxMinutes: number): fc.Arbitrary<string> {
  return fc.integer({ min: 1, max: maxMinutes }).map((m) => {
    const d = Math.floor(m / 1440);
    const h = Math.floor((m % 1440) / 60);
    const mm = m % 60;
    return `${d ? `${d}d` : ''}${h ? `${h}h` : ''}${mm ? `${mm}m` : ''}`;
  });
}

function isoOf(ms: number): string {
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}

export function timeExpr(depth: number): fc.Arbitrary<string> {
  const leaves = fc.oneof(
    fc
      .tuple(pick(['<', '>=', '<=', '>', '==', '!=']), instant)
      .map(([op, ms]) => `time.now ${op} Timestamp('${isoOf(ms)}')`),
    fc
      .tuple(cron, duration(360), pick(TIME_ZONES))
      .map(([c, d, z]) => `CronSpan('${c}', '${d}', '${z}')`),
  );
  if (depth <= 0) return leaves;
  const sub = timeExpr(depth - 1);
  return fc.oneof(
    { arbitrary: leaves, weight: 3 },
    fc.tuple(sub, pick(['&&', '||']), sub).map(([a, op, b]) => `(${a} ${op} ${b})`),
    sub.map((a) => `!(${a})`),
  );
}

export function policy(o: ExprOptions, id: fc.Arbitrary<string>): fc.Arbitrary<PolicyInput> {
  return fc.record(
    {
      policyId: id,
      effect: fc.constantFrom('EFFECT_ALLOW' as const, 'EFFECT_DENY' as const),
      condition: fc.oneof(
        { arbitrary: expr('bool', 3, [], o), weight: 4 },
        { arbitrary: fc.constant(undefined), weight: 1 },
      ),
      consensus: fc.oneof(
        { arbitrary: consensusExpr(1), weight: 1 },
        { arbitrary: fc.constant(undefined), weight: 1 },
      ),
      time: fc.oneof(
        { arbitrary: timeExpr(1), weight: 1 },
        { arbitrary: fc.constant(undefined), weight: 4 },
      ),
    },
    { requiredKeys: ['policyId', 'effect'] },
  );
}

/** Policy sets with distinct ids. */
export function policySet(o: ExprOptions, maxLength = 6): fc.Arbitrary<PolicyInput[]> {
  return fc
    .array(policy(o, fc.constant('')), { minLength: 0, maxLength })
    .map((ps) => ps.map((p, i) => ({ ...p, policyId: `p${i}` })));
}

// ---------------------------------------------------------------- contexts

export interface ContextOptions {
  /** Only data that matches the schema (values may still be absent). */
  readonly wellTyped: boolean;
}

/** Maybe absent (undefined or null), maybe malformed, else the value. */
function field<T>(
  value: fc.Arbitrary<T>,
  o: ContextOptions,
  malformed: fc.Arbitrary<unknown>,
): fc.Arbitrary<unknown> {
  const options: fc.WeightedArbitrary<unknown>[] = [
    { arbitrary: value, weight: 12 },
    { arbitrary: fc.constantFrom(undefined, null), weight: 1 },
  ];
  if (!o.wellTyped) options.push({ arbitrary: malformed, weight: 1 });
  return fc.oneof(...options);
}

const int = fc.oneof(fc.integer({ min: -2, max: 6 }), fc.bigInt({ min: -2n, max: 6n }));
const badScalar = fc.constantFrom<unknown>(1.5, 'x', 7, true, [], {});

const json: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    pick(STRINGS),
    fc.integer({ min: -2, max: 6 }),
    fc.boolean(),
    fc.constantFrom(null, 2.5),
    fc.array(tie('v'), { maxLength: 3 }),
    fc.dictionary(pick(['k', 'x', 'a', 'count']), tie('v'), { maxKeys: 3 }),
  ),
})).v;

export function conditionContext(o: ContextOptions): fc.Arbitrary<Record<string, unknown>> {
  const item = fc.record({
    id: field(pick(STRINGS), o, badScalar),
    amt: field(int, o, badScalar),
    ok: field(fc.boolean(), o, badScalar),
  });
  const req = fc.record({
    s: field(pick(STRINGS), o, badScalar),
    n: field(int, o, badScalar),
    b: field(fc.boolean(), o, badScalar),
    tags: field(fc.array(field(pick(STRINGS), o, badScalar), { maxLength: 3 }), o, badScalar),
    nums: field(fc.array(field(int, o, badScalar), { maxLength: 3 }), o, badScalar),
    items: field(fc.array(field(item, o, badScalar), { maxLength: 3 }), o, badScalar),
    m: field(
      fc.dictionary(pick(['k', 'x']), field(int, o, badScalar), { maxKeys: 2 }),
      o,
      badScalar,
    ),
    data: json,
  });
  return fc.record({
    req: field(req, o, badScalar),
    opt: fc.option(fc.record({ id: field(pick(STRINGS), o, badScalar) }), { nil: undefined }),
    ns: fc.option(
      fc.record({
        tx: fc.option(
          fc.record({ to: field(pick(STRINGS), o, badScalar), amount: field(int, o, badScalar) }),
          {
            nil: undefined,
          },
        ),
      }),
      { nil: undefined },
    ),
  });
}

export function consensusContext(o: ContextOptions): fc.Arbitrary<Record<string, unknown>> {
  const user = fc.record({
    id: field(pick(['a', 'b', 'c']), o, badScalar),
    tags: field(fc.subarray(['t1', 't2']), o, badScalar),
  });
  return fc.record({ approvers: fc.array(user, { maxLength: 3 }) });
}

export interface GeneratedContext {
  readonly condition: Record<string, unknown>;
  readonly consensus: Record<string, unknown>;
  readonly now: number;
  readonly rejected: boolean;
}

export function context(o: ContextOptions): fc.Arbitrary<GeneratedContext> {
  return fc.record({
    condition: conditionContext(o),
    consensus: consensusContext(o),
    now: instant,
    rejected: fc.oneof(
      { arbitrary: fc.constant(false), weight: 5 },
      { arbitrary: fc.constant(true), weight: 1 },
    ),
  });
}

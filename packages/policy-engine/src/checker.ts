/**
 * The static checker: resolves keywords against a {@link KeywordSchema}, types every node, and
 * refuses at write time what can never work — unknown keywords and fields, keywords of another
 * field (a consensus that reads `activity`), wrong operand types, a non-bool result, invalid
 * `Timestamp`/`CronSpan` arguments. Dynamic data (type `any`) passes and is checked when used.
 */
import type { Expr } from './ast.js';
import type { Checked, CheckedExpression } from './checked.js';
import { parseCron, parseSpanDuration, zoneClock } from './cron-span.js';
import { PolicyError, type PolicyField } from './policy-error.js';
import { type KeywordSchema, TURNKEY_SCHEMA } from './schema.js';
import { parseTimestamp } from './timestamp.js';
import {
  ANY,
  BOOL,
  INT,
  isScalar,
  listOf,
  STRING,
  sameType,
  TIMESTAMP,
  type Type,
  typeToString,
} from './types.js';

const FIELDS: readonly PolicyField[] = ['condition', 'consensus', 'time'];
const LAMBDAS = new Set(['all', 'any', 'filter']);

/** A reference to a namespace (`eth`, `time` …), legal only as the target of `.member`. */
interface NamespaceRef {
  readonly k: 'ns';
  readonly type: Extract<Type, { t: 'namespace' }>;
  readonly path: readonly string[];
  readonly pos: number;
}

interface Binding {
  readonly name: string;
  readonly type: Type;
  readonly slot: number;
}

function keywordList(schema: KeywordSchema, field: PolicyField): string {
  const names: string[] = [];
  const walk = (name: string, type: Type): void => {
    if (type.t === 'namespace') {
      for (const [m, inner] of Object.entries(type.members)) walk(`${name}.${m}`, inner);
    } else {
      names.push(name);
    }
  };
  for (const [name, type] of Object.entries(schema[field])) walk(name, type);
  return names.join(', ');
}

class Checker {
  private readonly scope: Binding[] = [];
  slots = 0;

  constructor(
    private readonly field: PolicyField,
    private readonly source: string,
    private readonly schema: KeywordSchema,
  ) {}

  private fail(pos: number, detail: string): never {
    throw PolicyError.at(this.field, this.source, pos, detail);
  }

  /** Check a node that must be a value (not a bare namespace). */
  value(e: Expr): Checked {
    const node = this.node(e);
    if (node.k === 'ns') {
      const members = Object.keys(node.type.members)
        .map((m) => `${node.path.join('.')}.${m}`)
        .join(', ');
      this.fail(node.pos, `'${node.path.join('.')}' is not a value; use ${members}`);
    }
    return node;
  }

  private expectBool(e: Expr, what: string): Checked {
    const c = this.value(e);
    if (c.type.t !== 'bool' && c.type.t !== 'any') {
      this.fail(c.pos, `${what} must be a bool, found ${typeToString(c.type)}`);
    }
    return c;
  }

  private expectIndex(e: Expr, what: string): Checked {
    const c = this.value(e);
    if (c.type.t !== 'int' && c.type.t !== 'any') {
      this.fail(c.pos, `${what} must be an int, found ${typeToString(c.type)}`);
    }
    if (c.k === 'const' && typeof c.value === 'bigint' && c.value < 0n) {
      this.fail(c.pos, `${what} must not be negative`);
    }
    return c;
  }

  /** `value in list`: the list's elements and the value must be comparable. */
  private membership(value: Checked, list: Checked, pos: number, fn: string): Checked {
    if (list.type.t !== 'list' && list.type.t !== 'any') {
      this.fail(list.pos, `${fn} needs a list, found ${typeToString(list.type)}`);
    }
    const elem = list.type.t === 'list' ? list.type.of : ANY;
    if (elem.t !== 'any' && !isScalar(elem)) {
      this.fail(
        list.pos,
        `${fn} compares bool, int, string or timestamp values, not ${typeToString(elem)}`,
      );
    }
    const ok =
      value.type.t === 'any'
        ? true
        : elem.t === 'any'
          ? isScalar(value.type)
          : sameType(value.type, elem);
    if (!ok) {
      this.fail(
        value.pos,
        `${fn} cannot look for a ${typeToString(value.type)} in a ${typeToString(list.type)}`,
      );
    }
    return { k: 'in', type: BOOL, pos, left: value, right: list };
  }

  private node(e: Expr): Checked | NamespaceRef {
    switch (e.k) {
      case 'bool':
        return { k: 'const', type: BOOL, pos: e.pos, value: e.value };
      case 'int':
        return { k: 'const', type: INT, pos: e.pos, value: e.value };
      case 'string':
        return { k: 'const', type: STRING, pos: e.pos, value: e.value };
      case 'list': {
        const items = e.items.map((item) => this.value(item));
        let elem: Type | undefined;
        let dynamic = false;
        for (const item of items) {
          if (item.type.t === 'any') {
            dynamic = true;
          } else if (elem === undefined) {
            elem = item.type;
          } else if (!sameType(elem, item.type)) {
            this.fail(
              item.pos,
              `list items must have one type: found ${typeToString(item.type)} after ${typeToString(elem)}`,
            );
          }
        }
        return { k: 'list', type: listOf(dynamic || !elem ? ANY : elem), pos: e.pos, items };
      }
      case 'ident':
        return this.ident(e.name, e.pos);
      case 'field':
        return this.fieldAccess(e);
      case 'index': {
        const target = this.value(e.target);
        const t = target.type;
        switch (t.t) {
          case 'list':
            return {
              k: 'index',
              type: t.of,
              pos: e.pos,
              target,
              index: this.expectIndex(e.index, 'a list index'),
            };
          case 'string':
            return {
              k: 'index',
              type: STRING,
              pos: e.pos,
              target,
              index: this.expectIndex(e.index, 'a string index'),
            };
          case 'map': {
            const key = this.value(e.index);
            if (key.type.t !== 'string' && key.type.t !== 'any') {
              this.fail(key.pos, `a map key must be a string, found ${typeToString(key.type)}`);
            }
            return { k: 'index', type: t.of, pos: e.pos, target, index: key };
          }
          case 'any': {
            const index = this.value(e.index);
            if (index.type.t !== 'int' && index.type.t !== 'string' && index.type.t !== 'any') {
              this.fail(
                index.pos,
                `an index must be an int or a string key, found ${typeToString(index.type)}`,
              );
            }
            if (index.k === 'const' && typeof index.value === 'bigint' && index.value < 0n) {
              this.fail(index.pos, 'an index must not be negative');
            }
            return { k: 'index', type: ANY, pos: e.pos, target, index };
          }
          case 'struct':
            return this.fail(
              e.opPos,
              `${t.name} is a struct: read its fields with '.name', not '[…]'`,
            );
          default:
            return this.fail(e.opPos, `a ${typeToString(t)} cannot be indexed`);
        }
      }
      case 'slice': {
        const target = this.value(e.target);
        const t = target.type;
        if (t.t !== 'list' && t.t !== 'string' && t.t !== 'any') {
          this.fail(e.opPos, `only lists and strings can be sliced, not a ${typeToString(t)}`);
        }
        const start = this.expectIndex(e.start, 'a slice start');
        const end = this.expectIndex(e.end, 'a slice end');
        if (
          start.k === 'const' &&
          end.k === 'const' &&
          (start.value as bigint) > (end.value as bigint)
        ) {
          this.fail(e.opPos, `slice [${start.value}..${end.value}] ends before it starts`);
        }
        return { k: 'slice', type: t, pos: e.pos, target, start, end };
      }
      case 'method':
        return this.method(e);
      case 'call':
        return this.call(e);
      case 'not':
        return {
          k: 'not',
          type: BOOL,
          pos: e.pos,
          operand: this.expectBool(e.operand, "the operand of '!'"),
        };
      case 'logical': {
        const k = e.op === '&&' ? 'and' : 'or';
        const operands: Checked[] = [];
        for (const operand of e.operands) {
          const c = this.expectBool(operand, `each side of '${e.op}'`);
          // `(a && b) && c` is one chain: flatten, so the compiler sees one n-ary node.
          if (c.k === k) for (const inner of c.operands) operands.push(inner);
          else operands.push(c);
        }
        return { k, type: BOOL, pos: e.pos, operands };
      }
      case 'compare': {
        const left = this.value(e.left);
        const right = this.value(e.right);
        const a = left.type;
        const b = right.type;
        if (e.op === '==' || e.op === '!=') {
          const ok =
            (isScalar(a) && (sameType(a, b) || b.t === 'any')) ||
            (a.t === 'any' && (isScalar(b) || b.t === 'any'));
          if (!ok) {
            this.fail(
              e.opPos,
              `'${e.op}' compares two bools, ints, strings or timestamps of the same type, not ${typeToString(a)} and ${typeToString(b)}`,
            );
          }
        } else {
          const ordered = (t: Type) => t.t === 'int' || t.t === 'timestamp';
          const ok =
            (ordered(a) && (sameType(a, b) || b.t === 'any')) ||
            (a.t === 'any' && (b.t === 'int' || b.t === 'any'));
          if (!ok) {
            this.fail(
              e.opPos,
              `'${e.op}' compares two ints or two timestamps, not ${typeToString(a)} and ${typeToString(b)}`,
            );
          }
          if (a.t === 'timestamp' || b.t === 'timestamp') {
            if (!sameType(a, b))
              this.fail(
                e.opPos,
                `'${e.op}' cannot compare a timestamp with ${typeToString(a.t === 'timestamp' ? b : a)}`,
              );
          }
        }
        return { k: 'cmp', type: BOOL, pos: e.pos, op: e.op, left, right };
      }
      case 'in':
        return this.membership(this.value(e.left), this.value(e.right), e.pos, "'in'");
    }
  }

  private ident(name: string, pos: number): Checked | NamespaceRef {
    for (let i = this.scope.length - 1; i >= 0; i--) {
      const b = this.scope[i] as Binding;
      if (b.name === name) return { k: 'var', type: b.type, pos, slot: b.slot, name };
    }
    const roots = this.schema[this.field];
    const type = Object.hasOwn(roots, name) ? roots[name] : undefined;
    if (type) {
      if (type.t === 'namespace') return { k: 'ns', type, path: [name], pos };
      return { k: 'root', type, pos, path: [name] };
    }
    for (const other of FIELDS) {
      if (other !== this.field && Object.hasOwn(this.schema[other], name)) {
        const allowed = keywordList(this.schema, this.field);
        const shown = other === 'time' ? 'time' : other;
        this.fail(
          pos,
          `'${name}' is a ${shown} keyword; a ${this.field === 'time' ? 'time expression' : this.field} may use only ${allowed || 'no keywords'}`,
        );
      }
    }
    return this.fail(
      pos,
      `unknown keyword '${name}'; a ${this.field === 'time' ? 'time expression' : this.field} may use ${keywordList(this.schema, this.field) || 'no keywords'}`,
    );
  }

  private fieldAccess(e: Extract<Expr, { k: 'field' }>): Checked | NamespaceRef {
    const { name, opPos, pos } = e;
    const target = this.node(e.target);
    if (target.k === 'ns') {
      const path = [...target.path, name];
      const member = Object.hasOwn(target.type.members, name)
        ? target.type.members[name]
        : undefined;
      if (!member) {
        const known = Object.keys(target.type.members)
          .map((m) => `${target.path.join('.')}.${m}`)
          .join(', ');
        this.fail(opPos, `unknown keyword '${path.join('.')}' (known: ${known})`);
      }
      if (member.t === 'namespace') return { k: 'ns', type: member, path, pos: target.pos };
      return { k: 'root', type: member, pos: target.pos, path };
    }
    const t = target.type;
    switch (t.t) {
      case 'struct': {
        const f = Object.hasOwn(t.fields, name) ? t.fields[name] : undefined;
        if (!f) {
          this.fail(
            opPos,
            `${t.name} has no field '${name}' (fields: ${Object.keys(t.fields).join(', ')})`,
          );
        }
        return { k: 'field', type: f, pos, target, name };
      }
      case 'any':
        if (name === 'count') return { k: 'count', type: INT, pos, target };
        return { k: 'field', type: ANY, pos, target, name };
      case 'list':
        if (name === 'count') return { k: 'count', type: INT, pos, target };
        return this.fail(
          opPos,
          `a ${typeToString(t)} has no field '${name}'; did you mean .count()?`,
        );
      case 'map':
        return this.fail(opPos, `read a map with ['${name}'], not .${name}`);
      default:
        return this.fail(opPos, `a ${typeToString(t)} has no field '${name}'`);
    }
  }

  private method(e: Extract<Expr, { k: 'method' }>): Checked {
    const target = this.value(e.target);
    const t = target.type;
    const isList = t.t === 'list' || t.t === 'any';
    if (LAMBDAS.has(e.name)) {
      if (!isList) this.fail(e.opPos, `${e.name}() applies to lists, not to a ${typeToString(t)}`);
      const [variable, predicate] = e.args;
      if (e.args.length !== 2 || !variable || !predicate) {
        this.fail(
          e.opPos,
          `${e.name}() takes a variable name and a predicate: ${e.name}(x, <bool expression>)`,
        );
      }
      if (variable.k !== 'ident') {
        this.fail(variable.pos, `the first argument of ${e.name}() must be a variable name`);
      }
      const elem = t.t === 'list' ? t.of : ANY;
      const slot = this.scope.length;
      this.scope.push({ name: variable.name, type: elem, slot });
      this.slots = Math.max(this.slots, slot + 1);
      const body = this.expectBool(predicate, `the predicate of ${e.name}()`);
      this.scope.pop();
      const k = e.name as 'all' | 'any' | 'filter';
      return {
        k,
        type: k === 'filter' ? (t.t === 'list' ? t : listOf(ANY)) : BOOL,
        pos: e.pos,
        target,
        slot,
        body,
      };
    }
    if (e.name === 'contains') {
      if (!isList) this.fail(e.opPos, `contains() applies to lists, not to a ${typeToString(t)}`);
      const [arg] = e.args;
      if (e.args.length !== 1 || !arg) this.fail(e.opPos, 'contains() takes one value');
      return this.membership(this.value(arg), target, e.pos, 'contains()');
    }
    if (e.name === 'count') {
      if (!isList) this.fail(e.opPos, `count() applies to lists, not to a ${typeToString(t)}`);
      if (e.args.length !== 0) this.fail(e.opPos, 'count() takes no arguments');
      return { k: 'count', type: INT, pos: e.pos, target };
    }
    return this.fail(
      e.opPos,
      `unknown function '${e.name}()'; lists have all, any, filter, contains, count`,
    );
  }

  private stringArg(
    e: Extract<Expr, { k: 'call' }>,
    i: number,
    what: string,
  ): { value: string; pos: number } {
    const arg = e.args[i];
    if (arg?.k !== 'string') {
      this.fail(arg?.pos ?? e.pos, `${e.name}() needs ${what} as a string literal`);
    }
    return { value: arg.value, pos: arg.pos };
  }

  private call(e: Extract<Expr, { k: 'call' }>): Checked {
    if (e.name !== 'Timestamp' && e.name !== 'CronSpan') {
      this.fail(
        e.pos,
        `unknown function '${e.name}()'; the functions are Timestamp() and CronSpan(), in the time field`,
      );
    }
    if (this.field !== 'time') {
      this.fail(e.pos, `${e.name}() may only be used in the time field`);
    }
    if (e.name === 'Timestamp') {
      if (e.args.length !== 1)
        this.fail(
          e.pos,
          "Timestamp() takes one RFC 3339 string, e.g. Timestamp('2026-03-01T00:00:00Z')",
        );
      const text = this.stringArg(e, 0, 'an RFC 3339 time');
      const parsed = parseTimestamp(text.value);
      if ('error' in parsed) this.fail(text.pos, parsed.error);
      return { k: 'const', type: TIMESTAMP, pos: e.pos, value: parsed.ns };
    }
    if (e.args.length !== 3) {
      this.fail(
        e.pos,
        "CronSpan() takes a cron expression, a duration and a time zone, e.g. CronSpan('0 9 * * 1-5', '8h', 'America/New_York')",
      );
    }
    const cron = this.stringArg(e, 0, 'a 5-field cron expression');
    const duration = this.stringArg(e, 1, 'a duration');
    const tz = this.stringArg(e, 2, 'an IANA time zone');
    const schedule = parseCron(cron.value);
    if ('error' in schedule) this.fail(cron.pos, schedule.error);
    const span = parseSpanDuration(duration.value);
    if ('error' in span) this.fail(duration.pos, span.error);
    const clock = zoneClock(tz.value);
    if ('error' in clock) this.fail(tz.pos, clock.error);
    return {
      k: 'cronspan',
      type: BOOL,
      pos: e.pos,
      span: { schedule, durationMs: span.ms, timeZone: tz.value },
    };
  }
}

/**
 * Type-check a parsed expression for a field against a schema (default: the Turnkey keywords).
 * Throws {@link PolicyError} (with the field as `kind`) at the first fault.
 */
export function checkExpression(
  expr: Expr,
  field: PolicyField,
  source: string,
  schema: KeywordSchema = TURNKEY_SCHEMA,
): CheckedExpression {
  const checker = new Checker(field, source, schema);
  const root = checker.value(expr);
  if (root.type.t !== 'bool' && root.type.t !== 'any') {
    throw PolicyError.at(
      field,
      source,
      root.pos,
      `a ${field === 'time' ? 'time expression' : field} must be a bool expression, this one is a ${typeToString(root.type)}`,
    );
  }
  return { root, slots: checker.slots, source };
}

/**
 * The generic SQL repository of one table, built from its spec (@keyhold/store-tables): the
 * statements are generated once, when the store module loads, and every repository method
 * that is the same for every table (get, list, insert, update, delete, lookups by equal
 * fields) runs them. Only the bespoke queries (address lookups, paging, the credential
 * lookup, the outbox) are written out in sql-store.ts.
 *
 * Inserts use `ON CONFLICT DO NOTHING` and, when nothing was inserted, ask which unique key
 * was hit (in the order the memory store checks them). So a conflict never aborts the
 * surrounding database transaction: a caller may catch StoreConflictError and go on, as it
 * can with the memory store. Updates are upserts, like the memory store's `set`.
 * @module
 */
import { StoreConflictError } from '@keyhold/activities';
import {
  type ColumnType,
  keyFields,
  type TableRepository,
  type TableSpec,
  type UniqueConstraint,
  uniqueConstraints,
} from '@keyhold/store-tables';
import type { Row, SqlClient } from './sql-client.js';

/** The value a column holds, as a statement parameter. */
function encode(type: ColumnType, value: unknown): unknown {
  if (value === undefined || value === null) return null;
  return type === 'json' ? JSON.stringify(value) : value;
}

/** The SQL type a parameter of each scalar column type is sent as (JSON as its text). */
const SENT_AS: Record<Exclude<ColumnType, 'text[]'>, string> = {
  text: 'text',
  integer: 'bigint',
  boolean: 'boolean',
  json: 'text',
};

/** A placeholder with its column's type, for a SELECT list (where Postgres cannot infer it). */
function typedPlaceholder(type: ColumnType, n: number): string {
  if (type === 'text[]') return `$${n}::text[]`;
  return `$${n}::${SENT_AS[type]}${type === 'json' ? '::jsonb' : ''}`;
}

/** A placeholder, cast where the driver sends text (JSON) or arrays. */
function placeholder(type: ColumnType, n: number): string {
  if (type === 'json') return `$${n}::text::jsonb`;
  if (type === 'text[]') return `$${n}::text[]`;
  return `$${n}`;
}

/** `a = $1 AND b = $2 …`, numbering from `first`. */
/** The values of some fields of a record, as statement parameters. */
function valuesOf<R>(record: R, fields: readonly (keyof R)[]): unknown[] {
  return fields.map((f) => record[f]);
}

const equalities = (columns: readonly string[], first = 1): string =>
  columns.map((c, i) => `${c} = $${first + i}`).join(' AND ');

/** A lookup by equal fields, run on a transaction's client. */
export type SqlLookup<T> = (db: SqlClient, ...values: string[]) => Promise<T>;

/**
 * One table: its statements, generated from the spec, and the row ↔ record mapping.
 * @example
 * const users = new SqlTable(USERS);
 * await users.insert(client, user); // inside a transaction
 */
export class SqlTable<R> {
  /** The columns an insert writes, in `params` order. */
  readonly columns: string[];
  /** The statement of `get`: the row with this key (`keyFields`). */
  readonly selectByKey: string;
  /** The statement of `get(…, true)`: the same, locked until the transaction ends. */
  readonly selectByKeyForUpdate: string;
  /** `INSERT … ON CONFLICT DO NOTHING RETURNING 1 AS inserted`: a row back when inserted. */
  readonly insertOnce: string;
  /** The column types of `insertOnce`'s parameters, in order. */
  private readonly writtenTypes: readonly ColumnType[];
  private readonly upsert: string;
  /** The upsert of `update`, `RETURNING 1 AS updated`: as a CTE, one row to write more from. */
  readonly upsertReturning: string;
  private readonly deleteByKey: string;
  /** The statement of `list`: the rows of one scope, in listing order ('' without a scope). */
  readonly listByScope: string;
  /** For each constraint checked before an insert reports the last one. */
  private readonly probes: { name: string; sql: string; fields: readonly (keyof R)[] }[];
  private readonly otherwise: string;
  /** For each constraint `update` checks: a row holding it that is not this record. */
  private readonly takenByOther: { name: string; sql: string; fields: readonly (keyof R)[] }[];
  private readonly keys: readonly (keyof R & string)[];

  constructor(readonly spec: TableSpec<R>) {
    const { table } = spec;
    const column = (field: keyof R) => spec.fields.find((f) => f.field === field)!.column;
    const columnsOf = (fields: readonly (keyof R)[]) => fields.map(column);
    const written = [
      ...spec.fields.map((f) => ({ column: f.column, type: f.type })),
      ...(spec.derived ?? []),
    ];
    this.columns = written.map((c) => c.column);
    this.writtenTypes = written.map((c) => c.type);
    const values = written.map((c, i) => placeholder(c.type, i + 1)).join(', ');
    const into = `INSERT INTO ${table} (${this.columns.join(', ')}) VALUES (${values})`;
    this.keys = keyFields(spec);
    this.selectByKey = `SELECT * FROM ${table} WHERE ${equalities(columnsOf(this.keys))}`;
    this.selectByKeyForUpdate = `${this.selectByKey} FOR UPDATE`;
    this.deleteByKey = `DELETE FROM ${table} WHERE ${equalities(columnsOf(this.keys))}`;
    this.insertOnce = `${into} ON CONFLICT DO NOTHING RETURNING 1 AS inserted`;
    const primary = columnsOf(spec.primaryKey.fields);
    const set = this.columns
      .filter((c) => !primary.includes(c))
      .map((c) => `${c} = EXCLUDED.${c}`)
      .join(', ');
    this.upsert = `${into} ON CONFLICT (${primary.join(', ')}) DO UPDATE SET ${set}`;
    this.upsertReturning = `${this.upsert} RETURNING 1 AS updated`;
    this.listByScope =
      spec.scope === undefined
        ? ''
        : `SELECT * FROM ${table} WHERE ${column(spec.scope)} = $1 ORDER BY ${this.order()}`;
    const constraints = uniqueConstraints(spec);
    const probe = (c: UniqueConstraint<R>) => ({
      name: c.name,
      sql: `SELECT 1 FROM ${table} WHERE ${equalities(columnsOf(c.fields))}`,
      fields: c.fields,
    });
    this.probes = constraints.slice(0, -1).map(probe);
    this.otherwise = constraints.at(-1)!.name;
    this.takenByOther = constraints
      .filter((c) => c.checkedOnUpdate)
      .map((c) => {
        const other = spec.primaryKey.fields.filter((f) => !c.fields.includes(f));
        const not = equalities(columnsOf(other), c.fields.length + 1);
        return {
          name: c.name,
          sql: `SELECT 1 FROM ${table} WHERE ${equalities(columnsOf(c.fields))} AND NOT (${not})`,
          fields: [...c.fields, ...other],
        };
      });
  }

  /**
   * `INSERT INTO t (…) SELECT $first… FROM source`: the record inserted once for each row of
   * `source` (a CTE), its parameters numbered from `first` (see `params`).
   * @example
   * evaluations.insertFrom('activity', 30); // INSERT INTO policy_evaluations (…) SELECT $30::text, … FROM activity
   */
  insertFrom(source: string, first: number): string {
    const values = this.writtenTypes.map((t, i) => typedPlaceholder(t, first + i)).join(', ');
    return `INSERT INTO ${this.spec.table} (${this.columns.join(', ')}) SELECT ${values} FROM ${source}`;
  }

  /**
   * Several records as rows, for `unnest(…)`: one array parameter per column from `$first`
   * (see `arraysOf`), and the name of each column there, `prefix` + its name; json columns come
   * as text (`insertFromRows` casts them back).
   * @example
   * activities.unnest(1, 'a_'); // { arrays: ['$1::text[]', …], names: ['a_id', …] }
   */
  unnest(first: number, prefix: string): { arrays: string[]; names: string[] } {
    const arrays = this.writtenTypes.map((t, i) => {
      if (t === 'text[]')
        throw new TypeError(`${this.spec.table}: a text[] column cannot be unnested`);
      return `$${first + i}::${SENT_AS[t]}[]`;
    });
    return { arrays, names: this.columns.map((c) => `${prefix}${c}`) };
  }

  /**
   * `INSERT INTO t (…) SELECT prefix_column, … FROM source`: one record per row of `source`,
   * whose columns `unnest` named.
   */
  insertFromRows(source: string, prefix: string): string {
    const values = this.columns.map((c, i) =>
      this.writtenTypes[i] === 'json' ? `${prefix}${c}::jsonb` : `${prefix}${c}`,
    );
    return `INSERT INTO ${this.spec.table} (${this.columns.join(', ')}) SELECT ${values.join(', ')} FROM ${source}`;
  }

  /**
   * The parameters of several records, one array per column (`params`, transposed): the
   * columns of this table start at `from` in each record's parameter list.
   */
  arraysOf(paramsOfEach: readonly (readonly unknown[])[], from = 0): unknown[][] {
    return this.columns.map((_, i) => paramsOfEach.map((params) => params[from + i] ?? null));
  }

  /** The listing order: createdAt, ties in insertion order. */
  private order(): string {
    const createdAt = this.spec.fields.find((f) => f.field === this.spec.createdAt);
    return createdAt ? `${createdAt.column}, seq` : 'seq';
  }

  /** The record a row holds: fields in spec order, NULL optional fields absent. */
  readonly of = (row: Row): R => {
    const record: Record<string, unknown> = {};
    for (const { field, column, type, optional } of this.spec.fields) {
      const value = row[column];
      if (optional && (value === null || value === undefined)) continue;
      record[field] = type === 'integer' ? Number(value) : value;
    }
    return record as R;
  };

  /** The parameters of the insert and upsert statements, in column order. */
  params(record: R): unknown[] {
    const params = this.spec.fields.map((f) => encode(f.type, record[f.field]));
    for (const d of this.spec.derived ?? []) params.push(encode(d.type, d.value(record)));
    return params;
  }

  /**
   * A lookup of one record by equal fields: the one, when they are a unique constraint's, or
   * else the first inserted of those that match (`ORDER BY seq LIMIT 1`).
   * @example
   * const byName = policies.finder(['organizationId', 'policyName']);
   * await byName(client, organizationId, 'admins');
   */
  finder(fields: readonly (keyof R & string)[]): SqlLookup<R | undefined> {
    const columns = fields.map((f) => this.spec.fields.find((c) => c.field === f)!.column);
    const unique = uniqueConstraints(this.spec).some(
      (c) => c.fields.length === fields.length && c.fields.every((f) => fields.includes(f)),
    );
    const sql = `SELECT * FROM ${this.spec.table} WHERE ${equalities(columns)}${unique ? '' : ' ORDER BY seq LIMIT 1'}`;
    return async (db, ...values) => {
      const [row] = await db.query(sql, values, true);
      return row === undefined ? undefined : this.of(row);
    };
  }

  /**
   * A listing of the records with equal fields, by createdAt then insertion order.
   * @example
   * const byUser = apiKeys.lister(['organizationId', 'userId']);
   * await byUser(client, organizationId, userId);
   */
  lister(fields: readonly (keyof R & string)[]): SqlLookup<R[]> {
    const columns = fields.map((f) => this.spec.fields.find((c) => c.field === f)!.column);
    const sql = `SELECT * FROM ${this.spec.table} WHERE ${equalities(columns)} ORDER BY ${this.order()}`;
    return async (db, ...values) => (await db.query(sql, values, true)).map(this.of);
  }

  /** The one record a statement selects, if any. */
  private async one(
    db: SqlClient,
    sql: string,
    params: readonly unknown[],
  ): Promise<R | undefined> {
    const [row] = await db.query(sql, params, true);
    return row === undefined ? undefined : this.of(row);
  }

  /** The record with this key (`keyFields`), locked until the transaction ends if asked. */
  get(db: SqlClient, key: readonly string[], forUpdate = false): Promise<R | undefined> {
    return this.one(db, forUpdate ? this.selectByKeyForUpdate : this.selectByKey, key);
  }

  /** The records of one scope, by createdAt then insertion order. */
  async list(db: SqlClient, scope: string): Promise<R[]> {
    return (await db.query(this.listByScope, [scope], true)).map(this.of);
  }

  /** Inserts, or reports the unique constraint the record breaks. */
  async insert(db: SqlClient, record: R): Promise<void> {
    const inserted = await db.query(this.insertOnce, this.params(record), true);
    if (inserted.length > 0) return;
    throw await this.conflictOf(db, record);
  }

  /**
   * The conflict of a record `insertOnce` did not insert: the constraint it breaks, found by
   * probing each in turn (the last one is what is left).
   */
  async conflictOf(db: SqlClient, record: R): Promise<StoreConflictError> {
    for (const probe of this.probes) {
      const taken = await db.query(probe.sql, valuesOf(record, probe.fields), true);
      if (taken.length > 0) return new StoreConflictError(probe.name);
    }
    // The only key left, though the row it collided with may be gone by now.
    return new StoreConflictError(this.otherwise);
  }

  /** Upserts, after the constraints checked on update. */
  async update(db: SqlClient, record: R): Promise<void> {
    // A key held by another record is a conflict, reported without aborting the database
    // transaction (as the memory store does).
    for (const check of this.takenByOther) {
      const taken = await db.query(check.sql, valuesOf(record, check.fields), true);
      if (taken.length > 0) throw new StoreConflictError(check.name);
    }
    await db.query(this.upsert, this.params(record), true);
  }

  /** Deletes the record with this key, if any. */
  async delete(db: SqlClient, key: readonly string[]): Promise<void> {
    await db.query(this.deleteByKey, key, true);
  }
}

/**
 * A table's repository inside one transaction: the table's generic methods on the
 * transaction's client. A class, so a transaction makes one small object per table and no
 * closures; the stores' repositories with methods of their own extend it.
 * @example
 * const users = new SqlRepository(new SqlTable(USERS), client);
 * await users.get(organizationId, userId);
 */
export class SqlRepository<R> implements TableRepository<R> {
  constructor(
    protected readonly table: SqlTable<R>,
    protected readonly db: SqlClient,
  ) {}

  get(...key: string[]): Promise<R | undefined> {
    return this.table.get(this.db, key);
  }

  getForUpdate(...key: string[]): Promise<R | undefined> {
    return this.table.get(this.db, key, true);
  }

  list(scope: string): Promise<R[]> {
    return this.table.list(this.db, scope);
  }

  insert(record: R): Promise<void> {
    return this.table.insert(this.db, record);
  }

  update(record: R): Promise<void> {
    return this.table.update(this.db, record);
  }

  delete(...key: string[]): Promise<void> {
    return this.table.delete(this.db, key);
  }
}

/**
 * A declarative spec of one table behind the Store port: which record fields are stored in
 * which columns and how, the primary key and the other unique constraints with the names the
 * port reports in StoreConflictError, the field that scopes it (the organization) and its
 * listing order. Both store adapters build their generic repository from it once (the memory
 * store its maps and indexes, the SQL store its statements), so a table's shape is written in
 * one place; the migrations stay explicit SQL and must agree with it (the Store contract
 * checks that they do).
 * @module
 */

/**
 * How a column holds a value.
 * - `text`: a string.
 * - `integer`: a number (a Postgres `bigint` or `integer`; read back with `Number`).
 * - `boolean`: a boolean.
 * - `json`: any JSON value (a Postgres `jsonb`; written as JSON text).
 * - `text[]`: an array of strings.
 * @example
 * const type: ColumnType = 'json';
 */
export type ColumnType = 'text' | 'integer' | 'boolean' | 'json' | 'text[]';

/**
 * One record field and its column.
 * @example
 * const email: FieldColumn<UserRecord> = { field: 'userEmail', column: 'user_email', type: 'text', optional: true };
 */
export interface FieldColumn<R> {
  readonly field: keyof R & string;
  readonly column: string;
  readonly type: ColumnType;
  /** The field may be absent: absent is stored as NULL, and NULL is read back as absent. */
  readonly optional?: boolean;
}

/**
 * How a field is declared in `fieldColumns`: its column type (`'text?'`: optional), and its
 * column when that is not the field's name in snake_case.
 * @example
 * const condition: ColumnDeclaration = { type: 'text?', column: 'condition_expr' };
 */
export type ColumnDeclaration =
  | ColumnType
  | `${ColumnType}?`
  | { readonly type: ColumnType | `${ColumnType}?`; readonly column: string };

/** `userPhoneNumber` → `user_phone_number`. */
const snakeCase = (name: string): string => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * The field columns of a record, from one declaration per field (every field must be
 * declared, so a field added to the record and not to its table does not compile), in the
 * order given.
 * @example
 * fieldColumns<TagRecord>({
 *   organizationId: 'text', tagId: 'text', tagName: 'text', createdAt: 'integer', updatedAt: 'integer',
 * }); // [{ field: 'organizationId', column: 'organization_id', type: 'text' }, …]
 */
export function fieldColumns<R>(
  declarations: {
    readonly [F in keyof R & string]-?: ColumnDeclaration;
  },
): FieldColumn<R>[] {
  return Object.entries<ColumnDeclaration>(declarations).map(([field, declaration]) => {
    const { type, column } =
      typeof declaration === 'string'
        ? { type: declaration, column: snakeCase(field) }
        : declaration;
    const optional = type.endsWith('?');
    return {
      field: field as keyof R & string,
      column,
      type: (optional ? type.slice(0, -1) : type) as ColumnType,
      ...(optional ? { optional } : {}),
    };
  });
}

/**
 * A column that holds no field of its own but a value computed from the record when it is
 * written (an index key), never read back into the record.
 * @example
 * const key: DerivedColumn<WalletAccountRecord> = {
 *   column: 'address_key', type: 'text', value: (r) => addressKey(r.address),
 * };
 */
export interface DerivedColumn<R> {
  readonly column: string;
  readonly type: ColumnType;
  readonly value: (record: R) => unknown;
}

/**
 * A set of fields no two records of the table share.
 * @example
 * const name: UniqueConstraint<PolicyRecord> = {
 *   name: 'policy_name', sqlName: 'policies_name_key',
 *   fields: ['organizationId', 'policyName'], checkedOnUpdate: true,
 * };
 */
export interface UniqueConstraint<R> {
  /** The name the port reports (`StoreConflictError.constraint`). */
  readonly name: string;
  /** The name the SQL migrations give the constraint. */
  readonly sqlName: string;
  readonly fields: readonly (keyof R & string)[];
  /**
   * `update` refuses a record whose fields are held by another record (a rename onto a taken
   * name), without spoiling the transaction. Otherwise only `insert` checks the constraint.
   */
  readonly checkedOnUpdate?: boolean;
}

/**
 * The spec of one table.
 * @example
 * const spec: TableSpec<TagRecord> = USER_TAGS;
 * spec.primaryKey.name; // 'user_tag_pkey'
 */
export interface TableSpec<R> {
  /** The SQL table. */
  readonly table: string;
  /** Every field of the record, in the order records are built when read. */
  readonly fields: readonly FieldColumn<R>[];
  /** Columns computed from the record when written. */
  readonly derived?: readonly DerivedColumn<R>[];
  /**
   * The field repository calls are scoped by (`get(organizationId, id)`,
   * `list(organizationId)`); absent for organizations themselves.
   */
  readonly scope?: keyof R & string;
  /** Identifies a record; `get` takes the scope, then the other fields of the key. */
  readonly primaryKey: UniqueConstraint<R>;
  /** The other unique constraints, in the order an insert checks them (after the key). */
  readonly unique?: readonly UniqueConstraint<R>[];
  /**
   * The record's creation time. When given, listings are ordered by it, ties in insertion
   * order (the SQL tables' `seq`); the table then has a `seq` column.
   */
  readonly createdAt?: keyof R & string;
}

/**
 * The unique constraints of a table in the order an insert checks them: the key first.
 * @example
 * uniqueConstraints(API_KEYS).map((c) => c.name); // ['api_key_pkey', 'api_key_public_key']
 */
export function uniqueConstraints<R>(spec: TableSpec<R>): readonly UniqueConstraint<R>[] {
  return [spec.primaryKey, ...(spec.unique ?? [])];
}

/**
 * The fields `get` takes, in order: the scope, then the rest of the primary key.
 * @example
 * keyFields(USERS); // ['organizationId', 'userId']
 * keyFields(ACTIVITIES); // ['organizationId', 'id']
 */
export function keyFields<R>(spec: TableSpec<R>): readonly (keyof R & string)[] {
  const rest = spec.primaryKey.fields.filter((f) => f !== spec.scope);
  return spec.scope === undefined ? rest : [spec.scope, ...rest];
}

/**
 * What a table's generic repository does inside one transaction, in either store: the methods
 * every spec gives, whatever keeps the rows.
 * @example
 * const users: TableRepository<UserRecord> = table.over(transaction);
 * await users.get(organizationId, userId);
 */
export interface TableRepository<R> {
  /** The record with this key: the scope, then the rest of the primary key (`keyFields`). */
  get(...key: string[]): Promise<R | undefined>;
  /** Like `get`, and holds the record until the transaction ends. */
  getForUpdate(...key: string[]): Promise<R | undefined>;
  /** The records of one scope (organization), by createdAt then insertion order. */
  list(scope: string): Promise<R[]>;
  /** Refuses a record that breaks a unique constraint (StoreConflictError with its name). */
  insert(record: R): Promise<void>;
  /** An upsert; refuses a record that breaks a constraint `checkedOnUpdate`. */
  update(record: R): Promise<void>;
  /** An absent record is a no-op. */
  delete(...key: string[]): Promise<void>;
}

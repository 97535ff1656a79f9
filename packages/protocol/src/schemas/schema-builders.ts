/**
 * Small builders for the JSON Schemas of intents and queries. Two annotation keywords tie a
 * failing field to its catalogue message: `x-error` (the value is wrong) and `x-missing`
 * (the field is absent). Without them a failure is "bad request body".
 *
 * Each builder also says, in its TypeScript type, what a value that passes the schema looks
 * like: `Schema<T>` is the plain JSON Schema object ajv compiles, branded with `T` at the type
 * level only. `Infer<typeof schema>` is then the type a handler receives, so the schema is the
 * one place an intent's shape is written (no generated code, no hand-written twin).
 * @module
 */
import type { MessageKey } from '../messages.js';

/** A JSON Schema object, or a bag of extra keywords for one (`{ maxLength: 32 }`). */
export type JsonSchema = Record<string, unknown>;

/** Types only: no schema object has this member at run time. */
declare const SCHEMA_TYPE: unique symbol;

/**
 * A JSON Schema whose valid values are of type `T`. At run time it is the JSON Schema object
 * and nothing else; the `T` exists for the compiler. Builders are the only way to make one,
 * so a hand-written schema cannot claim a type it does not check.
 * @example
 * const s: Schema<string[]> = arr(uuid());
 */
export interface Schema<T = unknown> extends JsonSchema {
  readonly [SCHEMA_TYPE]: T;
}

/**
 * The type of the values a schema accepts.
 * @example
 * const user = obj({ userId: uuid(), userName: name() }, ['userId']);
 * type User = Infer<typeof user>; // { userId: string; userName?: string }
 */
export type Infer<S> = S extends { readonly [SCHEMA_TYPE]: infer T } ? T : never;

/** Members of an object schema, by name. */
export type Properties = { readonly [member: string]: Schema };

/** Flattens an intersection so editors show one object type. */
type Simplify<T> = { [K in keyof T]: T[K] } & {};

/**
 * The value of an object schema: the `R` members present, the others optional.
 * @example
 * type P = ObjectOf<{ a: Schema<string>; b: Schema<number> }, 'a'>; // { a: string; b?: number }
 */
export type ObjectOf<P extends Properties, R extends keyof P> = Simplify<
  { -readonly [K in keyof P as K extends R ? K : never]: Infer<P[K]> } & {
    -readonly [K in keyof P as K extends R ? never : K]?: Infer<P[K]>;
  }
>;

/** The one cast: the caller's JSON is what checks `T`. Kept private to this module. */
const typed = <T>(json: JsonSchema): Schema<T> => json as Schema<T>;

export const UUID_PATTERN =
  '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

/**
 * A string of at most 4096 characters unless `extra` says otherwise.
 * @example
 * str({ maxLength: 320 }); // { type: 'string', maxLength: 320 }
 */
export const str = (extra: JsonSchema = {}): Schema<string> =>
  typed({ type: 'string', maxLength: 4096, ...extra });

/**
 * A string with no bound of its own: only where the body's size bounds it and any value is
 * looked up, never stored (a query's `organizationId`).
 * @example
 * unboundedStr(); // { type: 'string' }
 */
export const unboundedStr = (): Schema<string> => typed({ type: 'string' });

/**
 * A string matching `pattern`, no other bound (the pattern bounds it).
 * @example
 * matching('^[0-9]{1,3}$'); // { type: 'string', pattern: '^[0-9]{1,3}$' }
 */
export const matching = (pattern: string): Schema<string> => typed({ type: 'string', pattern });

/**
 * A name: 1 to 256 characters.
 * @example
 * obj({ walletName: name() }, ['walletName']);
 */
export const name = (): Schema<string> => str({ minLength: 1, maxLength: 256 });

/**
 * A UUID in canonical form (any case).
 * @example
 * obj({ userId: uuid() }, ['userId']);
 */
export const uuid = (): Schema<string> => matching(UUID_PATTERN);

/**
 * A JSON boolean.
 * @example
 * obj({ deleteWithoutExport: bool() });
 */
export const bool = (): Schema<boolean> => typed({ type: 'boolean' });

/**
 * A JSON integer.
 * @example
 * int({ minimum: 1 }); // { type: 'integer', minimum: 1 }
 */
export const int = (extra: JsonSchema = {}): Schema<number> => typed({ type: 'integer', ...extra });

/**
 * An int64 carried as a decimal string.
 * @example
 * int64({ pattern: '^[0-9]{1,12}$' });
 */
export const int64 = (extra: JsonSchema = {}): Schema<string> =>
  typed({ type: 'string', pattern: '^[0-9]{1,19}$', ...extra });

/**
 * One of `values` (strings), with the catalogue messages for a wrong and a missing value.
 * @example
 * enumOf(CURVES, 'INVALID_CURVE', 'CURVE_REQUIRED'); // Schema<Curve>
 */
export function enumOf<const V extends string>(
  values: readonly V[],
  error?: MessageKey,
  missing?: MessageKey,
): Schema<V> {
  const s: JsonSchema = { type: 'string', enum: [...values] };
  if (error) s['x-error'] = error;
  if (missing) s['x-missing'] = missing;
  return typed(s);
}

/**
 * One of `values` (integers).
 * @example
 * intEnum(MNEMONIC_LENGTHS); // Schema<12 | 15 | 18 | 21 | 24>
 */
export const intEnum = <const V extends number>(values: readonly V[]): Schema<V> =>
  typed({ type: 'integer', enum: [...values] });

/**
 * An array of at most 100 `items` unless `extra` says otherwise.
 * @example
 * arr(uuid(), { minItems: 1 }); // Schema<string[]>
 */
export const arr = <T>(items: Schema<T>, extra: JsonSchema = {}): Schema<T[]> =>
  typed({ type: 'array', items, maxItems: 100, ...extra });

/**
 * An array that must be empty: credentials Keyhold cannot store yet (authenticators, OAuth
 * providers), whose published shapes are objects.
 * @example
 * obj({ authenticators: emptyArr() }); // { authenticators?: never[] }
 */
export const emptyArr = (): Schema<never[]> =>
  arr(typed<never>({ type: 'object' }), { maxItems: 0 });

/**
 * An object of exactly these members: an unknown one is refused ("unknown field"), so an
 * activity stores and echoes only what its schema says (the published clients send nothing
 * else). `additionalProperties: false` rather than ajv's `removeAdditional`: the raw body is
 * kept as the vote's signed message, so a dropped field would still be stored there.
 * `required` must name members of `properties` (a typo does not compile).
 * @example
 * obj({ walletId: uuid(), walletName: name() }, ['walletId']);
 * // Schema<{ walletId: string; walletName?: string }>
 */
export function obj<const P extends Properties, R extends keyof P & string = never>(
  properties: P,
  required: readonly R[] = [],
): Schema<ObjectOf<P, R>> {
  return typed({ type: 'object', properties, required, additionalProperties: false });
}

/**
 * An object whose unknown members are tolerated: query bodies only, which nothing stores or
 * echoes (a gRPC gateway's default JSON decoding drops unknown fields too). Its type names
 * the known members only: nothing reads the others.
 * @example
 * openObj({ organizationId: unboundedStr() }, ['organizationId']);
 */
export function openObj<const P extends Properties, R extends keyof P & string = never>(
  properties: P,
  required: readonly R[] = [],
): Schema<ObjectOf<P, R>> {
  return typed({ type: 'object', properties, required });
}

/**
 * An object of string values under any keys (a map), at most `maxProperties` of them.
 * @example
 * stringMap(2048, 50); // Schema<Record<string, string>>
 */
export const stringMap = (
  maxLength: number,
  maxProperties: number,
): Schema<Record<string, string>> =>
  typed({ type: 'object', maxProperties, additionalProperties: { type: 'string', maxLength } });

/**
 * With an annotation attached.
 * @example
 * withError(int({ minimum: 1 }), 'INVALID_QUORUM_THRESHOLD', 'INVALID_QUORUM_THRESHOLD');
 */
export const withError = <T>(s: Schema<T>, error: MessageKey, missing?: MessageKey): Schema<T> =>
  typed({
    ...s,
    'x-error': error,
    ...(missing ? { 'x-missing': missing } : {}),
  });

/**
 * Types read off the intent and query schemas: the parameters of each served activity type
 * (`IntentOf`), grouped by kind (`IntentOfKind`, every version of a kind shares a handler),
 * and the body of each query (`QueryOf`). Nothing here exists at run time; the schemas are the
 * single source, so a handler cannot expect a member ajv did not check.
 * @module
 */
import type { INTENT_SCHEMAS } from './intents.js';
import type { QUERY_SCHEMAS } from './queries.js';
import type { Infer } from './schema-builders.js';

/**
 * An activity type Keyhold serves: one with an intent schema.
 * @example
 * const type: ServedActivityType = 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2';
 */
export type ServedActivityType = keyof typeof INTENT_SCHEMAS;

/** `S` without a trailing `_V<digits>`; a `_V` inside a word (`_VERIFY`) stays. */
type WithoutVersion<S extends string> = S extends `${infer Head}_V${infer Rest}`
  ? Rest extends `${bigint}`
    ? Head
    : `${Head}_V${WithoutVersion<Rest>}`
  : S;

/**
 * The kind of an activity type: without `ACTIVITY_TYPE_` and the version suffix, as the
 * catalogue's `kind` (and `submitPathOf`) strip them at run time.
 * @example
 * type K = KindOf<'ACTIVITY_TYPE_CREATE_USERS_V3'>; // 'CREATE_USERS'
 */
export type KindOf<T extends string> = T extends `ACTIVITY_TYPE_${infer Rest}`
  ? WithoutVersion<Rest>
  : never;

/**
 * A kind Keyhold serves (at least one version has an intent schema).
 * @example
 * const kind: ServedKind = 'SIGN_TRANSACTION';
 */
export type ServedKind = KindOf<ServedActivityType>;

/**
 * The kinds that are votes on another activity rather than activities with a handler.
 * @example
 * const vote: VoteKind = 'APPROVE_ACTIVITY';
 */
export type VoteKind = 'APPROVE_ACTIVITY' | 'REJECT_ACTIVITY';

/**
 * The served types of a kind: every version Keyhold accepts at its submit path.
 * @example
 * type T = TypesOfKind<'SIGN_RAW_PAYLOAD'>;
 * // 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD' | 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2'
 */
export type TypesOfKind<K extends ServedKind> = {
  [T in ServedActivityType]: KindOf<T> extends K ? T : never;
}[ServedActivityType];

/**
 * The `parameters` of an activity type once `validateIntent` accepted them.
 * @example
 * type P = IntentOf<'ACTIVITY_TYPE_DELETE_POLICY'>; // { policyId: string }
 */
export type IntentOf<T extends ServedActivityType> = Infer<(typeof INTENT_SCHEMAS)[T]>;

/**
 * The parameters a kind's handler receives: the union of its versions' intents (tell them
 * apart by a member, e.g. `'signWith' in p`, or by `definition.version`).
 * @example
 * type P = IntentOfKind<'SIGN_RAW_PAYLOAD'>;
 * // { privateKeyId: string; payload: string; … } | { signWith: string; payload: string; … }
 */
export type IntentOfKind<K extends ServedKind> = IntentOf<TypesOfKind<K>>;

/**
 * A query Keyhold serves, by path name (`/public/v1/query/<name>`).
 * @example
 * const query: QueryName = 'list_wallets';
 */
export type QueryName = keyof typeof QUERY_SCHEMAS;

/**
 * The body of a query once `validateQuery` accepted it (its unknown members, which the schema
 * tolerates, are not named).
 * @example
 * type B = QueryOf<'get_wallet'>; // { organizationId: string; walletId: string }
 */
export type QueryOf<N extends QueryName> = Infer<(typeof QUERY_SCHEMAS)[N]>;

/**
 * The SQL Store: the Store port over any SqlDriver (a `pg` pool or embedded PGlite), with
 * one set of SQL for both. It behaves like the memory store through the port: the same
 * orderings (createdAt then insertion order; wallet accounts in creation order; activities
 * newest first by id), the same paging cursors, the same constraint names, fresh copies.
 *
 * Inserts use `ON CONFLICT DO NOTHING` and, when nothing was inserted, ask which unique key
 * was hit (in the order the memory store checks them). So a conflict never aborts the
 * surrounding database transaction: a caller may catch StoreConflictError and go on, as it
 * can with the memory store. Racing transactions on Postgres wait for each other on the
 * unique index; the loser sees the winner's row and reports the conflict.
 * Updates are upserts, like the memory store's `set`.
 *
 * The store is also the Outbox of the webhook deliveries its transactions enqueue: each claim
 * or mark is a short transaction of its own; claims lock due rows with `FOR UPDATE SKIP
 * LOCKED` and lease them, so dispatchers on many instances never claim one delivery at once.
 * @module
 */
import {
  type ActivityFilter,
  type ActivityRecord,
  type ApiKeyCredential,
  type ApiKeyRecord,
  addressKey,
  type CredentialRelation,
  type NamedRecordRepository,
  type OrganizationRecord,
  type PageRequest,
  type PolicyEvaluationRecord,
  type PolicyRecord,
  type PrivateKeyRecord,
  type Store,
  StoreConflictError,
  type StoreTransaction,
  type TagRecord,
  type UserRecord,
  type WalletAccountRecord,
  type WalletRecord,
  type WebhookEndpointRecord,
} from '@keyhold/activities';
import type { Outbox, WebhookDelivery } from '@keyhold/webhooks';
import { type MigrationReport, type RunMigrationsOptions, runMigrations } from './migrations.js';
import { pagedSql, planPage } from './paging.js';
import { type Row, type SqlClient, type SqlDriver, translateDatabaseError } from './sql-client.js';

const json = (value: unknown): string => JSON.stringify(value);
const jsonOrNull = (value: unknown): string | null =>
  value === undefined ? null : JSON.stringify(value);
const str = (value: unknown): string => value as string;
const num = (value: unknown): number => Number(value);

/** Adds `key` to `target` only when the column is not NULL (absent optional fields). */
function optional<T extends object, K extends string, V>(
  target: T,
  key: K,
  value: unknown,
  map: (v: unknown) => V,
): T {
  if (value !== null && value !== undefined) (target as Record<string, unknown>)[key] = map(value);
  return target;
}

// ---------------------------------------------------------------------------------------
// Rows → records
// ---------------------------------------------------------------------------------------

function organizationOf(r: Row): OrganizationRecord {
  const record = {
    organizationId: str(r.organization_id),
    name: str(r.name),
  } as OrganizationRecord;
  optional(record, 'parentOrganizationId', r.parent_organization_id, str);
  record.rootQuorum = r.root_quorum as OrganizationRecord['rootQuorum'];
  record.createdAt = num(r.created_at);
  record.updatedAt = num(r.updated_at);
  return record;
}

function userOf(r: Row): UserRecord {
  const record = {
    organizationId: str(r.organization_id),
    userId: str(r.user_id),
    userName: str(r.user_name),
  } as UserRecord;
  optional(record, 'userEmail', r.user_email, str);
  optional(record, 'userPhoneNumber', r.user_phone_number, str);
  record.userTags = r.user_tags as string[];
  record.createdAt = num(r.created_at);
  record.updatedAt = num(r.updated_at);
  return record;
}

function apiKeyOf(r: Row): ApiKeyRecord {
  const record = {
    organizationId: str(r.organization_id),
    userId: str(r.user_id),
    apiKeyId: str(r.api_key_id),
    apiKeyName: str(r.api_key_name),
    publicKey: str(r.public_key),
    curve: r.curve as ApiKeyRecord['curve'],
  } as ApiKeyRecord;
  optional(record, 'expirationSeconds', r.expiration_seconds, str);
  optional(record, 'expiresAt', r.expires_at, num);
  record.createdAt = num(r.created_at);
  record.updatedAt = num(r.updated_at);
  return record;
}

function walletOf(r: Row): WalletRecord {
  return {
    organizationId: str(r.organization_id),
    walletId: str(r.wallet_id),
    walletName: str(r.wallet_name),
    seed: str(r.seed),
    mnemonicLength: num(r.mnemonic_length),
    exported: r.exported as boolean,
    imported: r.imported as boolean,
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
  };
}

function walletAccountOf(r: Row): WalletAccountRecord {
  return {
    organizationId: str(r.organization_id),
    walletId: str(r.wallet_id),
    walletAccountId: str(r.wallet_account_id),
    curve: r.curve as WalletAccountRecord['curve'],
    pathFormat: r.path_format as WalletAccountRecord['pathFormat'],
    path: str(r.path),
    addressFormat: r.address_format as WalletAccountRecord['addressFormat'],
    address: str(r.address),
    publicKey: str(r.public_key),
    key: str(r.key),
    exported: r.exported as boolean,
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
  };
}

function privateKeyOf(r: Row): PrivateKeyRecord {
  return {
    organizationId: str(r.organization_id),
    privateKeyId: str(r.private_key_id),
    privateKeyName: str(r.private_key_name),
    curve: r.curve as PrivateKeyRecord['curve'],
    publicKey: str(r.public_key),
    addresses: r.addresses as PrivateKeyRecord['addresses'],
    privateKeyTags: r.private_key_tags as string[],
    key: str(r.key),
    exported: r.exported as boolean,
    imported: r.imported as boolean,
    disabled: r.disabled as boolean,
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
  };
}

function activityOf(r: Row): ActivityRecord {
  const record = {
    id: str(r.id),
    organizationId: str(r.organization_id),
    type: r.type as ActivityRecord['type'],
    status: r.status as ActivityRecord['status'],
    parameters: r.parameters as ActivityRecord['parameters'],
  } as ActivityRecord;
  optional(record, 'result', r.result, (v) => v as ActivityRecord['result']);
  optional(record, 'failure', r.failure, (v) => v as ActivityRecord['failure']);
  record.votes = r.votes as ActivityRecord['votes'];
  record.fingerprint = str(r.fingerprint);
  record.timestampMs = str(r.timestamp_ms);
  record.createdAt = num(r.created_at);
  record.updatedAt = num(r.updated_at);
  return record;
}

function policyOf(r: Row): PolicyRecord {
  const record = {
    organizationId: str(r.organization_id),
    policyId: str(r.policy_id),
    policyName: str(r.policy_name),
    effect: r.effect as PolicyRecord['effect'],
  } as PolicyRecord;
  optional(record, 'condition', r.condition_expr, str);
  optional(record, 'consensus', r.consensus_expr, str);
  optional(record, 'time', r.time_expr, str);
  record.notes = str(r.notes);
  record.createdAt = num(r.created_at);
  record.updatedAt = num(r.updated_at);
  return record;
}

function tagOf(r: Row): TagRecord {
  return {
    organizationId: str(r.organization_id),
    tagId: str(r.tag_id),
    tagName: str(r.tag_name),
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
  };
}

function policyEvaluationOf(r: Row): PolicyEvaluationRecord {
  const record = {
    id: str(r.id),
    activityId: str(r.activity_id),
    organizationId: str(r.organization_id),
  } as PolicyEvaluationRecord;
  optional(record, 'voteId', r.vote_id, str);
  record.policyEvaluations = r.policy_evaluations as PolicyEvaluationRecord['policyEvaluations'];
  record.createdAt = num(r.created_at);
  return record;
}

function webhookEndpointOf(r: Row): WebhookEndpointRecord {
  const record = {
    organizationId: str(r.organization_id),
    endpointId: str(r.endpoint_id),
    url: str(r.url),
    name: str(r.name),
    isActive: r.is_active as boolean,
  } as WebhookEndpointRecord;
  optional(record, 'disabledReason', r.disabled_reason, str);
  record.subscriptions = r.subscriptions as WebhookEndpointRecord['subscriptions'];
  record.createdAt = num(r.created_at);
  record.updatedAt = num(r.updated_at);
  return record;
}

function webhookDeliveryOf(r: Row): WebhookDelivery {
  return {
    deliveryId: str(r.delivery_id),
    eventId: str(r.event_id),
    organizationId: str(r.organization_id),
    endpointId: str(r.endpoint_id),
    url: str(r.url),
    eventType: str(r.event_type),
    body: str(r.body),
    attempts: num(r.attempts),
    nextAttemptAt: num(r.next_attempt_at),
    createdAt: num(r.created_at),
  };
}

// ---------------------------------------------------------------------------------------
// Records → parameters (one list per table, in column order of the statements below)
// ---------------------------------------------------------------------------------------

const ORGANIZATION_COLUMNS =
  'organization_id, name, parent_organization_id, root_quorum, created_at, updated_at';
const ORGANIZATION_VALUES = '$1, $2, $3, $4::text::jsonb, $5, $6';
const organizationParams = (r: OrganizationRecord) => [
  r.organizationId,
  r.name,
  r.parentOrganizationId ?? null,
  json(r.rootQuorum),
  r.createdAt,
  r.updatedAt,
];

const USER_COLUMNS =
  'organization_id, user_id, user_name, user_email, user_phone_number, user_tags, created_at, updated_at';
const USER_VALUES = '$1, $2, $3, $4, $5, $6::text[], $7, $8';
const userParams = (r: UserRecord) => [
  r.organizationId,
  r.userId,
  r.userName,
  r.userEmail ?? null,
  r.userPhoneNumber ?? null,
  r.userTags,
  r.createdAt,
  r.updatedAt,
];

const API_KEY_COLUMNS =
  'organization_id, api_key_id, user_id, api_key_name, public_key, curve, expiration_seconds, expires_at, created_at, updated_at';
const API_KEY_VALUES = '$1, $2, $3, $4, $5, $6, $7, $8, $9, $10';
const apiKeyParams = (r: ApiKeyRecord) => [
  r.organizationId,
  r.apiKeyId,
  r.userId,
  r.apiKeyName,
  r.publicKey,
  r.curve,
  r.expirationSeconds ?? null,
  r.expiresAt ?? null,
  r.createdAt,
  r.updatedAt,
];

const WALLET_COLUMNS =
  'organization_id, wallet_id, wallet_name, seed, mnemonic_length, exported, imported, created_at, updated_at';
const WALLET_VALUES = '$1, $2, $3, $4, $5, $6, $7, $8, $9';
const walletParams = (r: WalletRecord) => [
  r.organizationId,
  r.walletId,
  r.walletName,
  r.seed,
  r.mnemonicLength,
  r.exported,
  r.imported,
  r.createdAt,
  r.updatedAt,
];

const ACCOUNT_COLUMNS =
  'organization_id, wallet_id, wallet_account_id, curve, path_format, path, address_format, address, address_key, public_key, key, exported, created_at, updated_at';
const ACCOUNT_VALUES = '$1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14';
const accountParams = (r: WalletAccountRecord) => [
  r.organizationId,
  r.walletId,
  r.walletAccountId,
  r.curve,
  r.pathFormat,
  r.path,
  r.addressFormat,
  r.address,
  addressKey(r.address),
  r.publicKey,
  r.key,
  r.exported,
  r.createdAt,
  r.updatedAt,
];

const PRIVATE_KEY_COLUMNS =
  'organization_id, private_key_id, private_key_name, curve, public_key, addresses, address_keys, private_key_tags, key, exported, imported, disabled, created_at, updated_at';
const PRIVATE_KEY_VALUES =
  '$1, $2, $3, $4, $5, $6::text::jsonb, $7::text[], $8::text[], $9, $10, $11, $12, $13, $14';
const privateKeyParams = (r: PrivateKeyRecord) => [
  r.organizationId,
  r.privateKeyId,
  r.privateKeyName,
  r.curve,
  r.publicKey,
  json(r.addresses),
  [...new Set(r.addresses.map((a) => addressKey(a.address)))],
  r.privateKeyTags,
  r.key,
  r.exported,
  r.imported,
  r.disabled,
  r.createdAt,
  r.updatedAt,
];

const ACTIVITY_COLUMNS =
  'id, organization_id, type, status, parameters, result, failure, votes, fingerprint, timestamp_ms, created_at, updated_at';
const ACTIVITY_VALUES =
  '$1, $2, $3, $4, $5::text::jsonb, $6::text::jsonb, $7::text::jsonb, $8::text::jsonb, $9, $10, $11, $12';
const activityParams = (r: ActivityRecord) => [
  r.id,
  r.organizationId,
  r.type,
  r.status,
  json(r.parameters),
  jsonOrNull(r.result),
  jsonOrNull(r.failure),
  json(r.votes),
  r.fingerprint,
  r.timestampMs,
  r.createdAt,
  r.updatedAt,
];

const POLICY_COLUMNS =
  'organization_id, policy_id, policy_name, effect, condition_expr, consensus_expr, time_expr, notes, created_at, updated_at';
const POLICY_VALUES = '$1, $2, $3, $4, $5, $6, $7, $8, $9, $10';
const policyParams = (r: PolicyRecord) => [
  r.organizationId,
  r.policyId,
  r.policyName,
  r.effect,
  r.condition ?? null,
  r.consensus ?? null,
  r.time ?? null,
  r.notes,
  r.createdAt,
  r.updatedAt,
];

const TAG_COLUMNS = 'organization_id, tag_id, tag_name, created_at, updated_at';
const TAG_VALUES = '$1, $2, $3, $4, $5';
const tagParams = (r: TagRecord) => [
  r.organizationId,
  r.tagId,
  r.tagName,
  r.createdAt,
  r.updatedAt,
];

const POLICY_EVALUATION_COLUMNS =
  'id, activity_id, organization_id, vote_id, policy_evaluations, created_at';
const POLICY_EVALUATION_VALUES = '$1, $2, $3, $4, $5::text::jsonb, $6';
const policyEvaluationParams = (r: PolicyEvaluationRecord) => [
  r.id,
  r.activityId,
  r.organizationId,
  r.voteId ?? null,
  json(r.policyEvaluations),
  r.createdAt,
];

// consecutive_failures is the Outbox's alone (never in a record): an update leaves it be.
const WEBHOOK_ENDPOINT_COLUMNS =
  'organization_id, endpoint_id, url, name, is_active, disabled_reason, subscriptions, created_at, updated_at';
const WEBHOOK_ENDPOINT_VALUES = '$1, $2, $3, $4, $5, $6, $7::text::jsonb, $8, $9';
const webhookEndpointParams = (r: WebhookEndpointRecord) => [
  r.organizationId,
  r.endpointId,
  r.url,
  r.name,
  r.isActive,
  r.disabledReason ?? null,
  json(r.subscriptions),
  r.createdAt,
  r.updatedAt,
];

const WEBHOOK_DELIVERY_COLUMNS =
  'delivery_id, event_id, organization_id, endpoint_id, url, event_type, body, status, attempts, next_attempt_at, created_at';
const WEBHOOK_DELIVERY_VALUES = "$1, $2, $3, $4, $5, $6, $7, 'PENDING', $8, $9, $10";
const webhookDeliveryParams = (d: WebhookDelivery) => [
  d.deliveryId,
  d.eventId,
  d.organizationId,
  d.endpointId,
  d.url,
  d.eventType,
  d.body,
  d.attempts,
  d.nextAttemptAt,
  d.createdAt,
];

/** `INSERT … ON CONFLICT (key) DO UPDATE SET` every other column. */
function upsert(table: string, columns: string, values: string, key: string): string {
  const keys = new Set(key.split(',').map((c) => c.trim()));
  const set = columns
    .split(',')
    .map((c) => c.trim())
    .filter((c) => !keys.has(c))
    .map((c) => `${c} = EXCLUDED.${c}`)
    .join(', ');
  return `INSERT INTO ${table} (${columns}) VALUES (${values}) ON CONFLICT (${key}) DO UPDATE SET ${set}`;
}

const insertOnce = (table: string, columns: string, values: string) =>
  `INSERT INTO ${table} (${columns}) VALUES (${values}) ON CONFLICT DO NOTHING RETURNING 1 AS inserted`;

/** A unique key to check after an insert did nothing: its port name and a probe. */
interface UniqueProbe {
  constraint: string;
  /** `SELECT 1 FROM … WHERE …`: a row means this key is taken. */
  sql: string;
  params: unknown[];
}

/**
 * Runs an `insertOnce` statement; when it inserted nothing, finds which unique key the row
 * collided with, probing keys in the memory store's order; `otherwise` names the last key
 * (the only one left, though the row it collided with may be gone by now).
 */
async function insertOrConflict(
  client: SqlClient,
  text: string,
  params: readonly unknown[],
  otherwise: string,
  probes: readonly UniqueProbe[] = [],
): Promise<void> {
  const rows = await client.query(text, params);
  if (rows.length > 0) return;
  for (const probe of probes) {
    if ((await client.query(probe.sql, probe.params)).length > 0) {
      throw new StoreConflictError(probe.constraint);
    }
  }
  throw new StoreConflictError(otherwise);
}

/** A table of records with an id and a name unique per organization (policies, tags). */
interface NamedTableSpec<R> {
  table: string;
  idColumn: string;
  nameColumn: string;
  columns: string;
  values: string;
  params: (r: R) => unknown[];
  of: (r: Row) => R;
  idOf: (r: R) => string;
  nameOf: (r: R) => string;
  constraints: { pkey: string; name: string };
}

function namedRepository<R extends { organizationId: string }>(
  db: SqlClient,
  spec: NamedTableSpec<R>,
): NamedRecordRepository<R> {
  const { table, idColumn, nameColumn } = spec;
  const one = async (text: string, params: unknown[]) => {
    const rows = await db.query(text, params);
    return rows[0] === undefined ? undefined : spec.of(rows[0]);
  };
  return {
    get: (org, id) =>
      one(`SELECT * FROM ${table} WHERE organization_id = $1 AND ${idColumn} = $2`, [org, id]),
    list: async (org) =>
      (
        await db.query(
          `SELECT * FROM ${table} WHERE organization_id = $1 ORDER BY created_at, seq`,
          [org],
        )
      ).map(spec.of),
    findByName: (org, name) =>
      one(`SELECT * FROM ${table} WHERE organization_id = $1 AND ${nameColumn} = $2`, [org, name]),
    async insert(r) {
      await insertOrConflict(
        db,
        insertOnce(table, spec.columns, spec.values),
        spec.params(r),
        spec.constraints.name,
        [
          {
            constraint: spec.constraints.pkey,
            sql: `SELECT 1 FROM ${table} WHERE organization_id = $1 AND ${idColumn} = $2`,
            params: [r.organizationId, spec.idOf(r)],
          },
        ],
      );
    },
    async update(r) {
      // A name held by another record is a conflict, reported without aborting the
      // database transaction (as the memory store does).
      const taken = await db.query(
        `SELECT 1 FROM ${table} WHERE organization_id = $1 AND ${nameColumn} = $2 AND ${idColumn} <> $3`,
        [r.organizationId, spec.nameOf(r), spec.idOf(r)],
      );
      if (taken.length > 0) throw new StoreConflictError(spec.constraints.name);
      await db.query(
        upsert(table, spec.columns, spec.values, `organization_id, ${idColumn}`),
        spec.params(r),
      );
    },
    async delete(org, id) {
      await db.query(`DELETE FROM ${table} WHERE organization_id = $1 AND ${idColumn} = $2`, [
        org,
        id,
      ]);
    },
  };
}

/**
 * Credential lookup, one statement: the API keys with public key $1 in organization $2, in its
 * parent $3, and ($4) in at most two of its sub-organizations, each key once under the first
 * relation that applies, each with its user (NULL when gone). The organization and parent
 * branches use the unique (organization_id, public_key) index; the sub-organization branch
 * starts from `api_keys_public_key_idx` (store version 6), so its cost does not grow with the
 * number of sub-organizations. Rows come back as jsonb: api_keys and users share column names.
 */
const FIND_API_KEY_CREDENTIALS = `
  WITH found AS (
    SELECT 0 AS rank, 'self' AS relation, k.* FROM api_keys k
     WHERE k.public_key = $1 AND k.organization_id = $2
    UNION ALL
    SELECT 1, 'parent', k.* FROM api_keys k
     WHERE k.public_key = $1 AND k.organization_id = $3::text AND $3::text <> $2
    UNION ALL
    (SELECT 1 + row_number() OVER (ORDER BY o.created_at, o.organization_id), 'child', k.*
       FROM api_keys k
       JOIN organizations o ON o.organization_id = k.organization_id
      WHERE $4::boolean AND k.public_key = $1 AND o.parent_organization_id = $2
        AND k.organization_id <> $2 AND k.organization_id IS DISTINCT FROM $3::text
      ORDER BY o.created_at, o.organization_id
      LIMIT 2)
  )
  SELECT f.relation, to_jsonb(f) AS api_key, to_jsonb(u) AS holder
    FROM found f
    LEFT JOIN users u ON u.organization_id = f.organization_id AND u.user_id = f.user_id
   ORDER BY f.rank`;

function transactionOver(db: SqlClient): StoreTransaction {
  const one = async <T>(text: string, params: unknown[], of: (r: Row) => T) => {
    const rows = await db.query(text, params);
    return rows[0] === undefined ? undefined : of(rows[0]);
  };
  const many = async <T>(text: string, params: unknown[], of: (r: Row) => T) =>
    (await db.query(text, params)).map(of);
  const paged = async <T>(
    select: string,
    params: unknown[],
    order: string,
    reverse: string,
    page: PageRequest | undefined,
    of: (r: Row) => T,
  ) => {
    const sql = pagedSql({ select, params, order, reverse }, planPage(page));
    if (!sql) return [];
    const rows = await db.query(sql.text, sql.params);
    if (sql.reversed) rows.reverse();
    return rows.map(of);
  };

  return {
    organizations: {
      get: (id) =>
        one('SELECT * FROM organizations WHERE organization_id = $1', [id], organizationOf),
      async insert(r) {
        await insertOrConflict(
          db,
          insertOnce('organizations', ORGANIZATION_COLUMNS, ORGANIZATION_VALUES),
          organizationParams(r),
          'organization_pkey',
        );
      },
      async update(r) {
        await db.query(
          upsert('organizations', ORGANIZATION_COLUMNS, ORGANIZATION_VALUES, 'organization_id'),
          organizationParams(r),
        );
      },
      findRootByName: (name) =>
        one(
          `SELECT * FROM organizations
            WHERE name = $1 AND (parent_organization_id IS NULL OR parent_organization_id = '')
            ORDER BY created_at, seq LIMIT 1`,
          [name],
          organizationOf,
        ),
      listChildren: (parent) =>
        many(
          `SELECT * FROM organizations WHERE parent_organization_id = $1
            ORDER BY created_at, organization_id`,
          [parent],
          organizationOf,
        ),
      async delete(id) {
        // No foreign keys tie these tables together: every table is cleared by organization.
        // Activities and policy evaluations stay (the audit trail).
        for (const table of [
          'wallet_accounts',
          'wallets',
          'private_keys',
          'api_keys',
          'users',
          'policies',
          'user_tags',
          'private_key_tags',
          'webhook_endpoints',
        ]) {
          await db.query(`DELETE FROM ${table} WHERE organization_id = $1`, [id]);
        }
        await db.query(
          `DELETE FROM webhook_deliveries WHERE organization_id = $1 AND status = 'PENDING'`,
          [id],
        );
        await db.query('DELETE FROM organizations WHERE organization_id = $1', [id]);
      },
    },
    users: {
      get: (org, id) =>
        one('SELECT * FROM users WHERE organization_id = $1 AND user_id = $2', [org, id], userOf),
      getForUpdate: (org, id) =>
        one(
          'SELECT * FROM users WHERE organization_id = $1 AND user_id = $2 FOR UPDATE',
          [org, id],
          userOf,
        ),
      list: (org) =>
        many(
          'SELECT * FROM users WHERE organization_id = $1 ORDER BY created_at, seq',
          [org],
          userOf,
        ),
      async insert(r) {
        await insertOrConflict(
          db,
          insertOnce('users', USER_COLUMNS, USER_VALUES),
          userParams(r),
          'user_pkey',
        );
      },
      async update(r) {
        await db.query(
          upsert('users', USER_COLUMNS, USER_VALUES, 'organization_id, user_id'),
          userParams(r),
        );
      },
      async delete(org, id) {
        await db.query('DELETE FROM users WHERE organization_id = $1 AND user_id = $2', [org, id]);
      },
    },
    apiKeys: {
      get: (org, id) =>
        one(
          'SELECT * FROM api_keys WHERE organization_id = $1 AND api_key_id = $2',
          [org, id],
          apiKeyOf,
        ),
      listByUser: (org, user) =>
        many(
          `SELECT * FROM api_keys WHERE organization_id = $1 AND user_id = $2
            ORDER BY created_at, seq`,
          [org, user],
          apiKeyOf,
        ),
      listByOrganization: (org) =>
        many(
          'SELECT * FROM api_keys WHERE organization_id = $1 ORDER BY created_at, seq',
          [org],
          apiKeyOf,
        ),
      findByPublicKey: (org, publicKey) =>
        one(
          'SELECT * FROM api_keys WHERE organization_id = $1 AND public_key = $2',
          [org, publicKey],
          apiKeyOf,
        ),
      async insert(r) {
        await insertOrConflict(
          db,
          insertOnce('api_keys', API_KEY_COLUMNS, API_KEY_VALUES),
          apiKeyParams(r),
          'api_key_public_key',
          [
            {
              constraint: 'api_key_pkey',
              sql: 'SELECT 1 FROM api_keys WHERE organization_id = $1 AND api_key_id = $2',
              params: [r.organizationId, r.apiKeyId],
            },
          ],
        );
      },
      async delete(org, id) {
        await db.query('DELETE FROM api_keys WHERE organization_id = $1 AND api_key_id = $2', [
          org,
          id,
        ]);
      },
    },
    credentials: {
      async findApiKeys(publicKey, scope) {
        const rows = await db.query(FIND_API_KEY_CREDENTIALS, [
          publicKey,
          scope.organizationId,
          scope.parentOrganizationId ?? null,
          scope.includeChildren,
        ]);
        return rows.map((r) => {
          const credential: ApiKeyCredential = {
            relation: r.relation as CredentialRelation,
            apiKey: apiKeyOf(r.api_key as Row),
          };
          if (r.holder !== null && r.holder !== undefined)
            credential.user = userOf(r.holder as Row);
          return credential;
        });
      },
    },
    wallets: {
      get: (org, id) =>
        one(
          'SELECT * FROM wallets WHERE organization_id = $1 AND wallet_id = $2',
          [org, id],
          walletOf,
        ),
      list: (org) =>
        many(
          'SELECT * FROM wallets WHERE organization_id = $1 ORDER BY created_at, seq',
          [org],
          walletOf,
        ),
      async insert(r) {
        await insertOrConflict(
          db,
          insertOnce('wallets', WALLET_COLUMNS, WALLET_VALUES),
          walletParams(r),
          'wallet_pkey',
        );
      },
      async update(r) {
        await db.query(
          upsert('wallets', WALLET_COLUMNS, WALLET_VALUES, 'organization_id, wallet_id'),
          walletParams(r),
        );
      },
      async delete(org, id) {
        await db.query('DELETE FROM wallets WHERE organization_id = $1 AND wallet_id = $2', [
          org,
          id,
        ]);
      },
    },
    walletAccounts: {
      list(org, walletId, page) {
        const scope =
          walletId === undefined
            ? 'organization_id = $1'
            : 'organization_id = $1 AND wallet_id = $2';
        const params: unknown[] = walletId === undefined ? [org] : [org, walletId];
        const bounds: string[] = [];
        for (const [cursor, op] of [
          [page?.after, '>'],
          [page?.before, '<'],
        ] as const) {
          if (cursor === undefined) continue;
          params.push(cursor);
          bounds.push(
            `seq ${op} (SELECT seq FROM wallet_accounts WHERE ${scope} AND wallet_account_id = $${params.length})`,
          );
        }
        const select = `SELECT * FROM wallet_accounts WHERE ${[scope, ...bounds].join(' AND ')}`;
        return paged(select, params, 'seq ASC', 'seq DESC', page, walletAccountOf);
      },
      findByAddress: (org, address) =>
        one(
          `SELECT * FROM wallet_accounts WHERE organization_id = $1 AND address_key = $2
            ORDER BY seq LIMIT 1`,
          [org, addressKey(address)],
          walletAccountOf,
        ),
      findByPublicKey: (org, publicKey) =>
        one(
          `SELECT * FROM wallet_accounts WHERE organization_id = $1 AND public_key = $2
            ORDER BY seq LIMIT 1`,
          [org, publicKey],
          walletAccountOf,
        ),
      findByPath: (org, walletId, path) =>
        one(
          `SELECT * FROM wallet_accounts
            WHERE organization_id = $1 AND wallet_id = $2 AND path = $3`,
          [org, walletId, path],
          walletAccountOf,
        ),
      async insert(r) {
        await insertOrConflict(
          db,
          insertOnce('wallet_accounts', ACCOUNT_COLUMNS, ACCOUNT_VALUES),
          accountParams(r),
          'wallet_account_path',
          [
            {
              constraint: 'wallet_account_pkey',
              sql: 'SELECT 1 FROM wallet_accounts WHERE organization_id = $1 AND wallet_account_id = $2',
              params: [r.organizationId, r.walletAccountId],
            },
          ],
        );
      },
      async markExported(org, id, updatedAt) {
        await db.query(
          `UPDATE wallet_accounts SET exported = true, updated_at = $3
            WHERE organization_id = $1 AND wallet_account_id = $2`,
          [org, id, updatedAt],
        );
      },
      async delete(org, id) {
        await db.query(
          'DELETE FROM wallet_accounts WHERE organization_id = $1 AND wallet_account_id = $2',
          [org, id],
        );
      },
      async deleteByWallet(org, walletId) {
        await db.query(
          'DELETE FROM wallet_accounts WHERE organization_id = $1 AND wallet_id = $2',
          [org, walletId],
        );
      },
    },
    privateKeys: {
      get: (org, id) =>
        one(
          'SELECT * FROM private_keys WHERE organization_id = $1 AND private_key_id = $2',
          [org, id],
          privateKeyOf,
        ),
      list: (org) =>
        many(
          'SELECT * FROM private_keys WHERE organization_id = $1 ORDER BY created_at, seq',
          [org],
          privateKeyOf,
        ),
      findByAddress: (org, address) =>
        one(
          `SELECT * FROM private_keys
            WHERE organization_id = $1 AND address_keys @> ARRAY[$2::text]
            ORDER BY seq LIMIT 1`,
          [org, addressKey(address)],
          privateKeyOf,
        ),
      findByPublicKey: (org, publicKey) =>
        one(
          `SELECT * FROM private_keys WHERE organization_id = $1 AND public_key = $2
            ORDER BY seq LIMIT 1`,
          [org, publicKey],
          privateKeyOf,
        ),
      async insert(r) {
        await insertOrConflict(
          db,
          insertOnce('private_keys', PRIVATE_KEY_COLUMNS, PRIVATE_KEY_VALUES),
          privateKeyParams(r),
          'private_key_pkey',
        );
      },
      async update(r) {
        await db.query(
          upsert(
            'private_keys',
            PRIVATE_KEY_COLUMNS,
            PRIVATE_KEY_VALUES,
            'organization_id, private_key_id',
          ),
          privateKeyParams(r),
        );
      },
      async delete(org, id) {
        await db.query(
          'DELETE FROM private_keys WHERE organization_id = $1 AND private_key_id = $2',
          [org, id],
        );
      },
    },
    activities: {
      get: (org, id) =>
        one(
          'SELECT * FROM activities WHERE id = $2 AND organization_id = $1',
          [org, id],
          activityOf,
        ),
      getForUpdate: (org, id) =>
        one(
          'SELECT * FROM activities WHERE id = $2 AND organization_id = $1 FOR UPDATE',
          [org, id],
          activityOf,
        ),
      findByFingerprint: (fingerprint) =>
        one('SELECT * FROM activities WHERE fingerprint = $1', [fingerprint], activityOf),
      list(org, filter: ActivityFilter, page) {
        const params: unknown[] = [org];
        const scope = ['organization_id = $1'];
        if (filter.statuses?.length) {
          params.push([...filter.statuses]);
          scope.push(`status = ANY($${params.length}::text[])`);
        }
        if (filter.types?.length) {
          params.push([...filter.types]);
          scope.push(`type = ANY($${params.length}::text[])`);
        }
        const where = scope.join(' AND ');
        const bounds: string[] = [];
        // Newest first: `after` a cursor means older (smaller id), `before` newer.
        for (const [cursor, op] of [
          [page?.after, '<'],
          [page?.before, '>'],
        ] as const) {
          if (cursor === undefined) continue;
          params.push(cursor);
          bounds.push(
            `id ${op} (SELECT id FROM activities WHERE ${where} AND id = $${params.length})`,
          );
        }
        const select = `SELECT * FROM activities WHERE ${[where, ...bounds].join(' AND ')}`;
        return paged(select, params, 'id DESC', 'id ASC', page, activityOf);
      },
      async insert(r) {
        await insertOrConflict(
          db,
          insertOnce('activities', ACTIVITY_COLUMNS, ACTIVITY_VALUES),
          activityParams(r),
          'activity_fingerprint',
          [
            {
              constraint: 'activity_pkey',
              sql: 'SELECT 1 FROM activities WHERE id = $1',
              params: [r.id],
            },
          ],
        );
      },
      async update(r) {
        await db.query(
          upsert('activities', ACTIVITY_COLUMNS, ACTIVITY_VALUES, 'id'),
          activityParams(r),
        );
      },
    },
    policies: namedRepository(db, {
      table: 'policies',
      idColumn: 'policy_id',
      nameColumn: 'policy_name',
      columns: POLICY_COLUMNS,
      values: POLICY_VALUES,
      params: policyParams,
      of: policyOf,
      idOf: (r) => r.policyId,
      nameOf: (r) => r.policyName,
      constraints: { pkey: 'policy_pkey', name: 'policy_name' },
    }),
    userTags: namedRepository(db, {
      table: 'user_tags',
      idColumn: 'tag_id',
      nameColumn: 'tag_name',
      columns: TAG_COLUMNS,
      values: TAG_VALUES,
      params: tagParams,
      of: tagOf,
      idOf: (r) => r.tagId,
      nameOf: (r) => r.tagName,
      constraints: { pkey: 'user_tag_pkey', name: 'user_tag_name' },
    }),
    privateKeyTags: namedRepository(db, {
      table: 'private_key_tags',
      idColumn: 'tag_id',
      nameColumn: 'tag_name',
      columns: TAG_COLUMNS,
      values: TAG_VALUES,
      params: tagParams,
      of: tagOf,
      idOf: (r) => r.tagId,
      nameOf: (r) => r.tagName,
      constraints: { pkey: 'private_key_tag_pkey', name: 'private_key_tag_name' },
    }),
    webhookEndpoints: {
      get: (org, id) =>
        one(
          'SELECT * FROM webhook_endpoints WHERE organization_id = $1 AND endpoint_id = $2',
          [org, id],
          webhookEndpointOf,
        ),
      list: (org) =>
        many(
          'SELECT * FROM webhook_endpoints WHERE organization_id = $1 ORDER BY created_at, seq',
          [org],
          webhookEndpointOf,
        ),
      async insert(r) {
        await insertOrConflict(
          db,
          insertOnce('webhook_endpoints', WEBHOOK_ENDPOINT_COLUMNS, WEBHOOK_ENDPOINT_VALUES),
          webhookEndpointParams(r),
          'webhook_endpoint_pkey',
        );
      },
      async update(r) {
        await db.query(
          upsert(
            'webhook_endpoints',
            WEBHOOK_ENDPOINT_COLUMNS,
            WEBHOOK_ENDPOINT_VALUES,
            'organization_id, endpoint_id',
          ),
          webhookEndpointParams(r),
        );
      },
      async delete(org, id) {
        await db.query(
          'DELETE FROM webhook_endpoints WHERE organization_id = $1 AND endpoint_id = $2',
          [org, id],
        );
      },
    },
    webhookDeliveries: {
      async insert(d) {
        await insertOrConflict(
          db,
          insertOnce('webhook_deliveries', WEBHOOK_DELIVERY_COLUMNS, WEBHOOK_DELIVERY_VALUES),
          webhookDeliveryParams(d),
          'webhook_delivery_pkey',
        );
      },
      async deletePending(org, endpointId) {
        await db.query(
          `DELETE FROM webhook_deliveries
            WHERE organization_id = $1 AND endpoint_id = $2 AND status = 'PENDING'`,
          [org, endpointId],
        );
      },
    },
    policyEvaluations: {
      listByActivity: (org, activityId) =>
        many(
          `SELECT * FROM policy_evaluations WHERE organization_id = $1 AND activity_id = $2
            ORDER BY created_at, seq`,
          [org, activityId],
          policyEvaluationOf,
        ),
      async insert(r) {
        await insertOrConflict(
          db,
          insertOnce('policy_evaluations', POLICY_EVALUATION_COLUMNS, POLICY_EVALUATION_VALUES),
          policyEvaluationParams(r),
          'policy_evaluation_pkey',
        );
      },
    },
  };
}

/**
 * The Store port over a SQL database. Create it with `createPostgresStore` or
 * `createPgliteStore`, or with `SqlStore.open(driver)` over a driver of your own.
 */
export class SqlStore implements Store, Outbox {
  private closed = false;
  private readonly running = new Set<Promise<unknown>>();

  /** Wraps a driver whose schema is already migrated (see `SqlStore.open`). */
  constructor(private readonly driver: SqlDriver) {}

  /** Applies pending migrations (refusing a database it cannot use), then wraps the driver. */
  static async open(
    driver: SqlDriver,
    options: RunMigrationsOptions,
  ): Promise<{ store: SqlStore; migrations: MigrationReport }> {
    const migrations = await runMigrations(driver, options);
    return { store: new SqlStore(driver), migrations };
  }

  transaction<T>(work: (tx: StoreTransaction) => Promise<T>): Promise<T> {
    return this.withClient((client) => work(transactionOver(client)));
  }

  /**
   * Up to `limit` due PENDING deliveries without a live lease, oldest first, leased until
   * `now + leaseMs`. The rows are locked `FOR UPDATE SKIP LOCKED` while they are leased, so
   * a concurrent claim (another instance) skips them rather than waiting or taking them too.
   */
  claimDue(now: number, limit: number, leaseMs: number): Promise<WebhookDelivery[]> {
    return this.withClient(async (db) => {
      const rows = await db.query(
        `WITH due AS (
           SELECT delivery_id FROM webhook_deliveries
            WHERE status = 'PENDING' AND next_attempt_at <= $1
              AND (lease_until IS NULL OR lease_until <= $1)
            ORDER BY created_at, seq
            LIMIT $2
            FOR UPDATE SKIP LOCKED
         )
         UPDATE webhook_deliveries d SET lease_until = $3
           FROM due WHERE d.delivery_id = due.delivery_id
         RETURNING d.*`,
        [now, Math.max(0, limit), now + leaseMs],
      );
      return rows
        .sort((a, b) => num(a.created_at) - num(b.created_at) || num(a.seq) - num(b.seq))
        .map(webhookDeliveryOf);
    });
  }

  async markDelivered(deliveryId: string, attempts: number, at: number): Promise<void> {
    await this.withClient((db) =>
      db.query(
        `UPDATE webhook_deliveries
            SET status = 'DELIVERED', attempts = $2, delivered_at = $3, lease_until = NULL
          WHERE delivery_id = $1`,
        [deliveryId, attempts, at],
      ),
    );
  }

  async reschedule(
    deliveryId: string,
    attempts: number,
    nextAttemptAt: number,
    lastError: string,
  ): Promise<void> {
    await this.withClient((db) =>
      db.query(
        // Only a PENDING one: a delivery failed meanwhile (its endpoint disabled) stays FAILED.
        `UPDATE webhook_deliveries
            SET attempts = $2, next_attempt_at = $3, last_error = $4, lease_until = NULL
          WHERE delivery_id = $1 AND status = 'PENDING'`,
        [deliveryId, attempts, nextAttemptAt, lastError],
      ),
    );
  }

  async markFailed(
    deliveryId: string,
    attempts: number,
    at: number,
    lastError: string,
  ): Promise<void> {
    await this.withClient((db) =>
      db.query(
        `UPDATE webhook_deliveries
            SET status = 'FAILED', attempts = $2, failed_at = $3, last_error = $4,
                lease_until = NULL
          WHERE delivery_id = $1`,
        [deliveryId, attempts, at, lastError],
      ),
    );
  }

  async endpointDelivered(organizationId: string, endpointId: string): Promise<void> {
    await this.withClient((db) =>
      db.query(
        `UPDATE webhook_endpoints SET consecutive_failures = 0
          WHERE organization_id = $1 AND endpoint_id = $2 AND consecutive_failures <> 0`,
        [organizationId, endpointId],
      ),
    );
  }

  /** Counts in one statement, so concurrent dispatchers never lose a failure. */
  endpointFailed(organizationId: string, endpointId: string): Promise<number> {
    return this.withClient(async (db) => {
      const [row] = await db.query(
        `UPDATE webhook_endpoints SET consecutive_failures = consecutive_failures + 1
          WHERE organization_id = $1 AND endpoint_id = $2
          RETURNING consecutive_failures`,
        [organizationId, endpointId],
      );
      return row ? num(row.consecutive_failures) : 0;
    });
  }

  /**
   * Turns the endpoint off and fails its PENDING deliveries, in one transaction; `is_active`
   * in the WHERE makes two dispatchers disabling it at once do it once.
   */
  disableEndpoint(
    organizationId: string,
    endpointId: string,
    reason: string,
    at: number,
  ): Promise<boolean> {
    return this.withClient(async (db) => {
      const disabled = await db.query(
        `UPDATE webhook_endpoints
            SET is_active = false, disabled_reason = $3, consecutive_failures = 0, updated_at = $4
          WHERE organization_id = $1 AND endpoint_id = $2 AND is_active
          RETURNING endpoint_id`,
        [organizationId, endpointId, reason, at],
      );
      if (disabled.length === 0) return false;
      await db.query(
        `UPDATE webhook_deliveries
            SET status = 'FAILED', failed_at = $3, last_error = $4, lease_until = NULL
          WHERE organization_id = $1 AND endpoint_id = $2 AND status = 'PENDING'`,
        [organizationId, endpointId, at, `endpoint disabled: ${reason}`],
      );
      return true;
    });
  }

  /** One database transaction over a guarded client (refused once it has ended). */
  private withClient<T>(work: (client: SqlClient) => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error('store is closed'));
    const run = this.driver
      .transaction(async (client) => {
        let open = true;
        const guarded: SqlClient = {
          async query(text, params) {
            if (!open) throw new Error('transaction is closed: it committed or rolled back');
            try {
              return await client.query(text, params);
            } catch (error) {
              throw translateDatabaseError(error);
            }
          },
          async exec(script) {
            if (!open) throw new Error('transaction is closed: it committed or rolled back');
            await client.exec(script);
          },
        };
        try {
          return await work(guarded);
        } finally {
          open = false;
        }
      })
      .catch((error: unknown) => {
        throw translateDatabaseError(error);
      });
    this.running.add(run);
    const forget = () => this.running.delete(run);
    run.then(forget, forget);
    return run;
  }

  /** A cheap round trip to the database, for readiness probes. */
  async ping(): Promise<void> {
    await this.driver.transaction((client) => client.query('SELECT 1'));
  }

  /** Refuses new transactions, waits for the running ones, then releases the driver. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.allSettled([...this.running]);
    await this.driver.close();
  }
}

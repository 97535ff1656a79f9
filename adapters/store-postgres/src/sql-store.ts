/**
 * The SQL Store: the Store port over any SqlDriver (a `pg` pool or embedded PGlite), with
 * one set of SQL for both. It behaves like the memory store through the port: the same
 * orderings (createdAt then insertion order; wallet accounts in creation order; activities
 * newest first by id), the same paging cursors, the same constraint names, fresh copies.
 *
 * Each table's repository is a SqlTable built from its spec (@keyhold/store-tables): get,
 * list, insert (conflicts reported without aborting the database transaction), update (an
 * upsert) and delete are generated once; what is written out here is what differs per table:
 * the address and public-key lookups, paging, the credential lookup, deleting an organization.
 *
 * The store is also the Outbox of the webhook deliveries its transactions enqueue: each claim
 * or mark is a short transaction of its own; claims lock due rows with `FOR UPDATE SKIP
 * LOCKED` and lease them, so dispatchers on many instances never claim one delivery at once.
 * @module
 */
import {
  type ActivityFilter,
  type ActivityRecord,
  type ActivityRepository,
  type ApiKeyCredential,
  type ApiKeyRecord,
  type ApiKeyRepository,
  type AuditEntryRecord,
  type AuditHeadRecord,
  type AuditLogRepository,
  type AuthenticatorCredential,
  type AuthenticatorRecord,
  type AuthenticatorRepository,
  addressKey,
  type CredentialRelation,
  type CredentialRepository,
  type CredentialScope,
  type NamedRecordRepository,
  type OauthProviderRecord,
  type OauthProviderRepository,
  type OrganizationRecord,
  type OrganizationRepository,
  type PageRequest,
  type PaymentRecord,
  type PaymentRepository,
  type PaymentStatus,
  type PolicyEvaluationRecord,
  type PolicyEvaluationRepository,
  type PrivateKeyRecord,
  type PrivateKeyRepository,
  type ResourceCounts,
  type SmartContractInterfaceRecord,
  type SmartContractInterfaceRepository,
  type Store,
  type StoreTransaction,
  type WalletAccountRecord,
  type WalletAccountRepository,
  type WebhookDeliveryRepository,
} from '@keyhold/activities';
import { STORE_TABLES } from '@keyhold/store-tables';
import type { Outbox, WebhookDelivery } from '@keyhold/webhooks';
import { AssumptionFailed, GenerationCache, type GenerationCacheSpec } from './generation-cache.js';
import { LazySavepoints } from './lazy-savepoints.js';
import { type MigrationReport, type RunMigrationsOptions, runMigrations } from './migrations.js';
import { cursorQuery, type PagedQuery, pagedSql, planPage } from './paging.js';
import {
  type Row,
  type SqlClient,
  type SqlDriver,
  translateDatabaseError,
  type WriteGroup,
} from './sql-client.js';
import { type SqlLookup, SqlRepository, SqlTable } from './sql-table.js';

const num = (value: unknown): number => Number(value);

// The tables, their statements generated once, and the lookups beyond get and list.
const organizations = new SqlTable(STORE_TABLES.organizations);
const users = new SqlTable(STORE_TABLES.users);
const apiKeys = new SqlTable(STORE_TABLES.apiKeys);
const apiKeysByUser = apiKeys.lister(['organizationId', 'userId']);
const apiKeyByPublicKey = apiKeys.finder(['organizationId', 'publicKey']);
const authenticators = new SqlTable(STORE_TABLES.authenticators);
const authenticatorsByUser = authenticators.lister(['organizationId', 'userId']);
const authenticatorByCredentialId = authenticators.finder(['organizationId', 'credentialId']);
const wallets = new SqlTable(STORE_TABLES.wallets);
const walletAccounts = new SqlTable(STORE_TABLES.walletAccounts);
const walletAccountByPublicKey = walletAccounts.finder(['organizationId', 'publicKey']);
const walletAccountByPath = walletAccounts.finder(['organizationId', 'walletId', 'path']);
const privateKeys = new SqlTable(STORE_TABLES.privateKeys);
const privateKeyByPublicKey = privateKeys.finder(['organizationId', 'publicKey']);
const activities = new SqlTable(STORE_TABLES.activities);
const activityByFingerprint = activities.finder(['fingerprint']);
const policies = new SqlTable(STORE_TABLES.policies);
const policyByName = policies.finder(['organizationId', 'policyName']);
const userTags = new SqlTable(STORE_TABLES.userTags);
const userTagByName = userTags.finder(['organizationId', 'tagName']);
const privateKeyTags = new SqlTable(STORE_TABLES.privateKeyTags);
const privateKeyTagByName = privateKeyTags.finder(['organizationId', 'tagName']);
const policyEvaluations = new SqlTable(STORE_TABLES.policyEvaluations);
const policyEvaluationsByActivity = policyEvaluations.lister(['organizationId', 'activityId']);
const webhookEndpoints = new SqlTable(STORE_TABLES.webhookEndpoints);
const otps = new SqlTable(STORE_TABLES.otps);
const auditEntries = new SqlTable(STORE_TABLES.auditEntries);
const auditHeads = new SqlTable(STORE_TABLES.auditHeads);

/** Before the first link of a chain: the hash entry 1 commits to. */
const AUDIT_GENESIS = '0'.repeat(64);

/**
 * An append to an organization's audit chain, as the CTEs `head` and `entry`: the head row is
 * created at seq 1 or moved one on, its new hash computed by the database from the old one under
 * the row lock the upsert takes (held until commit), and the entry inserted from what the
 * upsert returns. `p` numbers the parameters; with `from`, the append happens once per row of
 * that CTE (none: not at all).
 */
function auditAppend(
  p: { organization: number; body: number; now: number; genesis: number },
  from?: string,
): string {
  const [organization, body, now, genesis] = [
    `$${p.organization}::text`,
    `$${p.body}::text`,
    `$${p.now}::bigint`,
    `$${p.genesis}::text`,
  ];
  return `head AS (
  INSERT INTO audit_heads AS h (organization_id, seq, hash, created_at, updated_at)
  SELECT ${organization}, 1,
         encode(sha256(convert_to(${genesis} || E'\n' || ${body}, 'UTF8')), 'hex'), ${now}, ${now}
  ${from ? `FROM ${from}` : ''}
  ON CONFLICT (organization_id) DO UPDATE
     SET seq = h.seq + 1,
         hash = encode(sha256(convert_to(h.hash || E'\n' || ${body}, 'UTF8')), 'hex'),
         updated_at = ${now}
  RETURNING organization_id, seq, hash
),
entry AS (
  INSERT INTO audit_entries (organization_id, seq, body, hash, created_at)
  SELECT organization_id, seq, ${body}, hash, ${now} FROM head
)`;
}

/** Appends to a chain in one statement. Parameters: organization, body, now, genesis hash. */
const APPEND_AUDIT_ENTRY = `
WITH ${auditAppend({ organization: 1, body: 2, now: 3, genesis: 4 })}
SELECT seq FROM head`;

/** The parameters of a decided write: the activity's, the evaluation's, then four for the audit. */
const DECIDED_PARAMETERS = activities.columns.length + policyEvaluations.columns.length + 4;

/**
 * A decided write: the CTE `activity` (a row back when it wrote), then the activity's policy
 * evaluation and its audit entry for that row only, so an activity not written writes nothing.
 * Parameters: the activity's, then the evaluation's, then organization, body, now and the
 * genesis hash; `before` (CTEs ahead of `activity`) numbers its own after those.
 */
function decidedWrite(activity: string, before = ''): string {
  const evaluationFrom = activities.columns.length + 1;
  const audit = evaluationFrom + policyEvaluations.columns.length;
  const p = { organization: audit, body: audit + 1, now: audit + 2, genesis: audit + 3 };
  return `
WITH ${before}activity AS (${activity}),
evaluation AS (${policyEvaluations.insertFrom('activity', evaluationFrom)}),
${auditAppend(p, 'activity')}
SELECT 1 AS written FROM activity`;
}

/** The parameters of a decided write (`decidedWrite`), in order. */
function decidedParams(
  record: ActivityRecord,
  evaluation: PolicyEvaluationRecord,
  audit: { readonly body: string; readonly now: number },
): unknown[] {
  return [
    ...activities.params(record),
    ...policyEvaluations.params(evaluation),
    record.organizationId,
    audit.body,
    audit.now,
    AUDIT_GENESIS,
  ];
}

/**
 * A decided activity, its policy evaluation and its audit entry in one statement
 * (`ActivityRepository.insertDecided`): the activity is inserted unless it conflicts.
 */
const INSERT_DECIDED = decidedWrite(activities.insertOnce);

/**
 * An activity's new state after a vote, the vote's policy evaluation and its audit entry in one
 * statement (`ActivityRepository.updateDecided`).
 */
const UPDATE_DECIDED = decidedWrite(activities.upsertReturning);

/**
 * INSERT_DECIDED, written only while the organization's row and its parent's are the versions
 * a transaction assumed (see generation-cache.ts): no row back, and nothing written, otherwise
 * or on a conflict. Parameters: INSERT_DECIDED's, then the organization's id and `row_version`,
 * and the parent's (NULL with no parent).
 */
const INSERT_DECIDED_GUARDED = (() => {
  const g = DECIDED_PARAMETERS + 1;
  return decidedWrite(
    `${activities.insertFrom('guard', 1)} ON CONFLICT DO NOTHING RETURNING 1 AS inserted`,
    `guard AS (
  SELECT 1 FROM organizations o
   WHERE o.organization_id = $${g}::text AND o.xmin::text = $${g + 1}::text
     AND ($${g + 2}::text IS NULL OR EXISTS (
       SELECT 1 FROM organizations p
        WHERE p.organization_id = $${g + 2}::text AND p.xmin::text = $${g + 3}::text))
),
`,
  );
})();

/**
 * Several decided inserts of one organization in one statement (`DECIDED_INSERTS`, the pg
 * driver's write group): each is written as INSERT_DECIDED (or INSERT_DECIDED_GUARDED) alone
 * would write it, in the order given, and the audit chain moves once for all of them. Rows:
 * `item` for each one written (1-based, in order). Parameters: one array per column of the
 * activities, then of the evaluations; the audit bodies and times; the four guard columns
 * (NULL for an unguarded write); then the organization and the genesis hash.
 *
 * The chain: the head is read locked (`FOR UPDATE`: under READ COMMITTED, its newest version
 * once the lock is had), the new entries' hashes folded from it in order, and the head set to
 * the last. With no head yet, two writers racing both start from the genesis hash; the second
 * then collides on an entry's seq and its whole statement fails, writing nothing.
 */
const INSERT_DECIDED_MANY = (() => {
  const a = activities.unnest(1, 'a_');
  const e = policyEvaluations.unnest(1 + activities.columns.length, 'e_');
  const rest = 1 + activities.columns.length + policyEvaluations.columns.length;
  const [body, now, gOrg, gVersion, gParent, gParentVersion, organization, genesis] = Array.from(
    { length: 8 },
    (_, i) => `$${rest + i}`,
  );
  const arrays = [
    ...a.arrays,
    ...e.arrays,
    `${body}::text[]`,
    `${now}::bigint[]`,
    ...[gOrg, gVersion, gParent, gParentVersion].map((g) => `${g}::text[]`),
  ];
  const names = [...a.names, ...e.names, 'audit_body', 'audit_now'];
  const items = `SELECT * FROM unnest(${arrays.join(', ')}) WITH ORDINALITY
    AS i (${names.join(', ')}, g_org, g_version, g_parent, g_parent_version, item)`;
  return `
WITH RECURSIVE items AS (${items}),
guarded AS (
  SELECT * FROM items i
   WHERE i.g_org IS NULL OR EXISTS (
     SELECT 1 FROM organizations o
      WHERE o.organization_id = i.g_org AND o.xmin::text = i.g_version
        AND (i.g_parent IS NULL OR EXISTS (
          SELECT 1 FROM organizations p
           WHERE p.organization_id = i.g_parent AND p.xmin::text = i.g_parent_version)))
),
activity AS (
  ${activities.insertFromRows('guarded', 'a_')} ORDER BY item
  ON CONFLICT DO NOTHING RETURNING id
),
written AS (
  SELECT g.*, row_number() OVER (ORDER BY g.item) AS n
    FROM guarded g JOIN activity ON activity.id = g.a_id
),
evaluation AS (${policyEvaluations.insertFromRows('written', 'e_')}),
previous AS (SELECT seq, hash FROM audit_heads WHERE organization_id = ${organization}::text FOR UPDATE),
chain (n, seq, hash, body, now) AS (
  SELECT 0::bigint, COALESCE((SELECT seq FROM previous), 0),
         COALESCE((SELECT hash FROM previous), ${genesis}::text), NULL::text, NULL::bigint
  UNION ALL
  SELECT w.n, c.seq + 1, encode(sha256(convert_to(c.hash || E'\n' || w.audit_body, 'UTF8')), 'hex'),
         w.audit_body, w.audit_now
    FROM chain c JOIN written w ON w.n = c.n + 1
),
head AS (
  INSERT INTO audit_heads AS h (organization_id, seq, hash, created_at, updated_at)
  SELECT ${organization}::text, seq, hash, now, now FROM chain
   WHERE n > 0 ORDER BY n DESC LIMIT 1
  ON CONFLICT (organization_id) DO UPDATE
     SET seq = EXCLUDED.seq, hash = EXCLUDED.hash, updated_at = EXCLUDED.updated_at
),
entry AS (
  INSERT INTO audit_entries (organization_id, seq, body, hash, created_at)
  SELECT ${organization}::text, seq, body, hash, now FROM chain WHERE n > 0
)
SELECT item FROM written`;
})();

/**
 * The decided inserts of one organization that the pg driver may send together (see
 * `WriteGroup`): INSERT_DECIDED and INSERT_DECIDED_GUARDED, as INSERT_DECIDED_MANY.
 */
const DECIDED_INSERTS: WriteGroup = {
  texts: new Set([INSERT_DECIDED, INSERT_DECIDED_GUARDED]),
  // The audit chain's organization (its head is what concurrent writes would queue on).
  key: (write) => String(write.params[DECIDED_PARAMETERS - 4]),
  combine(writes) {
    const params = writes.map((w) => w.params);
    const guard = (k: number) =>
      params.map((p) =>
        p.length > DECIDED_PARAMETERS ? (p[DECIDED_PARAMETERS + k] ?? null) : null,
      );
    const first = params[0]!;
    return {
      text: INSERT_DECIDED_MANY,
      params: [
        ...activities.arraysOf(params),
        ...policyEvaluations.arraysOf(params, activities.columns.length),
        params.map((p) => p[DECIDED_PARAMETERS - 3]),
        params.map((p) => p[DECIDED_PARAMETERS - 2]),
        guard(0),
        guard(1),
        guard(2),
        guard(3),
        first[DECIDED_PARAMETERS - 4],
        first[DECIDED_PARAMETERS - 1],
      ],
      rowsOf(rows) {
        const written = new Set(rows.map((row) => Number(row.item)));
        return writes.map((_, i) => (written.has(i + 1) ? [{ written: 1 }] : []));
      },
    };
  },
};

/** The audit chains: appends computed in the database, listings by seq. */
class AuditLogRepositoryOver implements AuditLogRepository {
  constructor(private readonly db: SqlClient) {}

  async append(organizationId: string, body: string, now: number): Promise<void> {
    await this.db.query(APPEND_AUDIT_ENTRY, [organizationId, body, now, AUDIT_GENESIS], true);
  }

  list(organizationId: string, fromSeq: number, limit: number): Promise<AuditEntryRecord[]> {
    return many(
      this.db,
      `SELECT * FROM audit_entries WHERE organization_id = $1 AND seq >= $2
        ORDER BY seq LIMIT $3`,
      [organizationId, fromSeq, limit],
      auditEntries.of,
    );
  }

  heads(): Promise<AuditHeadRecord[]> {
    return many(this.db, 'SELECT * FROM audit_heads ORDER BY organization_id', [], auditHeads.of);
  }
}
const invitations = new SqlTable(STORE_TABLES.invitations);
const oauth2Credentials = new SqlTable(STORE_TABLES.oauth2Credentials);
const smartContractInterfaces = new SqlTable(STORE_TABLES.smartContractInterfaces);
const fiatOnRampCredentials = new SqlTable(STORE_TABLES.fiatOnRampCredentials);
const onRampTransactions = new SqlTable(STORE_TABLES.onRampTransactions);
const smartContractInterfaceByAddress = smartContractInterfaces.finder([
  'organizationId',
  'type',
  'addressKey',
]);
const organizationDocuments = new SqlTable(STORE_TABLES.organizationDocuments);
const payments = new SqlTable(STORE_TABLES.payments);
const sendTransactions = new SqlTable(STORE_TABLES.sendTransactions);
const gasUsageConfigs = new SqlTable(STORE_TABLES.gasUsageConfigs);
const paymentByAuthorization = payments.finder(['authorizationKey']);
const paymentsByStatus = payments.lister(['status']);
const oauthProviders = new SqlTable(STORE_TABLES.oauthProviders);
const oauthProviderByIdentity = oauthProviders.finder([
  'organizationId',
  'issuer',
  'audience',
  'subject',
]);
const webhookDeliveries = new SqlTable(STORE_TABLES.webhookDeliveries);

/**
 * A credential lookup, one statement: the rows of `table` whose `keyColumn` is $1 in
 * organization $2, in its parent $3, and ($4) in at most two of its sub-organizations, each row
 * once under the first relation that applies, each with its user (NULL when gone) and
 * `holderColumns`. The organization and parent branches use the table's unique
 * (organization_id, key) constraint; the sub-organization branch starts from its (key,
 * organization_id) index (`api_keys_public_key_idx`, store version 6;
 * `authenticators_credential_idx`, version 8), so its cost does not grow with the number of
 * sub-organizations. Rows come back as jsonb: the credential tables and users share column
 * names.
 */
function credentialLookup(
  table: 'api_keys' | 'authenticators',
  keyColumn: 'public_key' | 'credential_id',
  as: 'api_key' | 'authenticator',
  holderColumns = '',
): string {
  return `
  WITH found AS (
    SELECT 0 AS rank, 'self' AS relation, c.* FROM ${table} c
     WHERE c.${keyColumn} = $1 AND c.organization_id = $2
    UNION ALL
    SELECT 1, 'parent', c.* FROM ${table} c
     WHERE c.${keyColumn} = $1 AND c.organization_id = $3::text AND $3::text <> $2
    UNION ALL
    (SELECT 1 + row_number() OVER (ORDER BY o.created_at, o.organization_id), 'child', c.*
       FROM ${table} c
       JOIN organizations o ON o.organization_id = c.organization_id
      WHERE $4::boolean AND c.${keyColumn} = $1 AND o.parent_organization_id = $2
        AND c.organization_id <> $2 AND c.organization_id IS DISTINCT FROM $3::text
      ORDER BY o.created_at, o.organization_id
      LIMIT 2)
  )
  SELECT f.relation, to_jsonb(f) AS ${as}, to_jsonb(u) AS holder${holderColumns}
    FROM found f
    LEFT JOIN users u ON u.organization_id = f.organization_id AND u.user_id = f.user_id
   ORDER BY f.rank`;
}

/**
 * The credential lookup without sub-organizations (every request but whoami): the rows of
 * `table` whose `keyColumn` is $1 in organization $2 or its parent $3 (NULL for a root), the
 * organization's first, in the shape `credentialLookup` answers. Two equality branches, one
 * per organization, so each is one index probe on both columns whatever plan is kept: with
 * `organization_id IN ($2, $3)`, the generic plan of the prepared statement read every row
 * holding the key and filtered by organization, so a tenant that copied another's public key
 * into thousands of its own organizations slowed that tenant's lookups
 * (`tenant-plans.test.ts`). No CTE or window to plan, which on PGlite is most of the full
 * lookup's cost.
 */
function scopeLookup(
  table: 'api_keys' | 'authenticators',
  keyColumn: 'public_key' | 'credential_id',
  as: 'api_key' | 'authenticator',
  holderColumns = '',
): string {
  return `
  SELECT CASE WHEN f.organization_id = $2 THEN 'self' ELSE 'parent' END AS relation,
         to_jsonb(f) AS ${as}, to_jsonb(u) AS holder${holderColumns}
    FROM (SELECT * FROM ${table} WHERE ${keyColumn} = $1 AND organization_id = $2
          UNION ALL
          SELECT * FROM ${table}
           WHERE ${keyColumn} = $1 AND organization_id = $3::text AND $3::text <> $2) f
    LEFT JOIN users u ON u.organization_id = f.organization_id AND u.user_id = f.user_id
   ORDER BY f.organization_id <> $2`;
}

/** A found holder's credentials of `table`, in creation order (NULL without a holder). */
const holderCredentials = (table: 'api_keys' | 'authenticators', as: string) => `,
         CASE WHEN u.user_id IS NOT NULL THEN
           (SELECT jsonb_agg(to_jsonb(h) ORDER BY h.created_at, h.seq) FROM ${table} h
             WHERE h.organization_id = f.organization_id AND h.user_id = f.user_id)
         END AS ${as}`;

const API_KEY_HOLDER_CREDENTIALS =
  holderCredentials('api_keys', 'holder_api_keys') +
  holderCredentials('authenticators', 'holder_authenticators');

/** API keys by public key, with the holder's API keys and passkeys (a vote records both). */
const FIND_API_KEY_CREDENTIALS = credentialLookup(
  'api_keys',
  'public_key',
  'api_key',
  API_KEY_HOLDER_CREDENTIALS,
);
/** The same in the organization and its parent only. */
const FIND_API_KEY_CREDENTIALS_IN_SCOPE = scopeLookup(
  'api_keys',
  'public_key',
  'api_key',
  API_KEY_HOLDER_CREDENTIALS,
);

/** Passkeys by credential id. */
const FIND_AUTHENTICATOR_CREDENTIALS = credentialLookup(
  'authenticators',
  'credential_id',
  'authenticator',
);
/** The same in the organization and its parent only. */
const FIND_AUTHENTICATOR_CREDENTIALS_IN_SCOPE = scopeLookup(
  'authenticators',
  'credential_id',
  'authenticator',
);

/**
 * The statement and parameters of a credential lookup: the full one when the scope takes in
 * sub-organizations, else the organization-and-parent one.
 */
function credentialLookupOf(
  key: string,
  scope: CredentialScope,
  statements: { withChildren: string; inScope: string },
): [string, unknown[]] {
  const params = [key, scope.organizationId, scope.parentOrganizationId ?? null];
  return scope.includeChildren
    ? [statements.withChildren, [...params, true]]
    : [statements.inScope, params];
}

/**
 * The organization (its columns, NULL when there is none), its parent's generation (so a
 * sub-organization's credential lookup, which reads the parent's credentials too, can be kept),
 * both rows' versions (`xmin`: any change to a row, a generation moved among them, gives it a
 * new one; see generation-cache.ts) and the activity of a fingerprint (as JSON, of whichever
 * organization), in one row.
 */
const ORGANIZATION_WITH_ACTIVITY = `
SELECT o.*, o.xmin::text AS row_version, p.generation AS parent_generation,
       p.xmin::text AS parent_row_version,
       (SELECT to_jsonb(a) FROM activities a WHERE a.fingerprint = $2) AS found_activity
  FROM (SELECT 1) AS one
  LEFT JOIN organizations o ON o.organization_id = $1
  LEFT JOIN organizations p ON p.organization_id = o.parent_organization_id`;

const WALLET_ACCOUNT_BY_ADDRESS = `SELECT * FROM wallet_accounts
  WHERE organization_id = $1 AND address_key = $2 ORDER BY seq LIMIT 1`;
const PRIVATE_KEY_BY_ADDRESS = `SELECT * FROM private_keys
  WHERE organization_id = $1 AND address_keys @> ARRAY[$2::text] ORDER BY seq LIMIT 1`;

/**
 * The reads the generation cache may answer (see generation-cache.ts): each selects only from
 * tables whose triggers move the generation of the organizations its parameters name.
 */
export const GENERATION_CACHE: GenerationCacheSpec = {
  generationReads: [
    organizations.selectByKey,
    organizations.selectByKeyForUpdate,
    ORGANIZATION_WITH_ACTIVITY,
  ],
  cacheable: new Map([
    [FIND_API_KEY_CREDENTIALS_IN_SCOPE, { organizationParams: [1, 2] }],
    [FIND_AUTHENTICATOR_CREDENTIALS_IN_SCOPE, { organizationParams: [1, 2] }],
    [policies.listByScope, { organizationParams: [0] }],
    [webhookEndpoints.listByScope, { organizationParams: [0] }],
    [WALLET_ACCOUNT_BY_ADDRESS, { organizationParams: [0] }],
    [PRIVATE_KEY_BY_ADDRESS, { organizationParams: [0] }],
    // What a policy's condition reads besides: the signing key's wallet and the user.
    [wallets.selectByKey, { organizationParams: [0] }],
    [users.selectByKey, { organizationParams: [0] }],
  ]),
  generationTables: [
    'users',
    'api_keys',
    'authenticators',
    'policies',
    'wallets',
    'wallet_accounts',
    'private_keys',
    'webhook_endpoints',
  ],
  // A signature's transaction: its organization assumed, checked by its one write.
  assumed: {
    read: ORGANIZATION_WITH_ACTIVITY,
    perRequestColumns: ['found_activity'],
    guardedWrites: new Map([[INSERT_DECIDED, INSERT_DECIDED_GUARDED]]),
  },
};

/** The one row a fixed statement selects, as a record. */
async function one<T>(db: SqlClient, text: string, params: unknown[], of: (r: Row) => T) {
  const [row] = await db.query(text, params, true);
  return row === undefined ? undefined : of(row);
}

/** The rows a fixed statement selects, as records. */
async function many<T>(db: SqlClient, text: string, params: unknown[], of: (r: Row) => T) {
  return (await db.query(text, params, true)).map(of);
}

/** One page of a listing, in listing order. */
async function paged<T>(
  db: SqlClient,
  query: PagedQuery,
  page: PageRequest | undefined,
  of: (r: Row) => T,
): Promise<T[]> {
  const sql = pagedSql(query, planPage(page));
  if (!sql) return [];
  const rows = await db.query(sql.text, sql.params);
  if (sql.reversed) rows.reverse();
  return rows.map(of);
}

/** Organizations, with the roots by name, the children, and deleting one with its records. */
class OrganizationRepositoryOver
  extends SqlRepository<OrganizationRecord>
  implements OrganizationRepository
{
  constructor(db: SqlClient) {
    super(organizations, db);
  }

  async getWithActivity(
    organizationId: string,
    fingerprint: string,
  ): Promise<{ organization?: OrganizationRecord; activity?: ActivityRecord }> {
    const [row] = await this.db.query(
      ORGANIZATION_WITH_ACTIVITY,
      [organizationId, fingerprint],
      true,
    );
    const found = row?.found_activity as Row | null | undefined;
    return {
      ...(row?.organization_id != null ? { organization: organizations.of(row) } : {}),
      ...(found ? { activity: activities.of(found) } : {}),
    };
  }

  findRootByName(name: string): Promise<OrganizationRecord | undefined> {
    return one(
      this.db,
      `SELECT * FROM organizations
        WHERE name = $1 AND (parent_organization_id IS NULL OR parent_organization_id = '')
        ORDER BY created_at, seq LIMIT 1`,
      [name],
      organizations.of,
    );
  }

  listRoots(): Promise<OrganizationRecord[]> {
    return many(
      this.db,
      `SELECT * FROM organizations
        WHERE parent_organization_id IS NULL OR parent_organization_id = ''
        ORDER BY created_at, organization_id`,
      [],
      organizations.of,
    );
  }

  listChildren(parent: string): Promise<OrganizationRecord[]> {
    return many(
      this.db,
      `SELECT * FROM organizations WHERE parent_organization_id = $1
        ORDER BY created_at, organization_id`,
      [parent],
      organizations.of,
    );
  }

  async countResources(id: string): Promise<ResourceCounts> {
    const [row] = await this.db.query(
      `SELECT (SELECT count(*) FROM users WHERE organization_id = $1)::int AS users,
              (SELECT count(*) FROM wallets WHERE organization_id = $1)::int AS wallets,
              (SELECT count(*) FROM wallet_accounts WHERE organization_id = $1)::int AS accounts,
              (SELECT count(*) FROM private_keys WHERE organization_id = $1)::int AS keys,
              (SELECT count(*) FROM policies WHERE organization_id = $1)::int AS policies,
              (SELECT count(*) FROM organizations WHERE parent_organization_id = $1)::int AS subs`,
      [id],
    );
    const n = row as Record<
      'users' | 'wallets' | 'accounts' | 'keys' | 'policies' | 'subs',
      number
    >;
    return {
      users: Number(n.users),
      wallets: Number(n.wallets),
      walletAccounts: Number(n.accounts),
      privateKeys: Number(n.keys),
      policies: Number(n.policies),
      subOrganizations: Number(n.subs),
    };
  }

  override async delete(id: string): Promise<void> {
    // No foreign keys tie these tables together: every table is cleared by organization.
    // Activities and policy evaluations stay (the audit trail).
    for (const table of [
      'wallet_accounts',
      'wallets',
      'private_keys',
      'api_keys',
      'authenticators',
      'users',
      'policies',
      'user_tags',
      'private_key_tags',
      'webhook_endpoints',
      'otps',
      'invitations',
      'oauth2_credentials',
      'oauth_providers',
      'smart_contract_interfaces',
      'organization_documents',
      'send_transactions',
      'gas_usage_configs',
      'fiat_on_ramp_credentials',
      'on_ramp_transactions',
    ]) {
      await this.db.query(`DELETE FROM ${table} WHERE organization_id = $1`, [id]);
    }
    await this.db.query(
      `DELETE FROM webhook_deliveries WHERE organization_id = $1 AND status = 'PENDING'`,
      [id],
    );
    await this.db.query('DELETE FROM organizations WHERE organization_id = $1', [id]);
  }
}

/** API keys, by user, by organization and by public key. */
class ApiKeyRepositoryOver extends SqlRepository<ApiKeyRecord> implements ApiKeyRepository {
  constructor(db: SqlClient) {
    super(apiKeys, db);
  }

  listByUser(org: string, user: string): Promise<ApiKeyRecord[]> {
    return apiKeysByUser(this.db, org, user);
  }

  listByOrganization(org: string): Promise<ApiKeyRecord[]> {
    return this.list(org);
  }

  findByPublicKey(org: string, publicKey: string): Promise<ApiKeyRecord | undefined> {
    return apiKeyByPublicKey(this.db, org, publicKey);
  }
}

/** Users' OAuth providers, and one by its identity (the unique issuer, audience, subject). */
class OauthProviderRepositoryOver
  extends SqlRepository<OauthProviderRecord>
  implements OauthProviderRepository
{
  constructor(db: SqlClient) {
    super(oauthProviders, db);
  }

  findByIdentity(
    org: string,
    issuer: string,
    audience: string,
    subject: string,
  ): Promise<OauthProviderRecord | undefined> {
    return oauthProviderByIdentity(this.db, org, issuer, audience, subject);
  }
}

/** Passkeys, by user, by organization and by credential id; counters moved forward only. */
class AuthenticatorRepositoryOver
  extends SqlRepository<AuthenticatorRecord>
  implements AuthenticatorRepository
{
  constructor(db: SqlClient) {
    super(authenticators, db);
  }

  listByUser(org: string, user: string): Promise<AuthenticatorRecord[]> {
    return authenticatorsByUser(this.db, org, user);
  }

  listByOrganization(org: string): Promise<AuthenticatorRecord[]> {
    return this.list(org);
  }

  findByCredentialId(org: string, credentialId: string): Promise<AuthenticatorRecord | undefined> {
    return authenticatorByCredentialId(this.db, org, credentialId);
  }

  /** One statement: a concurrent one with the same counter waits for the row, then finds it moved. */
  async advanceSignCount(
    org: string,
    authenticatorId: string,
    signCount: number,
  ): Promise<boolean> {
    const rows = await this.db.query(
      `UPDATE authenticators SET sign_count = $3
        WHERE organization_id = $1 AND authenticator_id = $2 AND sign_count < $3
        RETURNING authenticator_id`,
      [org, authenticatorId, signCount],
    );
    return rows.length > 0;
  }
}

/** The credential lookups: one statement each (`credentialLookupOf` picks it by scope). */
class CredentialRepositoryOver implements CredentialRepository {
  constructor(private readonly db: SqlClient) {}

  async findAuthenticators(
    credentialId: string,
    scope: CredentialScope,
  ): Promise<AuthenticatorCredential[]> {
    const [text, params] = credentialLookupOf(credentialId, scope, {
      withChildren: FIND_AUTHENTICATOR_CREDENTIALS,
      inScope: FIND_AUTHENTICATOR_CREDENTIALS_IN_SCOPE,
    });
    const rows = await this.db.query(text, params, true);
    return rows.map((r) => {
      const credential: AuthenticatorCredential = {
        relation: r.relation as CredentialRelation,
        authenticator: authenticators.of(r.authenticator as Row),
      };
      if (r.holder !== null && r.holder !== undefined) credential.user = users.of(r.holder as Row);
      return credential;
    });
  }

  async findApiKeys(publicKey: string, scope: CredentialScope): Promise<ApiKeyCredential[]> {
    const [text, params] = credentialLookupOf(publicKey, scope, {
      withChildren: FIND_API_KEY_CREDENTIALS,
      inScope: FIND_API_KEY_CREDENTIALS_IN_SCOPE,
    });
    const rows = await this.db.query(text, params, true);
    return rows.map((r) => {
      const credential: ApiKeyCredential = {
        relation: r.relation as CredentialRelation,
        apiKey: apiKeys.of(r.api_key as Row),
      };
      if (r.holder !== null && r.holder !== undefined) {
        credential.user = users.of(r.holder as Row);
        credential.userApiKeys = ((r.holder_api_keys as Row[] | null) ?? []).map(apiKeys.of);
        credential.userAuthenticators = ((r.holder_authenticators as Row[] | null) ?? []).map(
          authenticators.of,
        );
      }
      return credential;
    });
  }
}

/** Wallet accounts: paged in creation order, found by address, public key and path. */
class WalletAccountRepositoryOver
  extends SqlRepository<WalletAccountRecord>
  implements WalletAccountRepository
{
  constructor(db: SqlClient) {
    super(walletAccounts, db);
  }

  override list(
    org: string,
    walletId?: string,
    page?: PageRequest,
  ): Promise<WalletAccountRecord[]> {
    const listing = {
      table: 'wallet_accounts',
      where:
        walletId === undefined ? 'organization_id = $1' : 'organization_id = $1 AND wallet_id = $2',
      params: walletId === undefined ? [org] : [org, walletId],
      orderColumn: 'seq',
      descending: false,
      idColumn: 'wallet_account_id',
    };
    return paged(this.db, cursorQuery(listing, page), page, walletAccounts.of);
  }

  findByAddress(org: string, address: string): Promise<WalletAccountRecord | undefined> {
    return one(this.db, WALLET_ACCOUNT_BY_ADDRESS, [org, addressKey(address)], walletAccounts.of);
  }

  findByPublicKey(org: string, publicKey: string): Promise<WalletAccountRecord | undefined> {
    return walletAccountByPublicKey(this.db, org, publicKey);
  }

  findByPath(
    org: string,
    walletId: string,
    path: string,
  ): Promise<WalletAccountRecord | undefined> {
    return walletAccountByPath(this.db, org, walletId, path);
  }

  async markExported(org: string, id: string, updatedAt: number): Promise<void> {
    await this.db.query(
      `UPDATE wallet_accounts SET exported = true, updated_at = $3
        WHERE organization_id = $1 AND wallet_account_id = $2`,
      [org, id, updatedAt],
    );
  }

  async deleteByWallet(org: string, walletId: string): Promise<void> {
    await this.db.query(
      'DELETE FROM wallet_accounts WHERE organization_id = $1 AND wallet_id = $2',
      [org, walletId],
    );
  }
}

/** Private keys, found by any of their addresses and by public key. */
class PrivateKeyRepositoryOver
  extends SqlRepository<PrivateKeyRecord>
  implements PrivateKeyRepository
{
  constructor(db: SqlClient) {
    super(privateKeys, db);
  }

  findByAddress(org: string, address: string): Promise<PrivateKeyRecord | undefined> {
    return one(this.db, PRIVATE_KEY_BY_ADDRESS, [org, addressKey(address)], privateKeys.of);
  }

  findByPublicKey(org: string, publicKey: string): Promise<PrivateKeyRecord | undefined> {
    return privateKeyByPublicKey(this.db, org, publicKey);
  }
}

/** Activities: by fingerprint, and paged newest first with filters. */
class ActivityRepositoryOver extends SqlRepository<ActivityRecord> implements ActivityRepository {
  constructor(db: SqlClient) {
    super(activities, db);
  }

  findByFingerprint(fingerprint: string): Promise<ActivityRecord | undefined> {
    return activityByFingerprint(this.db, fingerprint);
  }

  async insertDecided(
    record: ActivityRecord,
    evaluation: PolicyEvaluationRecord,
    audit: { readonly body: string; readonly now: number },
  ): Promise<void> {
    // The transaction's last write (the port's contract): it may commit on its own.
    const inserted = await this.db.query(
      INSERT_DECIDED,
      decidedParams(record, evaluation, audit),
      true,
      true,
    );
    if (inserted.length === 0) throw await activities.conflictOf(this.db, record);
  }

  async updateDecided(
    record: ActivityRecord,
    evaluation: PolicyEvaluationRecord,
    audit: { readonly body: string; readonly now: number },
  ): Promise<void> {
    // As update: the fingerprint is not checked first (the database refuses a taken one).
    await this.db.query(UPDATE_DECIDED, decidedParams(record, evaluation, audit), true, true);
  }

  override list(
    org: string,
    filter: ActivityFilter = {},
    page?: PageRequest,
  ): Promise<ActivityRecord[]> {
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
    // Newest first: `after` a cursor means older (smaller id), `before` newer.
    const listing = {
      table: 'activities',
      where: scope.join(' AND '),
      params,
      orderColumn: 'id',
      descending: true,
      idColumn: 'id',
    };
    return paged(this.db, cursorQuery(listing, page), page, activities.of);
  }

  async countInTree(root: string, filter: ActivityFilter, sinceMs: number): Promise<number> {
    const params: unknown[] = [root, sinceMs];
    // One array of the tree's organizations, so each is an index range of its own: `= $1 OR
    // IN (SELECT …)` planned as a scan of every organization's activities.
    const scope = [
      'organization_id = ANY (ARRAY(SELECT organization_id FROM organizations WHERE parent_organization_id = $1) || $1::text)',
      'created_at >= $2',
    ];
    if (filter.statuses?.length) {
      params.push([...filter.statuses]);
      scope.push(`status = ANY($${params.length}::text[])`);
    }
    if (filter.types?.length) {
      params.push([...filter.types]);
      scope.push(`type = ANY($${params.length}::text[])`);
    }
    const [row] = await this.db.query(
      `SELECT count(*)::int AS n FROM activities WHERE ${scope.join(' AND ')}`,
      params,
    );
    return Number((row as { n: number | string }).n);
  }
}

/** Policies and tags: the table's repository, and the lookup by name. */
class NamedRepositoryOver<R> extends SqlRepository<R> implements NamedRecordRepository<R> {
  constructor(
    table: SqlTable<R>,
    db: SqlClient,
    private readonly byName: SqlLookup<R | undefined>,
  ) {
    super(table, db);
  }

  findByName(org: string, name: string): Promise<R | undefined> {
    return this.byName(this.db, org, name);
  }
}

/** Smart-contract interfaces, found by address key. */
class SmartContractInterfaceRepositoryOver
  extends SqlRepository<SmartContractInterfaceRecord>
  implements SmartContractInterfaceRepository
{
  constructor(db: SqlClient) {
    super(smartContractInterfaces, db);
  }

  findByAddress(
    org: string,
    type: string,
    addressKey: string,
  ): Promise<SmartContractInterfaceRecord | undefined> {
    return smartContractInterfaceByAddress(this.db, org, type, addressKey);
  }
}

/** Policy evaluations, listed per activity. */
class PolicyEvaluationRepositoryOver
  extends SqlRepository<PolicyEvaluationRecord>
  implements PolicyEvaluationRepository
{
  constructor(db: SqlClient) {
    super(policyEvaluations, db);
  }

  listByActivity(org: string, activityId: string): Promise<PolicyEvaluationRecord[]> {
    return policyEvaluationsByActivity(this.db, org, activityId);
  }
}

/** The write side of the outbox. */
class WebhookDeliveryRepositoryOver
  extends SqlRepository<WebhookDelivery>
  implements WebhookDeliveryRepository
{
  constructor(db: SqlClient) {
    super(webhookDeliveries, db);
  }

  async deletePending(org: string, endpointId: string): Promise<void> {
    await this.db.query(
      `DELETE FROM webhook_deliveries
        WHERE organization_id = $1 AND endpoint_id = $2 AND status = 'PENDING'`,
      [org, endpointId],
    );
  }
}

/** Payments, found by their authorization and listed by status (the reconciler's scan). */
class PaymentRepositoryOver extends SqlRepository<PaymentRecord> implements PaymentRepository {
  constructor(db: SqlClient) {
    super(payments, db);
  }

  findByAuthorization(authorizationKey: string): Promise<PaymentRecord | undefined> {
    return paymentByAuthorization(this.db, authorizationKey);
  }

  listByStatus(status: PaymentStatus): Promise<PaymentRecord[]> {
    return paymentsByStatus(this.db, status);
  }
}

/** The repositories of one transaction: one small object per table, no closures. */
function transactionOver(
  db: SqlClient,
  savepoint: StoreTransaction['savepoint'],
): StoreTransaction {
  return {
    savepoint,
    organizations: new OrganizationRepositoryOver(db),
    users: new SqlRepository(users, db),
    apiKeys: new ApiKeyRepositoryOver(db),
    authenticators: new AuthenticatorRepositoryOver(db),
    credentials: new CredentialRepositoryOver(db),
    wallets: new SqlRepository(wallets, db),
    walletAccounts: new WalletAccountRepositoryOver(db),
    privateKeys: new PrivateKeyRepositoryOver(db),
    activities: new ActivityRepositoryOver(db),
    policies: new NamedRepositoryOver(policies, db, policyByName),
    userTags: new NamedRepositoryOver(userTags, db, userTagByName),
    privateKeyTags: new NamedRepositoryOver(privateKeyTags, db, privateKeyTagByName),
    policyEvaluations: new PolicyEvaluationRepositoryOver(db),
    webhookEndpoints: new SqlRepository(webhookEndpoints, db),
    webhookDeliveries: new WebhookDeliveryRepositoryOver(db),
    otps: new SqlRepository(otps, db),
    auditLog: new AuditLogRepositoryOver(db),
    invitations: new SqlRepository(invitations, db),
    oauth2Credentials: new SqlRepository(oauth2Credentials, db),
    smartContractInterfaces: new SmartContractInterfaceRepositoryOver(db),
    organizationDocuments: new SqlRepository(organizationDocuments, db),
    payments: new PaymentRepositoryOver(db),
    oauthProviders: new OauthProviderRepositoryOver(db),
    sendTransactions: new SqlRepository(sendTransactions, db),
    gasUsageConfigs: new SqlRepository(gasUsageConfigs, db),
    fiatOnRampCredentials: new SqlRepository(fiatOnRampCredentials, db),
    onRampTransactions: new SqlRepository(onRampTransactions, db),
  };
}

/**
 * The Store port over a SQL database. Create it with `createPostgresStore` or
 * `createPgliteStore`, or with `SqlStore.open(driver)` over a driver of your own.
 */
export class SqlStore implements Store, Outbox {
  private closed = false;
  private readonly running = new Set<Promise<unknown>>();

  /** What this instance keeps of the reads every request repeats (see generation-cache.ts). */
  readonly cache: GenerationCache | undefined;

  /**
   * Wraps a driver whose schema is already migrated (see `SqlStore.open`). `cache: false`
   * sends every read to the database.
   */
  constructor(
    private readonly driver: SqlDriver,
    options: { cache?: boolean } = {},
  ) {
    this.cache = options.cache === false ? undefined : new GenerationCache(GENERATION_CACHE);
    driver.groupWrites?.(DECIDED_INSERTS);
  }

  /** Applies pending migrations (refusing a database it cannot use), then wraps the driver. */
  static async open(
    driver: SqlDriver,
    options: RunMigrationsOptions,
  ): Promise<{ store: SqlStore; migrations: MigrationReport }> {
    const migrations = await runMigrations(driver, options);
    return { store: new SqlStore(driver), migrations };
  }

  transaction<T>(work: (tx: StoreTransaction) => Promise<T>): Promise<T> {
    if (!this.cache) return this.attempt(work, false);
    // First assuming the organization (see generation-cache.ts), then, if it had changed, not.
    return this.attempt(work, true).catch((error: unknown) => {
      if (!(error instanceof AssumptionFailed)) throw error;
      return this.attempt(work, false);
    });
  }

  /** One run of a transaction's work, through the cache when there is one. */
  private attempt<T>(work: (tx: StoreTransaction) => Promise<T>, assume: boolean): Promise<T> {
    return this.withClient(async (client) => {
      const cached = this.cache?.over(client, assume);
      const savepoints = new LazySavepoints(cached ?? client);
      let result: T;
      try {
        result = await work(transactionOver(savepoints.client, (w) => savepoints.run(w)));
      } catch (error) {
        // Worked out from an assumed organization: it counts once the assumption holds.
        await cached?.settle();
        throw error;
      }
      await cached?.settle();
      return result;
    });
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
        .map(webhookDeliveries.of);
    });
  }

  countPending(): Promise<number> {
    return this.withClient(async (db) => {
      const [row] = await db.query(
        `SELECT count(*) AS pending FROM webhook_deliveries WHERE status = 'PENDING'`,
        [],
      );
      return num(row!.pending);
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
          async query(text, params, fixed, last) {
            if (!open) throw new Error('transaction is closed: it committed or rolled back');
            try {
              return await client.query(text, params, fixed, last);
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

  /**
   * One database transaction in plain SQL, over tables the Store port does not join (every
   * organization's wallets at once, `vault_state`): for operator commands such as
   * `keyhold master-key rotate`, which must change all of them or none. Not for request paths.
   * @example
   * await store.sqlTransaction((sql) => sql.query('SELECT count(*) AS n FROM wallets'));
   */
  sqlTransaction<T>(work: (sql: SqlClient) => Promise<T>): Promise<T> {
    return this.withClient(work);
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

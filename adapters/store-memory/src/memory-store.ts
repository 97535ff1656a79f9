/**
 * The in-memory Store: every record in Maps with the same uniqueness rules as the SQL
 * store, transactions serialized one at a time and rolled back through an undo journal.
 * Records are cloned on the way in and out, so callers never share state with the store.
 * For tests, examples and embedding; state ends with the process.
 *
 * The store is also the Outbox of the webhook deliveries its transactions enqueue: claims and
 * marks run in the same one-at-a-time queue as transactions, so a delivery is claimable once
 * its transaction has finished.
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
import type { Outbox, WebhookDelivery, WebhookDeliveryStatus } from '@keyhold/webhooks';
import { Journal } from './journal.js';

const k = (...parts: string[]) => parts.join('\u0000');
const clone = <T>(value: T): T => structuredClone(value);

class State {
  organizations = new Map<string, OrganizationRecord>();
  users = new Map<string, UserRecord>();
  apiKeys = new Map<string, ApiKeyRecord>();
  apiKeyByPublicKey = new Map<string, string>();
  /**
   * Credential index: public key → the organizations holding an API key with it (frozen
   * arrays, replaced on every key insert and delete, so the journal can undo them). Users are
   * read live, so deleting a user needs no entry here; deleting an organization deletes its keys.
   */
  apiKeyOrganizationsByPublicKey = new Map<string, readonly string[]>();
  wallets = new Map<string, WalletRecord>();
  accounts = new Map<string, WalletAccountRecord>();
  accountByAddress = new Map<string, string>();
  accountByPublicKey = new Map<string, string>();
  accountByPath = new Map<string, string>();
  privateKeys = new Map<string, PrivateKeyRecord>();
  privateKeyByAddress = new Map<string, string>();
  privateKeyByPublicKey = new Map<string, string>();
  /**
   * Insertion order of wallets, accounts and private keys: listings sort by it (not by Map
   * order), so a rolled-back delete returns a record to its place.
   */
  walletSeq = new Map<string, number>();
  accountSeq = new Map<string, number>();
  privateKeySeq = new Map<string, number>();
  activities = new Map<string, ActivityRecord>();
  activityByFingerprint = new Map<string, string>();
  /** Activity ids per organization, ascending. */
  activityIdsByOrganization = new Map<string, string[]>();
  policies = new NamedTable<PolicyRecord>();
  userTags = new NamedTable<TagRecord>();
  privateKeyTags = new NamedTable<TagRecord>();
  policyEvaluations = new Map<string, PolicyEvaluationRecord>();
  /** Insertion order of policy evaluations (ties in createdAt). */
  policyEvaluationSeq = new Map<string, number>();
  webhookEndpoints = new Map<string, WebhookEndpointRecord>();
  webhookEndpointSeq = new Map<string, number>();
  /** Consecutive FAILED deliveries per endpoint (absent: none); the dispatcher's bookkeeping. */
  webhookEndpointFailures = new Map<string, number>();
  deliveries = new Map<string, DeliveryRow>();
  seq = 0;
}

/** A delivery with its outbox state. */
interface DeliveryRow {
  delivery: WebhookDelivery;
  status: WebhookDeliveryStatus;
  /** Epoch ms until which a dispatcher holds the delivery. */
  leaseUntil?: number;
  lastError?: string;
  finishedAt?: number;
  seq: number;
}

/**
 * Records with an id and a name unique per organization, listed by createdAt then insertion
 * order (kept as a sequence number, so a rolled-back delete returns a row to its place).
 */
class NamedTable<R extends { organizationId: string; createdAt: number }> {
  rows = new Map<string, R>();
  seqOf = new Map<string, number>();
  byName = new Map<string, string>();
}

function namedRepository<R extends { organizationId: string; createdAt: number }>(
  s: State,
  j: Journal,
  table: NamedTable<R>,
  idOf: (r: R) => string,
  nameOf: (r: R) => string,
  constraints: { pkey: string; name: string },
): NamedRecordRepository<R> {
  const put = (r: R, isNew: boolean) => {
    const key = k(r.organizationId, idOf(r));
    const previous = table.rows.get(key);
    if (previous) j.delete(table.byName, k(r.organizationId, nameOf(previous)));
    j.set(table.rows, key, clone(r));
    j.set(table.byName, k(r.organizationId, nameOf(r)), idOf(r));
    if (isNew || !table.seqOf.has(key)) j.set(table.seqOf, key, ++s.seq);
  };
  return {
    async get(org, id) {
      const r = table.rows.get(k(org, id));
      return r && clone(r);
    },
    async list(org) {
      return [...table.rows.entries()]
        .filter(([, r]) => r.organizationId === org)
        .sort(
          ([ka, a], [kb, b]) =>
            a.createdAt - b.createdAt || table.seqOf.get(ka)! - table.seqOf.get(kb)!,
        )
        .map(([, r]) => clone(r));
    },
    async findByName(org, name) {
      const id = table.byName.get(k(org, name));
      const r = id === undefined ? undefined : table.rows.get(k(org, id));
      return r && clone(r);
    },
    async insert(r) {
      unique(table.rows, k(r.organizationId, idOf(r)), constraints.pkey);
      unique(table.byName, k(r.organizationId, nameOf(r)), constraints.name);
      put(r, true);
    },
    async update(r) {
      const holder = table.byName.get(k(r.organizationId, nameOf(r)));
      if (holder !== undefined && holder !== idOf(r)) {
        throw new StoreConflictError(constraints.name);
      }
      put(r, false);
    },
    async delete(org, id) {
      const key = k(org, id);
      const r = table.rows.get(key);
      if (!r) return;
      j.delete(table.rows, key);
      j.delete(table.seqOf, key);
      j.delete(table.byName, k(org, nameOf(r)));
    },
  };
}

/** Byte order of ids, as the SQL store's `COLLATE "C"` columns sort them. */
const compareIds = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

const unique = <V>(index: Map<string, V>, key: string, constraint: string) => {
  if (index.has(key)) throw new StoreConflictError(constraint);
};

/** Rows in insertion order (by their sequence numbers). */
const bySeq = <R>(rows: Map<string, R>, seq: Map<string, number>, keep: (r: R) => boolean) =>
  [...rows.entries()]
    .filter(([, r]) => keep(r))
    .sort(([a], [b]) => seq.get(a)! - seq.get(b)!)
    .map(([, r]) => r);

/**
 * Points a lookup index entry that named a removed record at the first remaining record
 * (insertion order) that shares the value, as the SQL store's `ORDER BY seq LIMIT 1` does.
 */
function repoint<R>(
  j: Journal,
  index: Map<string, string>,
  key: string,
  removedId: string,
  candidates: readonly R[],
  matches: (r: R) => boolean,
  idOf: (r: R) => string,
): void {
  if (index.get(key) !== removedId) return;
  const next = candidates.find(matches);
  if (next) j.set(index, key, idOf(next));
  else j.delete(index, key);
}

/** Pages an ascending list of ids: `after`/`before` cursors, at most `limit`. */
function pageOf(
  ids: readonly string[],
  page: PageRequest | undefined,
  newestFirst: boolean,
): string[] {
  const ordered = newestFirst ? [...ids].reverse() : [...ids];
  let start = 0;
  let end = ordered.length;
  if (page?.after !== undefined) {
    const i = ordered.indexOf(page.after);
    start = i === -1 ? ordered.length : i + 1;
  }
  if (page?.before !== undefined) {
    const i = ordered.indexOf(page.before);
    end = i === -1 ? 0 : i;
  }
  const slice = ordered.slice(start, Math.max(start, end));
  if (!page) return slice;
  // `before` alone asks for the page just ahead of the cursor.
  return page.before !== undefined && page.after === undefined
    ? slice.slice(Math.max(0, slice.length - page.limit))
    : slice.slice(0, page.limit);
}

function transactionOver(s: State, j: Journal): StoreTransaction {
  const deleteAccount = (org: string, id: string) => {
    const r = s.accounts.get(k(org, id));
    if (!r) return;
    j.delete(s.accounts, k(org, id));
    j.delete(s.accountSeq, k(org, id));
    j.delete(s.accountByPath, k(org, r.walletId, r.path));
    const rest = bySeq(s.accounts, s.accountSeq, (a) => a.organizationId === org);
    const address = addressKey(r.address);
    repoint(
      j,
      s.accountByAddress,
      k(org, address),
      id,
      rest,
      (a) => addressKey(a.address) === address,
      (a) => a.walletAccountId,
    );
    repoint(
      j,
      s.accountByPublicKey,
      k(org, r.publicKey),
      id,
      rest,
      (a) => a.publicKey === r.publicKey,
      (a) => a.walletAccountId,
    );
  };
  const tx: StoreTransaction = {
    organizations: {
      async get(id) {
        const r = s.organizations.get(id);
        return r && clone(r);
      },
      async insert(r) {
        unique(s.organizations, r.organizationId, 'organization_pkey');
        j.set(s.organizations, r.organizationId, clone(r));
      },
      async update(r) {
        j.set(s.organizations, r.organizationId, clone(r));
      },
      async findRootByName(name) {
        const orgs = [...s.organizations.values()].filter(
          (o) => !o.parentOrganizationId && o.name === name,
        );
        orgs.sort((a, b) => a.createdAt - b.createdAt);
        return orgs[0] && clone(orgs[0]);
      },
      async listChildren(parent) {
        return [...s.organizations.values()]
          .filter((o) => o.parentOrganizationId === parent)
          .sort(
            (a, b) => a.createdAt - b.createdAt || compareIds(a.organizationId, b.organizationId),
          )
          .map(clone);
      },
      async delete(org) {
        if (!s.organizations.has(org)) return;
        for (const a of await tx.walletAccounts.list(org)) deleteAccount(org, a.walletAccountId);
        for (const w of await tx.wallets.list(org)) await tx.wallets.delete(org, w.walletId);
        for (const p of await tx.privateKeys.list(org)) {
          await tx.privateKeys.delete(org, p.privateKeyId);
        }
        for (const key of await tx.apiKeys.listByOrganization(org)) {
          await tx.apiKeys.delete(org, key.apiKeyId);
        }
        for (const u of await tx.users.list(org)) await tx.users.delete(org, u.userId);
        for (const r of await tx.policies.list(org)) await tx.policies.delete(org, r.policyId);
        for (const r of await tx.userTags.list(org)) await tx.userTags.delete(org, r.tagId);
        for (const r of await tx.privateKeyTags.list(org)) {
          await tx.privateKeyTags.delete(org, r.tagId);
        }
        for (const e of await tx.webhookEndpoints.list(org)) {
          await tx.webhookEndpoints.delete(org, e.endpointId);
        }
        for (const [id, row] of [...s.deliveries]) {
          if (row.status === 'PENDING' && row.delivery.organizationId === org) {
            j.delete(s.deliveries, id);
          }
        }
        j.delete(s.organizations, org);
      },
    },
    users: {
      async get(org, id) {
        const r = s.users.get(k(org, id));
        return r && clone(r);
      },
      // Transactions run one at a time: a plain read already excludes concurrent writers.
      async getForUpdate(org, id) {
        const r = s.users.get(k(org, id));
        return r && clone(r);
      },
      async list(org) {
        return [...s.users.values()]
          .filter((u) => u.organizationId === org)
          .sort((a, b) => a.createdAt - b.createdAt)
          .map(clone);
      },
      async insert(r) {
        unique(s.users, k(r.organizationId, r.userId), 'user_pkey');
        j.set(s.users, k(r.organizationId, r.userId), clone(r));
      },
      async update(r) {
        j.set(s.users, k(r.organizationId, r.userId), clone(r));
      },
      async delete(org, id) {
        j.delete(s.users, k(org, id));
      },
    },
    apiKeys: {
      async get(org, id) {
        const r = s.apiKeys.get(k(org, id));
        return r && clone(r);
      },
      async listByUser(org, user) {
        return [...s.apiKeys.values()]
          .filter((a) => a.organizationId === org && a.userId === user)
          .sort((a, b) => a.createdAt - b.createdAt)
          .map(clone);
      },
      async listByOrganization(org) {
        return [...s.apiKeys.values()]
          .filter((a) => a.organizationId === org)
          .sort((a, b) => a.createdAt - b.createdAt)
          .map(clone);
      },
      async findByPublicKey(org, publicKey) {
        const id = s.apiKeyByPublicKey.get(k(org, publicKey));
        const r = id === undefined ? undefined : s.apiKeys.get(k(org, id));
        return r && clone(r);
      },
      async insert(r) {
        unique(s.apiKeys, k(r.organizationId, r.apiKeyId), 'api_key_pkey');
        unique(s.apiKeyByPublicKey, k(r.organizationId, r.publicKey), 'api_key_public_key');
        j.set(s.apiKeys, k(r.organizationId, r.apiKeyId), clone(r));
        j.set(s.apiKeyByPublicKey, k(r.organizationId, r.publicKey), r.apiKeyId);
        const holders = s.apiKeyOrganizationsByPublicKey.get(r.publicKey) ?? [];
        j.set(s.apiKeyOrganizationsByPublicKey, r.publicKey, [...holders, r.organizationId]);
      },
      async delete(org, id) {
        const r = s.apiKeys.get(k(org, id));
        if (!r) return;
        j.delete(s.apiKeys, k(org, id));
        j.delete(s.apiKeyByPublicKey, k(org, r.publicKey));
        const rest = (s.apiKeyOrganizationsByPublicKey.get(r.publicKey) ?? []).filter(
          (o) => o !== org,
        );
        if (rest.length > 0) j.set(s.apiKeyOrganizationsByPublicKey, r.publicKey, rest);
        else j.delete(s.apiKeyOrganizationsByPublicKey, r.publicKey);
      },
    },
    credentials: {
      async findApiKeys(publicKey, scope) {
        const found: ApiKeyCredential[] = [];
        const children: { credential: ApiKeyCredential; organization: OrganizationRecord }[] = [];
        for (const org of s.apiKeyOrganizationsByPublicKey.get(publicKey) ?? []) {
          const parentOfHolder = s.organizations.get(org)?.parentOrganizationId;
          const relation: CredentialRelation | undefined =
            org === scope.organizationId
              ? 'self'
              : org === scope.parentOrganizationId
                ? 'parent'
                : scope.includeChildren && parentOfHolder === scope.organizationId
                  ? 'child'
                  : undefined;
          if (!relation) continue;
          const apiKey = s.apiKeys.get(k(org, s.apiKeyByPublicKey.get(k(org, publicKey))!))!;
          const user = s.users.get(k(org, apiKey.userId));
          const credential: ApiKeyCredential = {
            relation,
            apiKey: clone(apiKey),
            ...(user ? { user: clone(user) } : {}),
          };
          if (relation === 'child') {
            children.push({ credential, organization: s.organizations.get(org)! });
          } else found.push(credential);
        }
        found.sort((a, b) => (a.relation === 'self' ? 0 : 1) - (b.relation === 'self' ? 0 : 1));
        children.sort(
          (a, b) =>
            a.organization.createdAt - b.organization.createdAt ||
            compareIds(a.organization.organizationId, b.organization.organizationId),
        );
        return [...found, ...children.slice(0, 2).map((c) => c.credential)];
      },
    },
    wallets: {
      async get(org, id) {
        const r = s.wallets.get(k(org, id));
        return r && clone(r);
      },
      async list(org) {
        return bySeq(s.wallets, s.walletSeq, (w) => w.organizationId === org)
          .sort((a, b) => a.createdAt - b.createdAt)
          .map(clone);
      },
      async insert(r) {
        unique(s.wallets, k(r.organizationId, r.walletId), 'wallet_pkey');
        j.set(s.wallets, k(r.organizationId, r.walletId), clone(r));
        j.set(s.walletSeq, k(r.organizationId, r.walletId), ++s.seq);
      },
      async update(r) {
        const key = k(r.organizationId, r.walletId);
        if (!s.walletSeq.has(key)) j.set(s.walletSeq, key, ++s.seq);
        j.set(s.wallets, key, clone(r));
      },
      async delete(org, id) {
        j.delete(s.wallets, k(org, id));
        j.delete(s.walletSeq, k(org, id));
      },
    },
    walletAccounts: {
      async list(org, walletId, page) {
        const ids = bySeq(
          s.accounts,
          s.accountSeq,
          (a) => a.organizationId === org && (walletId === undefined || a.walletId === walletId),
        ).map((a) => a.walletAccountId);
        return pageOf(ids, page, false).map((id) => clone(s.accounts.get(k(org, id))!));
      },
      async findByAddress(org, address) {
        const id = s.accountByAddress.get(k(org, addressKey(address)));
        return id === undefined ? undefined : clone(s.accounts.get(k(org, id))!);
      },
      async findByPublicKey(org, publicKey) {
        const id = s.accountByPublicKey.get(k(org, publicKey));
        return id === undefined ? undefined : clone(s.accounts.get(k(org, id))!);
      },
      async findByPath(org, walletId, path) {
        const id = s.accountByPath.get(k(org, walletId, path));
        return id === undefined ? undefined : clone(s.accounts.get(k(org, id))!);
      },
      async insert(r) {
        const org = r.organizationId;
        unique(s.accounts, k(org, r.walletAccountId), 'wallet_account_pkey');
        unique(s.accountByPath, k(org, r.walletId, r.path), 'wallet_account_path');
        j.set(s.accounts, k(org, r.walletAccountId), clone(r));
        j.set(s.accountSeq, k(org, r.walletAccountId), ++s.seq);
        j.set(s.accountByPath, k(org, r.walletId, r.path), r.walletAccountId);
        // The first account with an address or key answers lookups by it.
        if (!s.accountByAddress.has(k(org, addressKey(r.address)))) {
          j.set(s.accountByAddress, k(org, addressKey(r.address)), r.walletAccountId);
        }
        if (!s.accountByPublicKey.has(k(org, r.publicKey))) {
          j.set(s.accountByPublicKey, k(org, r.publicKey), r.walletAccountId);
        }
      },
      async markExported(org, id, updatedAt) {
        const r = s.accounts.get(k(org, id));
        // Only fields no index uses: the lookups by address, key and path stay as they are.
        if (r) j.set(s.accounts, k(org, id), { ...r, exported: true, updatedAt });
      },
      async delete(org, id) {
        deleteAccount(org, id);
      },
      async deleteByWallet(org, walletId) {
        for (const a of [...s.accounts.values()]) {
          if (a.organizationId === org && a.walletId === walletId) {
            deleteAccount(org, a.walletAccountId);
          }
        }
      },
    },
    privateKeys: {
      async get(org, id) {
        const r = s.privateKeys.get(k(org, id));
        return r && clone(r);
      },
      async list(org) {
        return bySeq(s.privateKeys, s.privateKeySeq, (p) => p.organizationId === org)
          .sort((a, b) => a.createdAt - b.createdAt)
          .map(clone);
      },
      async findByAddress(org, address) {
        const id = s.privateKeyByAddress.get(k(org, addressKey(address)));
        return id === undefined ? undefined : clone(s.privateKeys.get(k(org, id))!);
      },
      async findByPublicKey(org, publicKey) {
        const id = s.privateKeyByPublicKey.get(k(org, publicKey));
        return id === undefined ? undefined : clone(s.privateKeys.get(k(org, id))!);
      },
      async insert(r) {
        const org = r.organizationId;
        unique(s.privateKeys, k(org, r.privateKeyId), 'private_key_pkey');
        j.set(s.privateKeys, k(org, r.privateKeyId), clone(r));
        j.set(s.privateKeySeq, k(org, r.privateKeyId), ++s.seq);
        for (const a of r.addresses) {
          if (!s.privateKeyByAddress.has(k(org, addressKey(a.address)))) {
            j.set(s.privateKeyByAddress, k(org, addressKey(a.address)), r.privateKeyId);
          }
        }
        if (!s.privateKeyByPublicKey.has(k(org, r.publicKey))) {
          j.set(s.privateKeyByPublicKey, k(org, r.publicKey), r.privateKeyId);
        }
      },
      async update(r) {
        const key = k(r.organizationId, r.privateKeyId);
        if (!s.privateKeySeq.has(key)) j.set(s.privateKeySeq, key, ++s.seq);
        j.set(s.privateKeys, key, clone(r));
      },
      async delete(org, id) {
        const r = s.privateKeys.get(k(org, id));
        if (!r) return;
        j.delete(s.privateKeys, k(org, id));
        j.delete(s.privateKeySeq, k(org, id));
        const rest = bySeq(s.privateKeys, s.privateKeySeq, (p) => p.organizationId === org);
        for (const { address } of r.addresses) {
          const key = addressKey(address);
          repoint(
            j,
            s.privateKeyByAddress,
            k(org, key),
            id,
            rest,
            (p) => p.addresses.some((a) => addressKey(a.address) === key),
            (p) => p.privateKeyId,
          );
        }
        repoint(
          j,
          s.privateKeyByPublicKey,
          k(org, r.publicKey),
          id,
          rest,
          (p) => p.publicKey === r.publicKey,
          (p) => p.privateKeyId,
        );
      },
    },
    activities: {
      async get(org, id) {
        const r = s.activities.get(id);
        return r && r.organizationId === org ? clone(r) : undefined;
      },
      // Transactions run one at a time: a plain read already excludes concurrent votes.
      async getForUpdate(org, id) {
        const r = s.activities.get(id);
        return r && r.organizationId === org ? clone(r) : undefined;
      },
      async findByFingerprint(fingerprint) {
        const id = s.activityByFingerprint.get(fingerprint);
        return id === undefined ? undefined : clone(s.activities.get(id)!);
      },
      async list(org, filter: ActivityFilter, page) {
        const statuses = filter.statuses?.length ? new Set(filter.statuses) : undefined;
        const types = filter.types?.length ? new Set(filter.types) : undefined;
        const ids = (s.activityIdsByOrganization.get(org) ?? []).filter((id) => {
          const r = s.activities.get(id)!;
          return (!statuses || statuses.has(r.status)) && (!types || types.has(r.type));
        });
        return pageOf(ids, page, true).map((id) => clone(s.activities.get(id)!));
      },
      async insert(r) {
        unique(s.activities, r.id, 'activity_pkey');
        unique(s.activityByFingerprint, r.fingerprint, 'activity_fingerprint');
        j.set(s.activities, r.id, clone(r));
        j.set(s.activityByFingerprint, r.fingerprint, r.id);
        const list = s.activityIdsByOrganization.get(r.organizationId) ?? [];
        if (!s.activityIdsByOrganization.has(r.organizationId)) {
          j.set(s.activityIdsByOrganization, r.organizationId, list);
        }
        let at = list.length;
        while (at > 0 && list[at - 1]! > r.id) at--;
        list.splice(at, 0, r.id);
        j.onRollback(() => list.splice(list.indexOf(r.id), 1));
      },
      async update(r) {
        j.set(s.activities, r.id, clone(r));
      },
    },
    policies: namedRepository(
      s,
      j,
      s.policies,
      (r) => r.policyId,
      (r) => r.policyName,
      { pkey: 'policy_pkey', name: 'policy_name' },
    ),
    userTags: namedRepository(
      s,
      j,
      s.userTags,
      (r) => r.tagId,
      (r) => r.tagName,
      { pkey: 'user_tag_pkey', name: 'user_tag_name' },
    ),
    privateKeyTags: namedRepository(
      s,
      j,
      s.privateKeyTags,
      (r) => r.tagId,
      (r) => r.tagName,
      { pkey: 'private_key_tag_pkey', name: 'private_key_tag_name' },
    ),
    webhookEndpoints: {
      async get(org, id) {
        const r = s.webhookEndpoints.get(k(org, id));
        return r && clone(r);
      },
      async list(org) {
        return bySeq(s.webhookEndpoints, s.webhookEndpointSeq, (e) => e.organizationId === org)
          .sort((a, b) => a.createdAt - b.createdAt)
          .map(clone);
      },
      async insert(r) {
        const key = k(r.organizationId, r.endpointId);
        unique(s.webhookEndpoints, key, 'webhook_endpoint_pkey');
        j.set(s.webhookEndpoints, key, clone(r));
        j.set(s.webhookEndpointSeq, key, ++s.seq);
      },
      async update(r) {
        const key = k(r.organizationId, r.endpointId);
        if (!s.webhookEndpointSeq.has(key)) j.set(s.webhookEndpointSeq, key, ++s.seq);
        j.set(s.webhookEndpoints, key, clone(r));
      },
      async delete(org, id) {
        j.delete(s.webhookEndpoints, k(org, id));
        j.delete(s.webhookEndpointSeq, k(org, id));
        j.delete(s.webhookEndpointFailures, k(org, id));
      },
    },
    webhookDeliveries: {
      async insert(delivery) {
        unique(s.deliveries, delivery.deliveryId, 'webhook_delivery_pkey');
        j.set(s.deliveries, delivery.deliveryId, {
          delivery: clone(delivery),
          status: 'PENDING',
          seq: ++s.seq,
        });
      },
      async deletePending(org, endpointId) {
        for (const [id, row] of [...s.deliveries]) {
          const d = row.delivery;
          if (row.status === 'PENDING' && d.organizationId === org && d.endpointId === endpointId) {
            j.delete(s.deliveries, id);
          }
        }
      },
    },
    policyEvaluations: {
      async listByActivity(org, activityId) {
        return [...s.policyEvaluations.values()]
          .filter((e) => e.organizationId === org && e.activityId === activityId)
          .sort(
            (a, b) =>
              a.createdAt - b.createdAt ||
              s.policyEvaluationSeq.get(a.id)! - s.policyEvaluationSeq.get(b.id)!,
          )
          .map(clone);
      },
      async insert(r) {
        unique(s.policyEvaluations, r.id, 'policy_evaluation_pkey');
        j.set(s.policyEvaluations, r.id, clone(r));
        j.set(s.policyEvaluationSeq, r.id, ++s.seq);
      },
    },
  };
  return tx;
}

/**
 * Creates an in-memory Store.
 * @example
 * const store = new MemoryStore();
 * await store.transaction(async (tx) => tx.organizations.get(id));
 */
export class MemoryStore implements Store, Outbox {
  private readonly state = new State();
  private tail: Promise<unknown> = Promise.resolve();

  /** Runs `work` alone: after every transaction queued before it, before any queued after. */
  private exclusive<T>(work: () => T): Promise<T> {
    const run = async () => work();
    const result = this.tail.then(run, run);
    this.tail = result.catch(() => undefined);
    return result;
  }

  claimDue(now: number, limit: number, leaseMs: number): Promise<WebhookDelivery[]> {
    return this.exclusive(() => {
      const due = [...this.state.deliveries.values()]
        .filter(
          (r) =>
            r.status === 'PENDING' &&
            r.delivery.nextAttemptAt <= now &&
            (r.leaseUntil === undefined || r.leaseUntil <= now),
        )
        .sort((a, b) => a.delivery.createdAt - b.delivery.createdAt || a.seq - b.seq)
        .slice(0, Math.max(0, limit));
      for (const row of due) row.leaseUntil = now + leaseMs;
      return due.map((r) => clone(r.delivery));
    });
  }

  markDelivered(deliveryId: string, attempts: number, at: number): Promise<void> {
    return this.finish(deliveryId, { status: 'DELIVERED', attempts, finishedAt: at });
  }

  reschedule(
    deliveryId: string,
    attempts: number,
    nextAttemptAt: number,
    lastError: string,
  ): Promise<void> {
    return this.finish(deliveryId, { status: 'PENDING', attempts, nextAttemptAt, lastError });
  }

  markFailed(deliveryId: string, attempts: number, at: number, lastError: string): Promise<void> {
    return this.finish(deliveryId, { status: 'FAILED', attempts, finishedAt: at, lastError });
  }

  endpointDelivered(organizationId: string, endpointId: string): Promise<void> {
    return this.exclusive(() => {
      this.state.webhookEndpointFailures.delete(k(organizationId, endpointId));
    });
  }

  endpointFailed(organizationId: string, endpointId: string): Promise<number> {
    return this.exclusive(() => {
      const key = k(organizationId, endpointId);
      if (!this.state.webhookEndpoints.has(key)) return 0;
      const count = (this.state.webhookEndpointFailures.get(key) ?? 0) + 1;
      this.state.webhookEndpointFailures.set(key, count);
      return count;
    });
  }

  disableEndpoint(
    organizationId: string,
    endpointId: string,
    reason: string,
    at: number,
  ): Promise<boolean> {
    return this.exclusive(() => {
      const key = k(organizationId, endpointId);
      const endpoint = this.state.webhookEndpoints.get(key);
      if (!endpoint?.isActive) return false;
      this.state.webhookEndpoints.set(key, {
        ...endpoint,
        isActive: false,
        disabledReason: reason,
        updatedAt: at,
      });
      this.state.webhookEndpointFailures.delete(key);
      for (const row of this.state.deliveries.values()) {
        const d = row.delivery;
        if (row.status !== 'PENDING' || d.organizationId !== organizationId) continue;
        if (d.endpointId !== endpointId) continue;
        row.status = 'FAILED';
        row.finishedAt = at;
        row.lastError = `endpoint disabled: ${reason}`;
        delete row.leaseUntil;
      }
      return true;
    });
  }

  /** Records an attempt's outcome and releases the lease; an absent delivery is a no-op. */
  private finish(
    deliveryId: string,
    change: {
      status: WebhookDeliveryStatus;
      attempts: number;
      nextAttemptAt?: number;
      finishedAt?: number;
      lastError?: string;
    },
  ): Promise<void> {
    return this.exclusive(() => {
      const row = this.state.deliveries.get(deliveryId);
      if (!row) return;
      // Failed meanwhile (its endpoint was disabled): a retry must not bring it back.
      if (change.status === 'PENDING' && row.status !== 'PENDING') return;
      row.status = change.status;
      row.delivery = {
        ...row.delivery,
        attempts: change.attempts,
        nextAttemptAt: change.nextAttemptAt ?? row.delivery.nextAttemptAt,
      };
      delete row.leaseUntil;
      if (change.finishedAt !== undefined) row.finishedAt = change.finishedAt;
      if (change.lastError !== undefined) row.lastError = change.lastError;
    });
  }

  transaction<T>(work: (tx: StoreTransaction) => Promise<T>): Promise<T> {
    const run = async () => {
      const journal = new Journal();
      try {
        return await work(transactionOver(this.state, journal));
      } catch (error) {
        journal.rollback();
        throw error;
      }
    };
    const result = this.tail.then(run, run);
    this.tail = result.catch(() => undefined);
    return result;
  }

  async close(): Promise<void> {}
}

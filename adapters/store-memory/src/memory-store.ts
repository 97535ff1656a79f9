/**
 * The in-memory Store: every record in Maps with the same uniqueness rules as the SQL
 * store, transactions serialized one at a time and rolled back through an undo journal.
 * Records are cloned on the way in and out, so callers never share state with the store.
 * For tests, examples and embedding; state ends with the process.
 *
 * Each table is a MemoryTable built from its spec (@keyhold/store-tables), which does get,
 * list, insert, update, delete and the unique lookups; what is written out here is what
 * differs per table: the lookups by address and public key (the first inserted holder
 * answers), paging, the credential index, deleting an organization.
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
  AUDIT_GENESIS_HASH,
  type AuthenticatorCredential,
  addressKey,
  auditEntryHash,
  type CredentialRelation,
  type CredentialScope,
  type NamedRecordRepository,
  type OrganizationRecord,
  type PageRequest,
  type PrivateKeyRecord,
  type Store,
  StoreConflictError,
  type StoreTransaction,
  type WalletAccountRecord,
} from '@keyhold/activities';
import { STORE_TABLES } from '@keyhold/store-tables';
import type { Outbox, WebhookDelivery, WebhookDeliveryStatus } from '@keyhold/webhooks';
import { FirstHolderIndex } from './first-holder-index.js';
import { Journal } from './journal.js';
import { clone, k, MemoryTable } from './memory-table.js';

class State {
  seq = 0;
  private readonly next = () => ++this.seq;
  organizations = new MemoryTable(STORE_TABLES.organizations, this.next);
  /** Sub-organizations by parent, oldest first (an index: a tree's walk is its own size). */
  childrenOf = this.organizations.grouped(['parentOrganizationId']);
  childrenIn = this.organizations.counter(['parentOrganizationId']);
  users = new MemoryTable(STORE_TABLES.users, this.next);
  usersIn = this.users.counter(['organizationId']);
  apiKeys = new MemoryTable(STORE_TABLES.apiKeys, this.next);
  apiKeyByPublicKey = this.apiKeys.finder(['organizationId', 'publicKey']);
  apiKeysByUser = this.apiKeys.lister(['organizationId', 'userId']);
  /**
   * Credential index: public key → the organizations holding an API key with it (frozen
   * arrays, replaced on every key insert and delete, so the journal can undo them). Users are
   * read live, so deleting a user needs no entry here; deleting an organization deletes its keys.
   */
  apiKeyOrganizationsByPublicKey = new Map<string, readonly string[]>();
  authenticators = new MemoryTable(STORE_TABLES.authenticators, this.next);
  authenticatorByCredentialId = this.authenticators.finder(['organizationId', 'credentialId']);
  authenticatorsByUser = this.authenticators.lister(['organizationId', 'userId']);
  /** Credential index of passkeys: credential id → the organizations holding it (as above). */
  authenticatorOrganizationsByCredentialId = new Map<string, readonly string[]>();
  wallets = new MemoryTable(STORE_TABLES.wallets, this.next);
  walletsIn = this.wallets.counter(['organizationId']);
  accounts = new MemoryTable(STORE_TABLES.walletAccounts, this.next);
  accountsOf = this.accounts.grouped(['organizationId']);
  accountsIn = this.accounts.counter(['organizationId']);
  accountByPath = this.accounts.finder(['organizationId', 'walletId', 'path']);
  /** Address (addressKey) and public key → the first account inserted with it. */
  accountByAddress = new FirstHolderIndex<WalletAccountRecord>(
    (a) => [addressKey(a.address)],
    (a) => a.walletAccountId,
  );
  accountByPublicKey = new FirstHolderIndex<WalletAccountRecord>(
    (a) => [a.publicKey],
    (a) => a.walletAccountId,
  );
  privateKeys = new MemoryTable(STORE_TABLES.privateKeys, this.next);
  privateKeysOf = this.privateKeys.grouped(['organizationId']);
  privateKeysIn = this.privateKeys.counter(['organizationId']);
  /** Address (addressKey) and public key → the first private key inserted with it. */
  privateKeyByAddress = new FirstHolderIndex<PrivateKeyRecord>(
    (p) => p.addresses.map((a) => addressKey(a.address)),
    (p) => p.privateKeyId,
  );
  privateKeyByPublicKey = new FirstHolderIndex<PrivateKeyRecord>(
    (p) => [p.publicKey],
    (p) => p.privateKeyId,
  );
  activities = new MemoryTable(STORE_TABLES.activities, this.next);
  activityByFingerprint = this.activities.finder(['fingerprint']);
  /** Activity ids per organization, ascending. */
  activityIdsByOrganization = new Map<string, string[]>();
  policies = new MemoryTable(STORE_TABLES.policies, this.next);
  policiesIn = this.policies.counter(['organizationId']);
  userTags = new MemoryTable(STORE_TABLES.userTags, this.next);
  privateKeyTags = new MemoryTable(STORE_TABLES.privateKeyTags, this.next);
  policyEvaluations = new MemoryTable(STORE_TABLES.policyEvaluations, this.next);
  policyEvaluationsByActivity = this.policyEvaluations.lister(['organizationId', 'activityId']);
  webhookEndpoints = new MemoryTable(STORE_TABLES.webhookEndpoints, this.next);
  otps = new MemoryTable(STORE_TABLES.otps, this.next);
  auditEntries = new MemoryTable(STORE_TABLES.auditEntries, this.next);
  auditHeads = new MemoryTable(STORE_TABLES.auditHeads, this.next);
  invitations = new MemoryTable(STORE_TABLES.invitations, this.next);
  oauth2Credentials = new MemoryTable(STORE_TABLES.oauth2Credentials, this.next);
  smartContractInterfaces = new MemoryTable(STORE_TABLES.smartContractInterfaces, this.next);
  smartContractInterfaceByAddress = this.smartContractInterfaces.finder([
    'organizationId',
    'type',
    'addressKey',
  ]);
  organizationDocuments = new MemoryTable(STORE_TABLES.organizationDocuments, this.next);
  payments = new MemoryTable(STORE_TABLES.payments, this.next);
  sendTransactions = new MemoryTable(STORE_TABLES.sendTransactions, this.next);
  gasUsageConfigs = new MemoryTable(STORE_TABLES.gasUsageConfigs, this.next);
  fiatOnRampCredentials = new MemoryTable(STORE_TABLES.fiatOnRampCredentials, this.next);
  onRampTransactions = new MemoryTable(STORE_TABLES.onRampTransactions, this.next);
  paymentByAuthorization = this.payments.finder(['authorizationKey']);
  paymentsByStatus = this.payments.lister(['status']);
  oauthProviders = new MemoryTable(STORE_TABLES.oauthProviders, this.next);
  oauthProviderByIdentity = this.oauthProviders.finder([
    'organizationId',
    'issuer',
    'audience',
    'subject',
  ]);
  /** Consecutive FAILED deliveries per endpoint (absent: none); the dispatcher's bookkeeping. */
  webhookEndpointFailures = new Map<string, number>();
  deliveries = new Map<string, DeliveryRow>();
  /**
   * The PENDING rows of `deliveries` (the same objects), so a claim, a count or an endpoint's
   * clean-up reads the outbox's backlog, not every delivery ever made.
   */
  pendingDeliveries = new Map<string, DeliveryRow>();
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

/** Byte order of ids, as the SQL store's `COLLATE "C"` columns sort them. */
const compareIds = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** A policy or tag table's repository: the table's, and the lookup by name. */
function namedRepository<R>(
  table: MemoryTable<R>,
  j: Journal,
  nameField: keyof R & string,
): NamedRecordRepository<R> {
  const byName = table.finder(['organizationId' as keyof R & string, nameField]);
  return {
    ...table.over(j),
    async findByName(org, name) {
      const r = byName(org, name);
      return r && clone(r);
    },
  };
}

/** The copy of a row that a lookup index names. */
const indexed = <R>(table: MemoryTable<R>, id: string | undefined, org: string) => {
  const r = id === undefined ? undefined : table.rows.get(k(org, id));
  return r && clone(r);
};

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

/**
 * The credentials one lookup finds among the organizations holding a public key or credential
 * id: the scope's own, its parent's, then at most two of its sub-organizations' (by
 * `createdAt`, ties by id), each with its user.
 */
function credentialsIn<C extends { relation: CredentialRelation }>(
  s: State,
  holders: readonly string[],
  scope: CredentialScope,
  credentialOf: (org: string, relation: CredentialRelation) => C,
): C[] {
  const found: C[] = [];
  const children: { credential: C; organization: OrganizationRecord }[] = [];
  for (const org of holders) {
    const parentOfHolder = s.organizations.rows.get(org)?.parentOrganizationId;
    const relation: CredentialRelation | undefined =
      org === scope.organizationId
        ? 'self'
        : org === scope.parentOrganizationId
          ? 'parent'
          : scope.includeChildren && parentOfHolder === scope.organizationId
            ? 'child'
            : undefined;
    if (!relation) continue;
    const credential = credentialOf(org, relation);
    if (relation === 'child') {
      children.push({ credential, organization: s.organizations.rows.get(org)! });
    } else found.push(credential);
  }
  found.sort((a, b) => (a.relation === 'self' ? 0 : 1) - (b.relation === 'self' ? 0 : 1));
  children.sort(
    (a, b) =>
      a.organization.createdAt - b.organization.createdAt ||
      compareIds(a.organization.organizationId, b.organization.organizationId),
  );
  return [...found, ...children.slice(0, 2).map((c) => c.credential)];
}

/** Adds or removes one organization among the holders of a credential in a credential index. */
function indexHolder(
  j: Journal,
  index: Map<string, readonly string[]>,
  value: string,
  org: string,
  holds: boolean,
): void {
  const others = (index.get(value) ?? []).filter((o) => o !== org);
  const holders = holds ? [...others, org] : others;
  if (holders.length > 0) j.set(index, value, holders);
  else j.delete(index, value);
}

/**
 * The repositories of the store, writing through the journal of the running transaction.
 * Built once per store (building them per transaction cost more than a transaction's work).
 */
function transactionOver(s: State, j: Journal): StoreTransaction {
  const apiKeys = s.apiKeys.over(j);
  const authenticators = s.authenticators.over(j);
  const organizations = s.organizations.over(j);
  const accounts = s.accounts.over(j);
  const privateKeys = s.privateKeys.over(j);
  const activities = s.activities.over(j);
  const webhookEndpoints = s.webhookEndpoints.over(j);
  const deleteAccount = async (org: string, id: string) => {
    const r = s.accounts.rows.get(k(org, id));
    if (!r) return;
    await accounts.delete(org, id);
    const rest = s.accountsOf(org);
    s.accountByAddress.remove(j, r, rest);
    s.accountByPublicKey.remove(j, r, rest);
  };
  /** Drops the PENDING deliveries `match` keeps (delivered and failed ones stay as a log). */
  const deletePendingWhere = (match: (delivery: WebhookDelivery) => boolean) => {
    for (const [id, row] of [...s.pendingDeliveries]) {
      if (!match(row.delivery)) continue;
      j.delete(s.deliveries, id);
      j.delete(s.pendingDeliveries, id);
    }
  };
  const tx: StoreTransaction = {
    organizations: {
      ...organizations,
      async getWithActivity(org, fingerprint) {
        const organization = await tx.organizations.get(org);
        const activity = await tx.activities.findByFingerprint(fingerprint);
        return { ...(organization ? { organization } : {}), ...(activity ? { activity } : {}) };
      },
      async findRootByName(name) {
        const orgs = [...s.organizations.rows.values()].filter(
          (o) => !o.parentOrganizationId && o.name === name,
        );
        orgs.sort((a, b) => a.createdAt - b.createdAt);
        return orgs[0] && clone(orgs[0]);
      },
      async listRoots() {
        return [...s.organizations.rows.values()]
          .filter((o) => !o.parentOrganizationId)
          .sort(
            (a, b) => a.createdAt - b.createdAt || compareIds(a.organizationId, b.organizationId),
          )
          .map(clone);
      },
      async countResources(org) {
        return {
          users: s.usersIn(org),
          wallets: s.walletsIn(org),
          walletAccounts: s.accountsIn(org),
          privateKeys: s.privateKeysIn(org),
          policies: s.policiesIn(org),
          subOrganizations: s.childrenIn(org),
        };
      },
      async listChildren(parent) {
        return s
          .childrenOf(parent)
          .sort(
            (a, b) => a.createdAt - b.createdAt || compareIds(a.organizationId, b.organizationId),
          )
          .map(clone);
      },
      async delete(org) {
        if (!s.organizations.rows.has(org)) return;
        for (const a of await tx.walletAccounts.list(org))
          await deleteAccount(org, a.walletAccountId);
        for (const w of await tx.wallets.list(org)) await tx.wallets.delete(org, w.walletId);
        for (const p of await tx.privateKeys.list(org)) {
          await tx.privateKeys.delete(org, p.privateKeyId);
        }
        for (const key of await tx.apiKeys.listByOrganization(org)) {
          await tx.apiKeys.delete(org, key.apiKeyId);
        }
        for (const a of await tx.authenticators.listByOrganization(org)) {
          await tx.authenticators.delete(org, a.authenticatorId);
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
        for (const o of await tx.otps.list(org)) await tx.otps.delete(org, o.otpId);
        for (const i of await tx.invitations.list(org)) {
          await tx.invitations.delete(org, i.invitationId);
        }
        for (const c of await tx.oauth2Credentials.list(org)) {
          await tx.oauth2Credentials.delete(org, c.oauth2CredentialId);
        }
        for (const p of await tx.oauthProviders.list(org)) {
          await tx.oauthProviders.delete(org, p.providerId);
        }
        for (const c of await tx.smartContractInterfaces.list(org)) {
          await tx.smartContractInterfaces.delete(org, c.smartContractInterfaceId);
        }
        for (const d of await tx.organizationDocuments.list(org)) {
          await tx.organizationDocuments.delete(org, d.kind, d.documentId);
        }
        for (const r of await tx.sendTransactions.list(org)) {
          await s.sendTransactions.over(j).delete(org, r.sendTransactionStatusId);
        }
        for (const r of await tx.gasUsageConfigs.list(org)) {
          await s.gasUsageConfigs.over(j).delete(org, r.gasUsageConfigId);
        }
        for (const c of await tx.fiatOnRampCredentials.list(org)) {
          await tx.fiatOnRampCredentials.delete(org, c.fiatOnrampCredentialId);
        }
        for (const r of await tx.onRampTransactions.list(org)) {
          await tx.onRampTransactions.delete(org, r.transactionId);
        }
        deletePendingWhere((d) => d.organizationId === org);
        await organizations.delete(org);
      },
    },
    users: s.users.over(j),
    apiKeys: {
      ...apiKeys,
      async listByUser(org, user) {
        return s.apiKeysByUser(org, user).map(clone);
      },
      listByOrganization: apiKeys.list,
      async findByPublicKey(org, publicKey) {
        const r = s.apiKeyByPublicKey(org, publicKey);
        return r && clone(r);
      },
      async insert(r) {
        await apiKeys.insert(r);
        const holders = s.apiKeyOrganizationsByPublicKey.get(r.publicKey) ?? [];
        j.set(s.apiKeyOrganizationsByPublicKey, r.publicKey, [...holders, r.organizationId]);
      },
      async delete(org, id) {
        const r = s.apiKeys.rows.get(k(org, id));
        if (!r) return;
        await apiKeys.delete(org, id);
        const rest = (s.apiKeyOrganizationsByPublicKey.get(r.publicKey) ?? []).filter(
          (o) => o !== org,
        );
        if (rest.length > 0) j.set(s.apiKeyOrganizationsByPublicKey, r.publicKey, rest);
        else j.delete(s.apiKeyOrganizationsByPublicKey, r.publicKey);
      },
    },
    authenticators: {
      ...authenticators,
      async listByUser(org, user) {
        return s.authenticatorsByUser(org, user).map(clone);
      },
      listByOrganization: authenticators.list,
      async findByCredentialId(org, credentialId) {
        const r = s.authenticatorByCredentialId(org, credentialId);
        return r && clone(r);
      },
      async insert(r) {
        await authenticators.insert(r);
        indexHolder(
          j,
          s.authenticatorOrganizationsByCredentialId,
          r.credentialId,
          r.organizationId,
          true,
        );
      },
      async delete(org, id) {
        const r = s.authenticators.rows.get(k(org, id));
        if (!r) return;
        await authenticators.delete(org, id);
        indexHolder(j, s.authenticatorOrganizationsByCredentialId, r.credentialId, org, false);
      },
      async advanceSignCount(org, id, signCount) {
        const r = s.authenticators.rows.get(k(org, id));
        if (!r || r.signCount >= signCount) return false;
        // Only a field no index uses.
        j.set(s.authenticators.rows, k(org, id), { ...r, signCount });
        return true;
      },
    },
    credentials: {
      async findApiKeys(publicKey, scope) {
        const holders = s.apiKeyOrganizationsByPublicKey.get(publicKey) ?? [];
        return credentialsIn(s, holders, scope, (org, relation): ApiKeyCredential => {
          const apiKey = s.apiKeyByPublicKey(org, publicKey)!;
          const user = s.users.rows.get(k(org, apiKey.userId));
          return {
            relation,
            apiKey: clone(apiKey),
            ...(user
              ? {
                  user: clone(user),
                  userApiKeys: s.apiKeysByUser(org, apiKey.userId).map(clone),
                  userAuthenticators: s.authenticatorsByUser(org, apiKey.userId).map(clone),
                }
              : {}),
          };
        });
      },
      async findAuthenticators(credentialId, scope) {
        const holders = s.authenticatorOrganizationsByCredentialId.get(credentialId) ?? [];
        return credentialsIn(s, holders, scope, (org, relation): AuthenticatorCredential => {
          const authenticator = s.authenticatorByCredentialId(org, credentialId)!;
          const user = s.users.rows.get(k(org, authenticator.userId));
          return {
            relation,
            authenticator: clone(authenticator),
            ...(user ? { user: clone(user) } : {}),
          };
        });
      },
    },
    wallets: s.wallets.over(j),
    walletAccounts: {
      async list(org, walletId, page) {
        const ids = s
          .accountsOf(org)
          .filter((a) => walletId === undefined || a.walletId === walletId)
          .map((a) => a.walletAccountId);
        return pageOf(ids, page, false).map((id) => clone(s.accounts.rows.get(k(org, id))!));
      },
      async findByAddress(org, address) {
        return indexed(s.accounts, s.accountByAddress.get(org, addressKey(address)), org);
      },
      async findByPublicKey(org, publicKey) {
        return indexed(s.accounts, s.accountByPublicKey.get(org, publicKey), org);
      },
      async findByPath(org, walletId, path) {
        const r = s.accountByPath(org, walletId, path);
        return r && clone(r);
      },
      async insert(r) {
        await accounts.insert(r);
        // The first account with an address or key answers lookups by it.
        s.accountByAddress.add(j, r);
        s.accountByPublicKey.add(j, r);
      },
      async markExported(org, id, updatedAt) {
        const r = s.accounts.rows.get(k(org, id));
        // Only fields no index uses: the lookups by address, key and path stay as they are.
        if (r) j.set(s.accounts.rows, k(org, id), { ...r, exported: true, updatedAt });
      },
      delete: deleteAccount,
      async deleteByWallet(org, walletId) {
        // The organization's accounts only, not every organization's.
        for (const a of s.accountsOf(org)) {
          if (a.walletId === walletId) await deleteAccount(org, a.walletAccountId);
        }
      },
    },
    privateKeys: {
      ...privateKeys,
      async findByAddress(org, address) {
        return indexed(s.privateKeys, s.privateKeyByAddress.get(org, addressKey(address)), org);
      },
      async findByPublicKey(org, publicKey) {
        return indexed(s.privateKeys, s.privateKeyByPublicKey.get(org, publicKey), org);
      },
      async insert(r) {
        await privateKeys.insert(r);
        s.privateKeyByAddress.add(j, r);
        s.privateKeyByPublicKey.add(j, r);
      },
      async delete(org, id) {
        const r = s.privateKeys.rows.get(k(org, id));
        if (!r) return;
        await privateKeys.delete(org, id);
        const rest = s.privateKeysOf(org);
        s.privateKeyByAddress.remove(j, r, rest);
        s.privateKeyByPublicKey.remove(j, r, rest);
      },
    },
    activities: {
      get: activities.get,
      getForUpdate: activities.getForUpdate,
      update: activities.update,
      async findByFingerprint(fingerprint) {
        const r = s.activityByFingerprint(fingerprint);
        return r && clone(r);
      },
      async list(org, filter: ActivityFilter, page) {
        const statuses = filter.statuses?.length ? new Set(filter.statuses) : undefined;
        const types = filter.types?.length ? new Set(filter.types) : undefined;
        const ids = (s.activityIdsByOrganization.get(org) ?? []).filter((id) => {
          const r = s.activities.rows.get(id)!;
          return (!statuses || statuses.has(r.status)) && (!types || types.has(r.type));
        });
        return pageOf(ids, page, true).map((id) => clone(s.activities.rows.get(id)!));
      },
      async countInTree(root, filter: ActivityFilter, sinceMs) {
        const statuses = filter.statuses?.length ? new Set(filter.statuses) : undefined;
        const types = filter.types?.length ? new Set(filter.types) : undefined;
        // The tree's own activities only: the root's and its children's.
        let count = 0;
        for (const org of [root, ...s.childrenOf(root).map((o) => o.organizationId)]) {
          for (const id of s.activityIdsByOrganization.get(org) ?? []) {
            const r = s.activities.rows.get(id)!;
            if (r.createdAt < sinceMs) continue;
            if ((!statuses || statuses.has(r.status)) && (!types || types.has(r.type))) count++;
          }
        }
        return count;
      },
      async insert(r: ActivityRecord) {
        await activities.insert(r);
        const list = s.activityIdsByOrganization.get(r.organizationId) ?? [];
        if (!s.activityIdsByOrganization.has(r.organizationId)) {
          j.set(s.activityIdsByOrganization, r.organizationId, list);
        }
        let at = list.length;
        while (at > 0 && list[at - 1]! > r.id) at--;
        list.splice(at, 0, r.id);
        j.onRollback(() => list.splice(list.indexOf(r.id), 1));
      },
      // The three writes in turn: the insert throws a conflict before the others write.
      async insertDecided(r, evaluation, audit) {
        await tx.activities.insert(r);
        await tx.policyEvaluations.insert(evaluation);
        await tx.auditLog.append(r.organizationId, audit.body, audit.now);
      },
      async updateDecided(r, evaluation, audit) {
        await tx.activities.update(r);
        await tx.policyEvaluations.insert(evaluation);
        await tx.auditLog.append(r.organizationId, audit.body, audit.now);
      },
    },
    policies: namedRepository(s.policies, j, 'policyName'),
    userTags: namedRepository(s.userTags, j, 'tagName'),
    privateKeyTags: namedRepository(s.privateKeyTags, j, 'tagName'),
    webhookEndpoints: {
      ...webhookEndpoints,
      async delete(org, id) {
        await webhookEndpoints.delete(org, id);
        j.delete(s.webhookEndpointFailures, k(org, id));
      },
    },
    webhookDeliveries: {
      async insert(delivery) {
        if (s.deliveries.has(delivery.deliveryId)) {
          throw new StoreConflictError('webhook_delivery_pkey');
        }
        const row: DeliveryRow = { delivery: clone(delivery), status: 'PENDING', seq: ++s.seq };
        j.set(s.deliveries, delivery.deliveryId, row);
        j.set(s.pendingDeliveries, delivery.deliveryId, row);
      },
      async deletePending(org, endpointId) {
        deletePendingWhere((d) => d.organizationId === org && d.endpointId === endpointId);
      },
    },
    otps: s.otps.over(j),
    auditLog: {
      // Transactions run one at a time here: reading the head and writing it is atomic.
      async append(org, body, now) {
        const heads = s.auditHeads.over(j);
        const head = await heads.get(org);
        const seq = (head?.seq ?? 0) + 1;
        const hash = auditEntryHash(head?.hash ?? AUDIT_GENESIS_HASH, body);
        await s.auditEntries
          .over(j)
          .insert({ organizationId: org, seq, body, hash, createdAt: now });
        await heads.update({
          organizationId: org,
          seq,
          hash,
          createdAt: head?.createdAt ?? now,
          updatedAt: now,
        });
      },
      async list(org, fromSeq, limit) {
        const entries = s.auditEntries.over(j);
        const page = [];
        for (let seq = fromSeq; page.length < limit; seq++) {
          const entry = await entries.get(org, String(seq));
          if (!entry) break;
          page.push(entry);
        }
        return page;
      },
      async heads() {
        return [...s.auditHeads.rows.values()]
          .map(clone)
          .sort((a, b) => compareIds(a.organizationId, b.organizationId));
      },
    },
    invitations: s.invitations.over(j),
    oauth2Credentials: s.oauth2Credentials.over(j),
    smartContractInterfaces: {
      ...s.smartContractInterfaces.over(j),
      async findByAddress(org, type, addressKey) {
        const r = s.smartContractInterfaceByAddress(org, type, addressKey);
        return r && clone(r);
      },
    },
    organizationDocuments: s.organizationDocuments.over(j),
    sendTransactions: s.sendTransactions.over(j),
    gasUsageConfigs: s.gasUsageConfigs.over(j),
    fiatOnRampCredentials: s.fiatOnRampCredentials.over(j),
    onRampTransactions: s.onRampTransactions.over(j),
    payments: {
      ...s.payments.over(j),
      async findByAuthorization(authorizationKey) {
        const r = s.paymentByAuthorization(authorizationKey);
        return r && clone(r);
      },
      async listByStatus(status) {
        return s.paymentsByStatus(status).map(clone);
      },
    },
    oauthProviders: {
      ...s.oauthProviders.over(j),
      async findByIdentity(org, issuer, audience, subject) {
        const r = s.oauthProviderByIdentity(org, issuer, audience, subject);
        return r && clone(r);
      },
    },
    policyEvaluations: {
      async listByActivity(org, activityId) {
        return s.policyEvaluationsByActivity(org, activityId).map(clone);
      },
      insert: s.policyEvaluations.over(j).insert,
    },
    async savepoint(work) {
      const mark = j.mark();
      try {
        return await work();
      } catch (error) {
        j.rollbackTo(mark);
        throw error;
      }
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
  /** One journal and one set of repositories for every transaction: they run one at a time. */
  private readonly journal = new Journal();
  private readonly repositories = transactionOver(this.state, this.journal);
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
      const due = [...this.state.pendingDeliveries.values()]
        .filter(
          (r) =>
            r.delivery.nextAttemptAt <= now && (r.leaseUntil === undefined || r.leaseUntil <= now),
        )
        .sort((a, b) => a.delivery.createdAt - b.delivery.createdAt || a.seq - b.seq)
        .slice(0, Math.max(0, limit));
      for (const row of due) row.leaseUntil = now + leaseMs;
      return due.map((r) => clone(r.delivery));
    });
  }

  countPending(): Promise<number> {
    return this.exclusive(() => this.state.pendingDeliveries.size);
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
      if (!this.state.webhookEndpoints.rows.has(key)) return 0;
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
      const endpoint = this.state.webhookEndpoints.rows.get(key);
      if (!endpoint?.isActive) return false;
      this.state.webhookEndpoints.rows.set(key, {
        ...endpoint,
        isActive: false,
        disabledReason: reason,
        updatedAt: at,
      });
      this.state.webhookEndpointFailures.delete(key);
      for (const [id, row] of [...this.state.pendingDeliveries]) {
        const d = row.delivery;
        if (d.organizationId !== organizationId || d.endpointId !== endpointId) continue;
        this.state.pendingDeliveries.delete(id);
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
      if (change.status !== 'PENDING') this.state.pendingDeliveries.delete(deliveryId);
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
      this.journal.begin();
      try {
        const result = await work(this.repositories);
        this.journal.commit();
        return result;
      } catch (error) {
        this.journal.rollback();
        throw error;
      }
    };
    const result = this.tail.then(run, run);
    this.tail = result.catch(() => undefined);
    return result;
  }

  async close(): Promise<void> {}
}

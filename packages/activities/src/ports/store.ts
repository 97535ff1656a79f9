/**
 * The Store port: a transactional unit of work with one repository per record. Every
 * repository returns copies; mutating a returned record changes nothing until it is written
 * back. A constraint the Store enforces (one activity per fingerprint, unique paths per
 * wallet, unique API-key public keys and passkey credential ids per organization, unique
 * policy and tag names per organization) surfaces as a StoreConflictError.
 * @module
 */

import type { ActivityStatus, ActivityType } from '@keyhold/protocol';
import type { WebhookDelivery } from '@keyhold/webhooks';
import type {
  ActivityRecord,
  ApiKeyRecord,
  AuditEntryRecord,
  AuditHeadRecord,
  AuthenticatorRecord,
  FiatOnRampCredentialRecord,
  GasUsageConfigRecord,
  InvitationRecord,
  Oauth2CredentialRecord,
  OauthProviderRecord,
  OnRampTransactionRecord,
  OrganizationDocumentKind,
  OrganizationDocumentRecord,
  OrganizationRecord,
  OtpRecord,
  PaymentRecord,
  PaymentStatus,
  PolicyEvaluationRecord,
  PolicyRecord,
  PrivateKeyRecord,
  SendTransactionRecord,
  SmartContractInterfaceRecord,
  TagRecord,
  UserRecord,
  WalletAccountRecord,
  WalletRecord,
  WebhookEndpointRecord,
} from '../records.js';
import { PortError, portErrorCodeOf } from './port-error.js';

/** A page request: at most `limit` records after/before a cursor (a record id). */
export interface PageRequest {
  limit: number;
  /** Records that come after this id in the listing order. */
  after?: string;
  /** Records that come before this id in the listing order. */
  before?: string;
}

/** Which activities `ActivityRepository.list` returns. */
export interface ActivityFilter {
  statuses?: readonly ActivityStatus[];
  types?: readonly ActivityType[];
}

/** How many of each limited resource one organization holds (see `resource-limits.ts`). */
export interface ResourceCounts {
  readonly users: number;
  readonly wallets: number;
  readonly walletAccounts: number;
  readonly privateKeys: number;
  readonly policies: number;
  /** Its direct sub-organizations. */
  readonly subOrganizations: number;
}

/** Organizations and their sub-organizations. */
export interface OrganizationRepository {
  get(organizationId: string): Promise<OrganizationRecord | undefined>;
  /**
   * `get(organizationId)` and `activities.findByFingerprint(fingerprint)` in one read (one
   * statement on the SQL store): what every submission reads first.
   */
  getWithActivity(
    organizationId: string,
    fingerprint: string,
  ): Promise<{ organization?: OrganizationRecord; activity?: ActivityRecord }>;
  insert(record: OrganizationRecord): Promise<void>;
  update(record: OrganizationRecord): Promise<void>;
  /** The first organization created without a parent (bootstrap reuse). */
  findRootByName(name: string): Promise<OrganizationRecord | undefined>;
  /** The sub-organizations of an organization, by `createdAt`, ties by organization id. */
  listChildren(parentOrganizationId: string): Promise<OrganizationRecord[]>;
  /**
   * What the organization holds of each limited resource, as this transaction sees it (its
   * own writes included): one read, not a listing, since it runs on every creating activity
   * of a server with resource limits.
   */
  countResources(organizationId: string): Promise<ResourceCounts>;
  /**
   * Every organization without a parent (each bootstrap made one), by `createdAt`, ties by
   * organization id: an operator's lookup (`keyhold whoami`), not a request path.
   */
  listRoots(): Promise<OrganizationRecord[]>;
  /**
   * Removes the organization and every record in it: users, API keys, passkeys, wallets, wallet
   * accounts, private keys, policies, user and private-key tags, webhook endpoints and their
   * PENDING deliveries. Its activities and policy evaluations stay (the audit trail; they are
   * no longer reachable through the API). An absent organization is a no-op.
   */
  delete(organizationId: string): Promise<void>;
}

/** The users of an organization. */
export interface UserRepository {
  get(organizationId: string, userId: string): Promise<UserRecord | undefined>;
  /**
   * The user, locked until the transaction ends: another transaction's `getForUpdate` of the
   * same user (on another instance too) waits. Serializes what counts a user's records
   * against a limit, such as API keys.
   */
  getForUpdate(organizationId: string, userId: string): Promise<UserRecord | undefined>;
  list(organizationId: string): Promise<UserRecord[]>;
  insert(record: UserRecord): Promise<void>;
  update(record: UserRecord): Promise<void>;
  delete(organizationId: string, userId: string): Promise<void>;
}

/** The API keys of users. */
export interface ApiKeyRepository {
  get(organizationId: string, apiKeyId: string): Promise<ApiKeyRecord | undefined>;
  listByUser(organizationId: string, userId: string): Promise<ApiKeyRecord[]>;
  listByOrganization(organizationId: string): Promise<ApiKeyRecord[]>;
  findByPublicKey(organizationId: string, publicKey: string): Promise<ApiKeyRecord | undefined>;
  insert(record: ApiKeyRecord): Promise<void>;
  delete(organizationId: string, apiKeyId: string): Promise<void>;
}

/** The passkeys of users. */
export interface AuthenticatorRepository {
  get(organizationId: string, authenticatorId: string): Promise<AuthenticatorRecord | undefined>;
  /** A user's passkeys, by `createdAt`, ties in insertion order. */
  listByUser(organizationId: string, userId: string): Promise<AuthenticatorRecord[]>;
  /** Every passkey of an organization, in the same order. */
  listByOrganization(organizationId: string): Promise<AuthenticatorRecord[]>;
  findByCredentialId(
    organizationId: string,
    credentialId: string,
  ): Promise<AuthenticatorRecord | undefined>;
  /**
   * Throws StoreConflictError `authenticator_credential_id` when the organization holds the
   * credential id already.
   */
  insert(record: AuthenticatorRecord): Promise<void>;
  delete(organizationId: string, authenticatorId: string): Promise<void>;
  /**
   * Records an accepted assertion's signature counter, only if it is above the stored one, in
   * one statement: of two requests racing with the same counter (a replay), on any instance,
   * one moves it and the other gets false. `updatedAt` stays: using a passkey does not change
   * it.
   */
  advanceSignCount(
    organizationId: string,
    authenticatorId: string,
    signCount: number,
  ): Promise<boolean>;
}

/**
 * Where a stamp's credential sits relative to the organization a request names: in it, in its
 * parent, or in one of its sub-organizations (whoami at the parent by a sub-organization's user).
 */
export type CredentialRelation = 'self' | 'parent' | 'child';

/** The organizations one credential lookup covers. */
export interface CredentialScope {
  /** The organization the request names. */
  organizationId: string;
  /** Its parent, when it has one. */
  parentOrganizationId?: string;
  /** Also the sub-organizations of `organizationId` (only whoami looks there). */
  includeChildren: boolean;
}

/** One API key that holds the looked-up public key, with the user it belongs to. */
export interface ApiKeyCredential {
  relation: CredentialRelation;
  apiKey: ApiKeyRecord;
  /** Undefined when no such user exists in the key's organization (a user deleted alone). */
  user?: UserRecord;
  /**
   * Every API key of that user, in creation order (what a vote records of its voter), read in
   * the same lookup so authenticating and voting cost one round trip; absent with `user`.
   */
  userApiKeys?: ApiKeyRecord[];
  /** Every passkey of that user, in creation order, read in the same lookup; absent with `user`. */
  userAuthenticators?: AuthenticatorRecord[];
}

/** One passkey that holds the looked-up credential id, with the user it belongs to. */
export interface AuthenticatorCredential {
  relation: CredentialRelation;
  authenticator: AuthenticatorRecord;
  /** Undefined when no such user exists in the passkey's organization. */
  user?: UserRecord;
}

/**
 * Credential lookup for authentication: one indexed lookup by public key (API keys) or
 * credential id (passkeys), whatever the size of the organization tree, so an unknown
 * credential costs the same at 10 and 10 000 sub-organizations.
 */
export interface CredentialRepository {
  /** As `findApiKeys`, for the passkeys with this credential id (base64url, no padding). */
  findAuthenticators(
    credentialId: string,
    scope: CredentialScope,
  ): Promise<AuthenticatorCredential[]>;
  /**
   * The API keys with this public key in the scope, unfiltered (expired ones too: the caller
   * decides what authenticates): the organization's, then the parent's, then at most two of its
   * sub-organizations' (by `createdAt`, ties by organization id) — enough to tell one holder
   * from several. Each key appears once, under the first of those relations that applies, with
   * its user and that user's API keys.
   * Reads what this transaction wrote.
   */
  findApiKeys(publicKey: string, scope: CredentialScope): Promise<ApiKeyCredential[]>;
}

/** HD wallets. */
export interface WalletRepository {
  get(organizationId: string, walletId: string): Promise<WalletRecord | undefined>;
  list(organizationId: string): Promise<WalletRecord[]>;
  insert(record: WalletRecord): Promise<void>;
  update(record: WalletRecord): Promise<void>;
  /** Removes the wallet row only (its accounts go through `walletAccounts.deleteByWallet`). */
  delete(organizationId: string, walletId: string): Promise<void>;
}

/** The derived accounts of wallets. */
export interface WalletAccountRepository {
  /** Accounts of an organization (or one wallet), in creation order. */
  list(
    organizationId: string,
    walletId?: string,
    page?: PageRequest,
  ): Promise<WalletAccountRecord[]>;
  findByAddress(organizationId: string, address: string): Promise<WalletAccountRecord | undefined>;
  findByPublicKey(
    organizationId: string,
    publicKey: string,
  ): Promise<WalletAccountRecord | undefined>;
  findByPath(
    organizationId: string,
    walletId: string,
    path: string,
  ): Promise<WalletAccountRecord | undefined>;
  insert(record: WalletAccountRecord): Promise<void>;
  /**
   * Sets `exported` and `updatedAt` of one account; nothing else of it changes (its
   * address, public key and path stay as inserted). An absent account is a no-op.
   */
  markExported(organizationId: string, walletAccountId: string, updatedAt: number): Promise<void>;
  delete(organizationId: string, walletAccountId: string): Promise<void>;
  /** Removes every account of one wallet. */
  deleteByWallet(organizationId: string, walletId: string): Promise<void>;
}

/** Standalone private keys. */
export interface PrivateKeyRepository {
  get(organizationId: string, privateKeyId: string): Promise<PrivateKeyRecord | undefined>;
  list(organizationId: string): Promise<PrivateKeyRecord[]>;
  findByAddress(organizationId: string, address: string): Promise<PrivateKeyRecord | undefined>;
  findByPublicKey(organizationId: string, publicKey: string): Promise<PrivateKeyRecord | undefined>;
  insert(record: PrivateKeyRecord): Promise<void>;
  update(record: PrivateKeyRecord): Promise<void>;
  delete(organizationId: string, privateKeyId: string): Promise<void>;
}

/** Activities and their votes. */
export interface ActivityRepository {
  get(organizationId: string, activityId: string): Promise<ActivityRecord | undefined>;
  /**
   * Like `get`, and holds the activity until the transaction ends: a concurrent
   * `getForUpdate` of the same activity (another instance's vote) waits, then reads what this
   * transaction committed. Votes use it so no vote is lost under READ COMMITTED.
   */
  getForUpdate(organizationId: string, activityId: string): Promise<ActivityRecord | undefined>;
  findByFingerprint(fingerprint: string): Promise<ActivityRecord | undefined>;
  /** Newest first. */
  list(
    organizationId: string,
    filter: ActivityFilter,
    page: PageRequest,
  ): Promise<ActivityRecord[]>;
  insert(record: ActivityRecord): Promise<void>;
  /**
   * A new activity with the policy evaluation that decided it and its entry in the
   * organization's audit chain: what `insert(record)`, `policyEvaluations.insert(evaluation)`
   * and `auditLog.append(record.organizationId, audit.body, audit.now)` do, in that order, in
   * one write where the store can (the SQL store sends one statement). A record that breaks a
   * unique constraint throws StoreConflictError as `insert` does, and nothing is written. Call it
   * last in the transaction: the audit chain's head stays locked until the transaction ends, and
   * a store may commit the transaction with it (the Postgres store does when nothing was written
   * before it), so nothing written after it is undone should the transaction then fail.
   */
  insertDecided(
    record: ActivityRecord,
    evaluation: PolicyEvaluationRecord,
    audit: { readonly body: string; readonly now: number },
  ): Promise<void>;
  update(record: ActivityRecord): Promise<void>;
  /**
   * An activity's new state after a vote, with the policy evaluation of that vote and its entry
   * in the organization's audit chain: what `update(record)`,
   * `policyEvaluations.insert(evaluation)` and `auditLog.append(record.organizationId,
   * audit.body, audit.now)` do, in that order, in one write where the store can (the SQL store
   * sends one statement). Call it last in the transaction, as `insertDecided`: the audit
   * chain's head stays locked until the transaction ends.
   */
  updateDecided(
    record: ActivityRecord,
    evaluation: PolicyEvaluationRecord,
    audit: { readonly body: string; readonly now: number },
  ): Promise<void>;
  /**
   * How many activities of the organization and of its sub-organizations match `filter` and
   * were created at `sinceMs` or later (a quota's count: every instance sees the same).
   */
  countInTree(rootOrganizationId: string, filter: ActivityFilter, sinceMs: number): Promise<number>;
}

/**
 * Policies, user tags and private-key tags: listed by `createdAt`, ties in insertion order;
 * names unique per organization (`insert` and `update` throw StoreConflictError with the
 * repository's name constraint: `policy_name`, `user_tag_name`, `private_key_tag_name`).
 */
export interface NamedRecordRepository<R> {
  get(organizationId: string, id: string): Promise<R | undefined>;
  list(organizationId: string): Promise<R[]>;
  /** Exact (case-sensitive) name match. */
  findByName(organizationId: string, name: string): Promise<R | undefined>;
  insert(record: R): Promise<void>;
  update(record: R): Promise<void>;
  delete(organizationId: string, id: string): Promise<void>;
}

/** Policies, unique by name in an organization. */
export type PolicyRepository = NamedRecordRepository<PolicyRecord>;
/** User tags, unique by name in an organization. */
export type UserTagRepository = NamedRecordRepository<TagRecord>;
/** Private-key tags, unique by name in an organization. */
export type PrivateKeyTagRepository = NamedRecordRepository<TagRecord>;

/** The recorded decisions on activities, one per vote. */
export interface PolicyEvaluationRepository {
  /** The evaluations of one activity, oldest first (createdAt, ties in insertion order). */
  listByActivity(organizationId: string, activityId: string): Promise<PolicyEvaluationRecord[]>;
  insert(record: PolicyEvaluationRecord): Promise<void>;
}

/** Webhook endpoints: listed by `createdAt`, ties in insertion order. */
export interface WebhookEndpointRepository {
  get(organizationId: string, endpointId: string): Promise<WebhookEndpointRecord | undefined>;
  /**
   * The endpoint, locked until the transaction ends: the dispatcher's `disableEndpoint` of it
   * waits, then applies to what this transaction wrote (so an update cannot write back a state
   * read before the endpoint was disabled).
   */
  getForUpdate(
    organizationId: string,
    endpointId: string,
  ): Promise<WebhookEndpointRecord | undefined>;
  list(organizationId: string): Promise<WebhookEndpointRecord[]>;
  /** Throws StoreConflictError `webhook_endpoint_pkey` for an existing id. */
  insert(record: WebhookEndpointRecord): Promise<void>;
  update(record: WebhookEndpointRecord): Promise<void>;
  delete(organizationId: string, endpointId: string): Promise<void>;
}

/**
 * The write side of the outbox, inside activity transactions: a delivery exists exactly when
 * the activity write that caused it committed. The read side (claiming, marking) is the
 * `Outbox` port of `@keyhold/webhooks`, which every Store adapter also implements.
 */
export interface WebhookDeliveryRepository {
  /** A new PENDING delivery. Throws StoreConflictError `webhook_delivery_pkey` for an existing id. */
  insert(delivery: WebhookDelivery): Promise<void>;
  /** Removes the PENDING deliveries to one endpoint (it is being deleted); finished ones stay. */
  deletePending(organizationId: string, endpointId: string): Promise<void>;
}

/**
 * One-time codes (INIT_OTP, VERIFY_OTP, OTP_LOGIN), listed by `createdAt`. INIT_OTP removes
 * the organization's finished ones as it goes, so a listing stays short.
 */
export interface OtpRepository {
  get(organizationId: string, otpId: string): Promise<OtpRecord | undefined>;
  /** Like `get`, and holds the record until the transaction ends. */
  getForUpdate(organizationId: string, otpId: string): Promise<OtpRecord | undefined>;
  list(organizationId: string): Promise<OtpRecord[]>;
  insert(record: OtpRecord): Promise<void>;
  update(record: OtpRecord): Promise<void>;
  delete(organizationId: string, otpId: string): Promise<void>;
}

/**
 * The audit chains, one per organization: append-only, each entry committing to the one
 * before it (see `audit/audit-chain.ts`).
 */
export interface AuditLogRepository {
  /**
   * Appends `body` to the organization's chain: the next seq, and the hash over the head's hash
   * and `body`, computed where the head is read, under its lock (held until the transaction
   * ends; append last, so that concurrent transactions of one organization wait briefly).
   */
  append(organizationId: string, body: string, now: number): Promise<void>;
  /** The organization's entries with `seq >= fromSeq`, in chain order, at most `limit`. */
  list(organizationId: string, fromSeq: number, limit: number): Promise<AuditEntryRecord[]>;
  /** The head of every chain, by organization id. */
  heads(): Promise<AuditHeadRecord[]>;
}

/** Invitations (CREATE_INVITATIONS, ACCEPT_INVITATION, DELETE_INVITATION), listed by `createdAt`. */
export interface InvitationRepository {
  get(organizationId: string, invitationId: string): Promise<InvitationRecord | undefined>;
  /** Like `get`, and holds the record until the transaction ends. */
  getForUpdate(organizationId: string, invitationId: string): Promise<InvitationRecord | undefined>;
  list(organizationId: string): Promise<InvitationRecord[]>;
  insert(record: InvitationRecord): Promise<void>;
  update(record: InvitationRecord): Promise<void>;
  delete(organizationId: string, invitationId: string): Promise<void>;
}

/** OAuth 2.0 credentials (CREATE/UPDATE/DELETE_OAUTH2_CREDENTIAL), listed by `createdAt`. */
export interface Oauth2CredentialRepository {
  get(
    organizationId: string,
    oauth2CredentialId: string,
  ): Promise<Oauth2CredentialRecord | undefined>;
  list(organizationId: string): Promise<Oauth2CredentialRecord[]>;
  insert(record: Oauth2CredentialRecord): Promise<void>;
  update(record: Oauth2CredentialRecord): Promise<void>;
  delete(organizationId: string, oauth2CredentialId: string): Promise<void>;
}

/**
 * Organization documents (features, the auth proxy's configuration, TVC records, payment
 * methods, the billing tier, app proofs), keyed by organization, kind and id; `list` gives
 * every kind of one organization by `createdAt` (callers pick their kind).
 */
export interface OrganizationDocumentRepository {
  get(
    organizationId: string,
    kind: OrganizationDocumentKind,
    documentId: string,
  ): Promise<OrganizationDocumentRecord | undefined>;
  list(organizationId: string): Promise<OrganizationDocumentRecord[]>;
  /** Refuses a taken key (StoreConflictError `organization_document_pkey`). */
  insert(record: OrganizationDocumentRecord): Promise<void>;
  /** An upsert. */
  update(record: OrganizationDocumentRecord): Promise<void>;
  delete(organizationId: string, kind: OrganizationDocumentKind, documentId: string): Promise<void>;
}

/**
 * The payment gateway's payments (`@keyhold/payments`), one per EIP-3009 authorization
 * (`authorizationKey` unique across organizations: a replay finds the first).
 */
export interface PaymentRepository {
  get(organizationId: string, paymentId: string): Promise<PaymentRecord | undefined>;
  /** Like `get`, and holds the record until the transaction ends. */
  getForUpdate(organizationId: string, paymentId: string): Promise<PaymentRecord | undefined>;
  list(organizationId: string): Promise<PaymentRecord[]>;
  /** Refuses a taken key or authorization (StoreConflictError `payment_pkey` / `payment_authorization`). */
  insert(record: PaymentRecord): Promise<void>;
  update(record: PaymentRecord): Promise<void>;
  findByAuthorization(authorizationKey: string): Promise<PaymentRecord | undefined>;
  /** Every organization's payments in one status (the reconciler's `submitted` and `unknown`). */
  listByStatus(status: PaymentStatus): Promise<PaymentRecord[]>;
}

/**
 * Users' OAuth providers (OIDC identities), listed by `createdAt`. An organization holds an
 * issuer, audience and subject once.
 */
export interface OauthProviderRepository {
  get(organizationId: string, providerId: string): Promise<OauthProviderRecord | undefined>;
  /** Like `get`, and holds the record until the transaction ends. */
  getForUpdate(
    organizationId: string,
    providerId: string,
  ): Promise<OauthProviderRecord | undefined>;
  list(organizationId: string): Promise<OauthProviderRecord[]>;
  /** The organization's provider with this issuer, audience and subject (exact), if any. */
  findByIdentity(
    organizationId: string,
    issuer: string,
    audience: string,
    subject: string,
  ): Promise<OauthProviderRecord | undefined>;
  /**
   * Throws StoreConflictError `oauth_provider_pkey` for an existing id and
   * `oauth_provider_identity` when the organization holds the issuer, audience and subject.
   */
  insert(record: OauthProviderRecord): Promise<void>;
  update(record: OauthProviderRecord): Promise<void>;
  delete(organizationId: string, providerId: string): Promise<void>;
}

/**
 * Smart-contract interfaces (CREATE/DELETE_SMART_CONTRACT_INTERFACE), listed by `createdAt`;
 * unique by `(organizationId, type, addressKey)` (the constraint `smart_contract_interface_address`).
 */
export interface SmartContractInterfaceRepository {
  get(
    organizationId: string,
    smartContractInterfaceId: string,
  ): Promise<SmartContractInterfaceRecord | undefined>;
  list(organizationId: string): Promise<SmartContractInterfaceRecord[]>;
  /** The interface of one contract address or program id (`addressKey`, exact). */
  findByAddress(
    organizationId: string,
    type: string,
    addressKey: string,
  ): Promise<SmartContractInterfaceRecord | undefined>;
  insert(record: SmartContractInterfaceRecord): Promise<void>;
  delete(organizationId: string, smartContractInterfaceId: string): Promise<void>;
}

/** ETH_SEND_TRANSACTION's transactions, listed by `createdAt`. */
export interface SendTransactionRepository {
  get(
    organizationId: string,
    sendTransactionStatusId: string,
  ): Promise<SendTransactionRecord | undefined>;
  list(organizationId: string): Promise<SendTransactionRecord[]>;
  insert(record: SendTransactionRecord): Promise<void>;
  update(record: SendTransactionRecord): Promise<void>;
}

/** Gas sponsorship limits (UPSERT_GAS_USAGE_CONFIG): one record per organization. */
export interface GasUsageConfigRepository {
  get(organizationId: string, gasUsageConfigId: string): Promise<GasUsageConfigRecord | undefined>;
  /** The organization's config, as a list of at most one. */
  list(organizationId: string): Promise<GasUsageConfigRecord[]>;
  insert(record: GasUsageConfigRecord): Promise<void>;
  update(record: GasUsageConfigRecord): Promise<void>;
}

/**
 * Fiat on-ramp credentials (CREATE/UPDATE/DELETE_FIAT_ON_RAMP_CREDENTIAL), listed by
 * `createdAt`; unique by `(organizationId, onrampProvider, sandboxMode)` (the constraint
 * `fiat_on_ramp_credential_provider`).
 */
export interface FiatOnRampCredentialRepository {
  get(
    organizationId: string,
    fiatOnrampCredentialId: string,
  ): Promise<FiatOnRampCredentialRecord | undefined>;
  list(organizationId: string): Promise<FiatOnRampCredentialRecord[]>;
  insert(record: FiatOnRampCredentialRecord): Promise<void>;
  update(record: FiatOnRampCredentialRecord): Promise<void>;
  delete(organizationId: string, fiatOnrampCredentialId: string): Promise<void>;
}

/** The purchases INIT_FIAT_ON_RAMP initiated, listed by `createdAt`. */
export interface OnRampTransactionRepository {
  get(organizationId: string, transactionId: string): Promise<OnRampTransactionRecord | undefined>;
  list(organizationId: string): Promise<OnRampTransactionRecord[]>;
  insert(record: OnRampTransactionRecord): Promise<void>;
  update(record: OnRampTransactionRecord): Promise<void>;
  delete(organizationId: string, transactionId: string): Promise<void>;
}

/** The repositories visible inside one transaction. */
export interface StoreTransaction {
  readonly organizations: OrganizationRepository;
  readonly users: UserRepository;
  readonly apiKeys: ApiKeyRepository;
  readonly authenticators: AuthenticatorRepository;
  readonly credentials: CredentialRepository;
  readonly wallets: WalletRepository;
  readonly walletAccounts: WalletAccountRepository;
  readonly privateKeys: PrivateKeyRepository;
  readonly activities: ActivityRepository;
  readonly policies: PolicyRepository;
  readonly userTags: UserTagRepository;
  readonly privateKeyTags: PrivateKeyTagRepository;
  readonly policyEvaluations: PolicyEvaluationRepository;
  readonly webhookEndpoints: WebhookEndpointRepository;
  readonly webhookDeliveries: WebhookDeliveryRepository;
  /**
   * Runs `work` so that, when it throws, every write it made is undone and the transaction
   * goes on (a SQL `SAVEPOINT`); then rethrows. A failed handler's writes roll back this way
   * while the FAILED activity is stored in the same transaction. Savepoints nest. What `work`
   * reads or locks stays read or locked.
   */
  savepoint<T>(work: () => Promise<T>): Promise<T>;
  readonly otps: OtpRepository;
  readonly auditLog: AuditLogRepository;
  readonly invitations: InvitationRepository;
  readonly oauth2Credentials: Oauth2CredentialRepository;
  readonly smartContractInterfaces: SmartContractInterfaceRepository;
  readonly fiatOnRampCredentials: FiatOnRampCredentialRepository;
  readonly onRampTransactions: OnRampTransactionRepository;
  readonly payments: PaymentRepository;
  readonly oauthProviders: OauthProviderRepository;
  readonly organizationDocuments: OrganizationDocumentRepository;
  readonly sendTransactions: SendTransactionRepository;
  readonly gasUsageConfigs: GasUsageConfigRepository;
}

/** The Store port: the repositories, reached through one transaction at a time. */
export interface Store {
  /** Runs `work` atomically: all of its writes commit, or none do if it throws. */
  transaction<T>(work: (tx: StoreTransaction) => Promise<T>): Promise<T>;
  /** Resolves when the store can serve requests; rejects with StoreUnavailableError otherwise. */
  ping?(): Promise<void>;
  close(): Promise<void>;
}

/** The inversify service identifier of the Store port. */
export const Store: unique symbol = Symbol.for('keyhold.Store');

/**
 * A write the Store refused because it would break a uniqueness constraint. Code
 * `STORE_CONFLICT`; recognize it with `StoreConflictError.is(error)`.
 */
export class StoreConflictError extends PortError {
  readonly code = 'STORE_CONFLICT';

  constructor(readonly constraint: string) {
    super(`store constraint violated: ${constraint}`);
    this.name = 'StoreConflictError';
  }

  /** True for a StoreConflictError of this copy of the package or any other. */
  static is(value: unknown): value is StoreConflictError {
    return portErrorCodeOf(value) === 'STORE_CONFLICT';
  }
}

/**
 * The store cannot be reached (database down, pool exhausted, connection lost). Requests
 * answer UNAVAILABLE (503), which clients retry with backoff; nothing was written. Code
 * `STORE_UNAVAILABLE`; recognize it with `StoreUnavailableError.is(error)`.
 */
export class StoreUnavailableError extends PortError {
  readonly code = 'STORE_UNAVAILABLE';

  constructor(reason: string) {
    super(`store unavailable: ${reason}`);
    this.name = 'StoreUnavailableError';
  }

  /** True for a StoreUnavailableError of this copy of the package or any other. */
  static is(value: unknown): value is StoreUnavailableError {
    return portErrorCodeOf(value) === 'STORE_UNAVAILABLE';
  }
}

/** Normalizes an address for lookups: 0x-hex addresses compare case-insensitively. */
export function addressKey(address: string): string {
  return /^0x[0-9a-fA-F]+$/.test(address) ? address.toLowerCase() : address;
}

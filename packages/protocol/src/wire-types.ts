/**
 * The JSON shapes Keyhold sends and receives. Field names and optionality follow the public
 * API (protobuf JSON conventions: int64 values are strings, timestamps are `{seconds, nanos}`).
 * @module
 */

import type {
  ActivityStatus,
  ActivityType,
  AddressFormat,
  AuthenticatorTransport,
  CredentialType,
  Curve,
  Effect,
  Outcome,
  PathFormat,
  VoteSelection,
} from './enums.js';
import type { StatusBody } from './keyhold-error.js';
import type { ServedKind, TypesOfKind, VoteKind } from './schemas/intent-types.js';

/** `{ seconds, nanos }`, both decimal strings. */
export interface Timestamp {
  seconds: string;
  nanos: string;
}

/** Converts epoch milliseconds to a wire Timestamp. */
export function timestampOf(ms: number): Timestamp {
  const seconds = Math.floor(ms / 1000);
  return { seconds: String(seconds), nanos: String((ms - seconds * 1000) * 1_000_000) };
}

/** The activity request envelope of every submit endpoint. */
export interface ActivityRequest<P = Record<string, unknown>> {
  type: string;
  timestampMs: string;
  organizationId: string;
  parameters: P;
  generateAppProofs?: boolean;
}

export interface Credential {
  publicKey: string;
  type: CredentialType;
}

export interface ApiKey {
  credential: Credential;
  apiKeyId: string;
  apiKeyName: string;
  createdAt: Timestamp;
  updatedAt: Timestamp;
  expirationSeconds?: string;
}

/**
 * `v1Authenticator`: a passkey of a user. `credentialId` and `credential.publicKey` (the COSE
 * key) are base64url, `aaguid` too (wire-compat §1.2); `attestationType` is the attestation
 * format it was registered with (`none`, `packed`, …).
 */
export interface Authenticator {
  transports: AuthenticatorTransport[];
  attestationType: string;
  aaguid: string;
  credentialId: string;
  model: string;
  credential: Credential;
  authenticatorId: string;
  authenticatorName: string;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

/**
 * `v1OauthProvider`: an OIDC identity a user logs in with (OAUTH_LOGIN, OAUTH).
 * @example
 * const p: OauthProvider = { providerId, providerName: 'Google', issuer: 'https://accounts.google.com', audience, subject, createdAt, updatedAt };
 */
export interface OauthProvider {
  providerId: string;
  providerName: string;
  issuer: string;
  audience: string;
  subject: string;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface User {
  userId: string;
  userName: string;
  userEmail?: string;
  userPhoneNumber?: string;
  authenticators: Authenticator[];
  apiKeys: ApiKey[];
  userTags: string[];
  oauthProviders: OauthProvider[];
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface Vote {
  id: string;
  userId: string;
  user: User;
  activityId: string;
  selection: VoteSelection;
  message: string;
  publicKey: string;
  signature: string;
  scheme: string;
  createdAt: Timestamp;
}

export interface Activity {
  id: string;
  organizationId: string;
  status: ActivityStatus;
  type: ActivityType;
  intent: Record<string, unknown>;
  result: Record<string, unknown>;
  votes: Vote[];
  fingerprint: string;
  canApprove: boolean;
  canReject: boolean;
  createdAt: Timestamp;
  updatedAt: Timestamp;
  failure?: StatusBody;
  timestampMs: string;
  /** Present when the request asked for app proofs (`generateAppProofs`) and it completed. */
  appProofs?: AppProof[];
}

export interface Address {
  format: AddressFormat;
  address: string;
}

export interface Wallet {
  walletId: string;
  walletName: string;
  createdAt: Timestamp;
  updatedAt: Timestamp;
  exported: boolean;
  imported: boolean;
}

export interface WalletAccount {
  walletAccountId: string;
  organizationId: string;
  walletId: string;
  curve: Curve;
  pathFormat: PathFormat;
  path: string;
  addressFormat: AddressFormat;
  address: string;
  publicKey: string;
  createdAt: Timestamp;
  updatedAt: Timestamp;
  walletDetails?: Wallet;
}

export interface PrivateKey {
  privateKeyId: string;
  publicKey: string;
  privateKeyName: string;
  curve: Curve;
  addresses: Address[];
  privateKeyTags: string[];
  createdAt: Timestamp;
  updatedAt: Timestamp;
  exported: boolean;
  imported: boolean;
}

export interface Quorum {
  threshold: number;
  userIds: string[];
}

/** A signature as raw signing returns it: hex without `0x`, r and s zero-padded to 64 chars. */
export interface SignatureResult {
  r: string;
  s: string;
  v: string;
}

/** `v1Policy`: `condition` and `consensus` are always strings (empty when absent). */
export interface Policy {
  policyId: string;
  policyName: string;
  effect: Effect;
  createdAt: Timestamp;
  updatedAt: Timestamp;
  notes: string;
  consensus: string;
  condition: string;
  time?: string;
}

export type TagType = 'TAG_TYPE_USER' | 'TAG_TYPE_PRIVATE_KEY';

/** `datav1Tag`: a user tag or a private-key tag. */
export interface Tag {
  tagId: string;
  tagName: string;
  tagType: TagType;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

/** `externalactivityv1PolicyEvaluation`: the outcome of every policy for one vote. */
export interface PolicyEvaluation {
  id: string;
  activityId: string;
  organizationId: string;
  voteId: string;
  policyEvaluations: PolicyOutcome[];
  createdAt: Timestamp;
}

/**
 * One policy's outcome. `error` is a Keyhold extension (clients ignore unknown fields): why an
 * OUTCOME_ERROR happened and whether it counted as a deny.
 */
export interface PolicyOutcome {
  policyId: string;
  outcome: Outcome;
  error?: PolicyOutcomeError;
}

/** Why a policy evaluated to OUTCOME_ERROR (Keyhold extension of the wire record). */
export interface PolicyOutcomeError {
  /** The expression that failed: `condition`, `consensus`, `time`, or `policy` (unusable text). */
  field: 'condition' | 'consensus' | 'time' | 'policy';
  /** `missing` data, a `type` mismatch, an `invalid` stored text, or the evaluation `budget`. */
  errorClass: 'missing' | 'type' | 'invalid' | 'budget';
  /** What went wrong, naming the keyword or value where it can. */
  message: string;
  /** Whether this error made the policy count as a deny (fail closed), per the README's rule. */
  countedAsDeny: boolean;
  /** The keyword path the error was about (`bitcoin.tx`, `wallet.id`), when it was about one. */
  keyword?: string;
}

/** `v1WebhookSubscriptionParams`. */
export interface WebhookSubscription {
  eventType: string;
  filtersJson?: string;
  isActive: boolean;
}

/**
 * `v1Oauth2Credential` as get_oauth2_credential and list_oauth2_credentials show it: without
 * `encryptedClientSecret` — Keyhold never returns a client secret, in any form.
 * @example
 * const credential: Oauth2Credential = {
 *   oauth2CredentialId: '…', organizationId: '…', provider: 'OAUTH2_PROVIDER_X',
 *   clientId: 'my-app', createdAt: { seconds: '1748876837', nanos: '0' }, updatedAt: { … },
 * };
 */
export interface Oauth2Credential {
  oauth2CredentialId: string;
  organizationId: string;
  provider: string;
  clientId: string;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

/**
 * `externaldatav1SmartContractInterface` as get_smart_contract_interface and
 * list_smart_contract_interfaces show it: the ABI or IDL as the JSON text uploaded.
 * @example
 * const sci: SmartContractInterface = {
 *   organizationId: '…', smartContractInterfaceId: '…', smartContractAddress: '0xc02a…',
 *   smartContractInterface: '[{"type":"function",…}]', type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM',
 *   label: 'WETH', notes: '', createdAt: { seconds: '1748876837', nanos: '0' }, updatedAt: { … },
 * };
 */
export interface SmartContractInterface {
  organizationId: string;
  smartContractInterfaceId: string;
  smartContractAddress: string;
  smartContractInterface: string;
  type: string;
  label: string;
  notes: string;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

/** `v1WebhookEndpointData`: a webhook endpoint as results and list_webhook_endpoints show it. */
export interface WebhookEndpoint {
  endpointId: string;
  organizationId: string;
  url: string;
  name: string;
  isActive: boolean;
  /**
   * Keyhold extension (clients ignore unknown fields): why Keyhold disabled the endpoint — it
   * kept failing, answered 410 Gone, or its URL can never be delivered to. Present only while
   * it is disabled for that reason; UPDATE_WEBHOOK_ENDPOINT with `isActive: true` clears it.
   */
  disabledReason?: string;
  subscriptions: WebhookSubscription[];
}

/**
 * The result of an activity that completed, by activity type: what `activity.result` holds
 * under the type's result key (`createWalletResult`, `signTransactionResult`, …; the
 * catalogue's `resultKey`). The shapes are the public API's `v1…Result` messages as Keyhold
 * fills them. Votes (APPROVE_ACTIVITY, REJECT_ACTIVITY) have none: their answer is the target.
 * @example
 * const result: ActivityResults['ACTIVITY_TYPE_CREATE_WALLET'] = {
 *   walletId: '6b1f…',
 *   addresses: ['0x9858EfFD232B4033E47d90003D41EC34EcaEda94'],
 * };
 */
export interface ActivityResults {
  ACTIVITY_TYPE_CREATE_USERS: { userIds: string[] };
  ACTIVITY_TYPE_CREATE_USERS_V2: { userIds: string[] };
  ACTIVITY_TYPE_CREATE_USERS_V3: { userIds: string[] };
  ACTIVITY_TYPE_CREATE_USERS_V4: { userIds: string[] };
  ACTIVITY_TYPE_CREATE_API_ONLY_USERS: { userIds: string[] };
  ACTIVITY_TYPE_DELETE_USERS: { userIds: string[] };
  ACTIVITY_TYPE_UPDATE_USER: { userId: string };
  ACTIVITY_TYPE_UPDATE_USER_NAME: { userId: string };
  ACTIVITY_TYPE_CREATE_API_KEYS: { apiKeyIds: string[] };
  ACTIVITY_TYPE_CREATE_API_KEYS_V2: { apiKeyIds: string[] };
  ACTIVITY_TYPE_DELETE_API_KEYS: { apiKeyIds: string[] };
  /** `v1UpdateRootQuorumResult` has no members. */
  ACTIVITY_TYPE_UPDATE_ROOT_QUORUM: Record<string, never>;
  ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME: { organizationId: string; organizationName: string };
  /** `v1UpdateAllowedOriginsResult` has no members. */
  ACTIVITY_TYPE_UPDATE_ALLOWED_ORIGINS: Record<string, never>;
  ACTIVITY_TYPE_CREATE_AUTHENTICATORS: { authenticatorIds: string[] };
  ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2: { authenticatorIds: string[] };
  ACTIVITY_TYPE_DELETE_AUTHENTICATORS: { authenticatorIds: string[] };
  ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION: { subOrganizationId: string; rootUserIds: string[] };
  ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V2: { subOrganizationId: string; rootUserIds: string[] };
  ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V3: {
    subOrganizationId: string;
    privateKeys: PrivateKeyResult[];
    rootUserIds: string[];
  };
  ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V4: CreateSubOrganizationResult;
  ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V5: CreateSubOrganizationResult;
  ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V6: CreateSubOrganizationResult;
  ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7: CreateSubOrganizationResult;
  ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8: CreateSubOrganizationResult;
  ACTIVITY_TYPE_DELETE_SUB_ORGANIZATION: { subOrganizationUuid: string };
  ACTIVITY_TYPE_CREATE_WALLET: WalletResult;
  ACTIVITY_TYPE_CREATE_WALLET_ACCOUNTS: { addresses: string[] };
  ACTIVITY_TYPE_UPDATE_WALLET: { walletId: string };
  ACTIVITY_TYPE_CREATE_PRIVATE_KEYS: { privateKeyIds: string[] };
  ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2: { privateKeys: PrivateKeyResult[] };
  ACTIVITY_TYPE_SIGN_RAW_PAYLOAD: SignatureResult;
  ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2: SignatureResult;
  ACTIVITY_TYPE_SIGN_RAW_PAYLOADS: { signatures: SignatureResult[] };
  ACTIVITY_TYPE_SIGN_TRANSACTION: { signedTransaction: string };
  ACTIVITY_TYPE_SIGN_TRANSACTION_V2: { signedTransaction: string };
  ACTIVITY_TYPE_EXPORT_WALLET: { walletId: string; exportBundle: string };
  ACTIVITY_TYPE_EXPORT_WALLET_ACCOUNT: { address: string; exportBundle: string };
  ACTIVITY_TYPE_EXPORT_PRIVATE_KEY: { privateKeyId: string; exportBundle: string };
  ACTIVITY_TYPE_INIT_IMPORT_WALLET: { importBundle: string };
  ACTIVITY_TYPE_IMPORT_WALLET: WalletResult;
  ACTIVITY_TYPE_INIT_IMPORT_PRIVATE_KEY: { importBundle: string };
  ACTIVITY_TYPE_IMPORT_PRIVATE_KEY: PrivateKeyResult;
  ACTIVITY_TYPE_DISABLE_PRIVATE_KEY: { privateKeyId: string };
  ACTIVITY_TYPE_DELETE_PRIVATE_KEYS: { privateKeyIds: string[] };
  ACTIVITY_TYPE_DELETE_WALLETS: { walletIds: string[] };
  ACTIVITY_TYPE_DELETE_WALLET_ACCOUNTS: { walletAccountIds: string[] };
  ACTIVITY_TYPE_CREATE_POLICY: { policyId: string };
  ACTIVITY_TYPE_CREATE_POLICY_V2: { policyId: string };
  ACTIVITY_TYPE_CREATE_POLICY_V3: { policyId: string };
  ACTIVITY_TYPE_CREATE_POLICIES: { policyIds: string[] };
  ACTIVITY_TYPE_UPDATE_POLICY: { policyId: string };
  ACTIVITY_TYPE_UPDATE_POLICY_V2: { policyId: string };
  ACTIVITY_TYPE_DELETE_POLICY: { policyId: string };
  ACTIVITY_TYPE_DELETE_POLICIES: { policyIds: string[] };
  ACTIVITY_TYPE_CREATE_USER_TAG: { userTagId: string; userIds: string[] };
  ACTIVITY_TYPE_UPDATE_USER_TAG: { userTagId: string };
  ACTIVITY_TYPE_DELETE_USER_TAGS: { userTagIds: string[]; userIds: string[] };
  ACTIVITY_TYPE_CREATE_PRIVATE_KEY_TAG: { privateKeyTagId: string; privateKeyIds: string[] };
  ACTIVITY_TYPE_UPDATE_PRIVATE_KEY_TAG: { privateKeyTagId: string };
  ACTIVITY_TYPE_DELETE_PRIVATE_KEY_TAGS: { privateKeyTagIds: string[]; privateKeyIds: string[] };
  ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT: WebhookEndpointResult;
  ACTIVITY_TYPE_UPDATE_WEBHOOK_ENDPOINT: WebhookEndpointResult;
  ACTIVITY_TYPE_DELETE_WEBHOOK_ENDPOINT: { endpointId: string };
  ACTIVITY_TYPE_STAMP_LOGIN: { session: string };
  ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION: ReadWriteSessionResult;
  ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2: ReadWriteSessionResult;
  ACTIVITY_TYPE_CREATE_READ_ONLY_SESSION: ReadOnlySessionResult;
  ACTIVITY_TYPE_INIT_OTP: { otpId: string };
  ACTIVITY_TYPE_INIT_OTP_V2: InitOtpResultV2;
  ACTIVITY_TYPE_INIT_OTP_V3: InitOtpResultV2;
  ACTIVITY_TYPE_VERIFY_OTP: { verificationToken: string };
  ACTIVITY_TYPE_VERIFY_OTP_V2: { verificationToken: string };
  ACTIVITY_TYPE_OTP_LOGIN: { session: string };
  ACTIVITY_TYPE_OTP_LOGIN_V2: { session: string };
  ACTIVITY_TYPE_INIT_OTP_AUTH: { otpId: string };
  ACTIVITY_TYPE_INIT_OTP_AUTH_V2: { otpId: string };
  ACTIVITY_TYPE_INIT_OTP_AUTH_V3: { otpId: string };
  ACTIVITY_TYPE_OTP_AUTH: { userId: string; apiKeyId: string; credentialBundle: string };
  // The credential bundle of EMAIL_AUTH and INIT_USER_EMAIL_RECOVERY only goes by mail.
  ACTIVITY_TYPE_EMAIL_AUTH: { userId: string; apiKeyId: string };
  ACTIVITY_TYPE_EMAIL_AUTH_V2: { userId: string; apiKeyId: string };
  ACTIVITY_TYPE_EMAIL_AUTH_V3: { userId: string; apiKeyId: string };
  ACTIVITY_TYPE_INIT_USER_EMAIL_RECOVERY: { userId: string };
  ACTIVITY_TYPE_INIT_USER_EMAIL_RECOVERY_V2: { userId: string };
  ACTIVITY_TYPE_RECOVER_USER: { authenticatorId: string[] };
  ACTIVITY_TYPE_UPDATE_USER_EMAIL: { userId: string };
  ACTIVITY_TYPE_UPDATE_USER_PHONE_NUMBER: { userId: string };
  ACTIVITY_TYPE_CREATE_INVITATIONS: { invitationIds: string[] };
  ACTIVITY_TYPE_ACCEPT_INVITATION: { invitationId: string; userId: string };
  ACTIVITY_TYPE_ACCEPT_INVITATION_V2: { invitationId: string; userId: string };
  ACTIVITY_TYPE_DELETE_INVITATION: { invitationId: string };
  ACTIVITY_TYPE_CREATE_OAUTH2_CREDENTIAL: { oauth2CredentialId: string };
  ACTIVITY_TYPE_UPDATE_OAUTH2_CREDENTIAL: { oauth2CredentialId: string };
  ACTIVITY_TYPE_DELETE_OAUTH2_CREDENTIAL: { oauth2CredentialId: string };
  ACTIVITY_TYPE_OAUTH2_AUTHENTICATE: { oidcToken: string };
  ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS: { providerIds: string[] };
  ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS_V2: { providerIds: string[] };
  ACTIVITY_TYPE_DELETE_OAUTH_PROVIDERS: { providerIds: string[] };
  ACTIVITY_TYPE_OAUTH_LOGIN: { session: string };
  ACTIVITY_TYPE_OAUTH: { userId: string; apiKeyId: string; credentialBundle: string };
  ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE: { smartContractInterfaceId: string };
  ACTIVITY_TYPE_DELETE_SMART_CONTRACT_INTERFACE: { smartContractInterfaceId: string };
  ACTIVITY_TYPE_ETH_SEND_RAW_TRANSACTION: { transactionHash: string };
  ACTIVITY_TYPE_ETH_SEND_TRANSACTION: { sendTransactionStatusId: string };
  ACTIVITY_TYPE_ETH_SEND_TRANSACTION_V2: { sendTransactionStatusId: string };
  ACTIVITY_TYPE_UPSERT_GAS_USAGE_CONFIG: { gasUsageConfigId: string };
  ACTIVITY_TYPE_SET_ORGANIZATION_FEATURE: { features: OrganizationFeature[] };
  ACTIVITY_TYPE_REMOVE_ORGANIZATION_FEATURE: { features: OrganizationFeature[] };
  /** The proxy's user, and its API key sealed for this server (the auth proxy stamps with it). */
  ACTIVITY_TYPE_ENABLE_AUTH_PROXY: { userId: string; encryptedApiKey: string };
  /** `v1DisableAuthProxyResult` has no members. */
  ACTIVITY_TYPE_DISABLE_AUTH_PROXY: Record<string, never>;
  ACTIVITY_TYPE_UPDATE_AUTH_PROXY_CONFIG: { configId: string };
  ACTIVITY_TYPE_CREATE_TVC_APP: {
    appId: string;
    manifestSetId: string;
    manifestSetOperatorIds: string[];
    manifestSetThreshold: number;
  };
  ACTIVITY_TYPE_CREATE_TVC_DEPLOYMENT: { deploymentId: string; manifestId: string };
  ACTIVITY_TYPE_CREATE_TVC_MANIFEST_APPROVALS: { approvalIds: string[] };
  /** Never produced: CREATE_ORGANIZATION is refused (ORGANIZATION_CREATION_NOT_AVAILABLE). */
  ACTIVITY_TYPE_CREATE_ORGANIZATION: { organizationId: string };
  ACTIVITY_TYPE_CREATE_ORGANIZATION_V2: { organizationId: string };
  /** Never produced: DELETE_ORGANIZATION is refused (ORGANIZATION_DELETION_NOT_AVAILABLE). */
  ACTIVITY_TYPE_DELETE_ORGANIZATION: { organizationId: string };
  ACTIVITY_TYPE_SET_PAYMENT_METHOD: PaymentMethodResult;
  ACTIVITY_TYPE_SET_PAYMENT_METHOD_V2: PaymentMethodResult;
  ACTIVITY_TYPE_DELETE_PAYMENT_METHOD: { paymentMethodId: string };
  ACTIVITY_TYPE_ACTIVATE_BILLING_TIER: { productId: string };
}

/**
 * `v1Feature`: an organization feature as SET_ORGANIZATION_FEATURE stores it.
 * @example
 * const feature: OrganizationFeature = { name: 'FEATURE_NAME_WEBHOOK', value: 'https://…' };
 */
export interface OrganizationFeature {
  name: string;
  value: string;
}

/**
 * `setPaymentMethodResult`: what Keyhold keeps of a card — its last four digits and its holder
 * (`lastFour` is empty for a V2 reference it has no card of). `paymentMethodId` names the
 * record DELETE_PAYMENT_METHOD removes.
 * @example
 * const result: PaymentMethodResult = { lastFour: '4242', cardHolderName: 'Ada', cardHolderEmail: '', paymentMethodId: '…' };
 */
export interface PaymentMethodResult {
  lastFour: string;
  cardHolderName: string;
  cardHolderEmail: string;
  paymentMethodId: string;
}

/**
 * `v1InitOtpResultV2`: the OTP's id and the target its code is encrypted to (wire-compat §3.5).
 * @example
 * const result: InitOtpResultV2 = { otpId: '…', otpEncryptionTargetBundle: '{"version":"v1.0.0",…}' };
 */
export interface InitOtpResultV2 {
  otpId: string;
  otpEncryptionTargetBundle: string;
}

/**
 * `v1CreateReadWriteSessionResult(V2)`: the session key's id and its private key in a
 * `credentialBundle` encrypted to the request's `targetPublicKey`.
 * @example
 * const result: ReadWriteSessionResult = {
 *   organizationId: '…', organizationName: 'Acme', userId: '…', username: 'alice',
 *   apiKeyId: '…', credentialBundle: '2mD…', // base58check
 * };
 */
export interface ReadWriteSessionResult {
  organizationId: string;
  organizationName: string;
  userId: string;
  username: string;
  apiKeyId: string;
  credentialBundle: string;
}

/**
 * `v1CreateReadOnlySessionResult`: a read-only session JWT and its expiry (epoch seconds, as a
 * string).
 * @example
 * const result: ReadOnlySessionResult = {
 *   organizationId: '…', organizationName: 'Acme', userId: '…', username: 'alice',
 *   session: 'eyJ…', sessionExpiry: '1748880437',
 * };
 */
export interface ReadOnlySessionResult {
  organizationId: string;
  organizationName: string;
  userId: string;
  username: string;
  session: string;
  sessionExpiry: string;
}

/**
 * The result of an activity type that has one.
 * @example
 * type R = ResultOf<'ACTIVITY_TYPE_SIGN_TRANSACTION_V2'>; // { signedTransaction: string }
 */
export type ResultOf<T extends keyof ActivityResults> = ActivityResults[T];

/**
 * What a kind's handler returns: the union of its versions' results (CREATE_PRIVATE_KEYS V1
 * answers ids, V2 keys with addresses; the handler picks by `definition.version`).
 * @example
 * type R = ResultOfKind<'CREATE_PRIVATE_KEYS'>;
 * // { privateKeyIds: string[] } | { privateKeys: PrivateKeyResult[] }
 */
export type ResultOfKind<K extends Exclude<ServedKind, VoteKind>> = ResultOf<
  Extract<TypesOfKind<K>, keyof ActivityResults>
>;

/**
 * `v1WalletResult`: a wallet just made (CREATE_WALLET, IMPORT_WALLET, a sub-organization's).
 * @example
 * const wallet: WalletResult = { walletId: '6b1f…', addresses: ['0x9858…'] };
 */
export interface WalletResult {
  walletId: string;
  /** The accounts' addresses, in the order the request listed the accounts. */
  addresses: string[];
}

/**
 * `v1PrivateKeyResult`: a private key just made, with the addresses asked for.
 * @example
 * const key: PrivateKeyResult = { privateKeyId: '0c5e…', addresses: [] };
 */
export interface PrivateKeyResult {
  privateKeyId: string;
  addresses: Address[];
}

/**
 * `v1CreateSubOrganizationResultV4` … V8: `wallet` when the request asked for one.
 * @example
 * const r: CreateSubOrganizationResult = { subOrganizationId: '9a2c…', rootUserIds: ['…'] };
 */
export interface CreateSubOrganizationResult {
  subOrganizationId: string;
  wallet?: WalletResult;
  rootUserIds: string[];
}

/**
 * `v1CreateWebhookEndpointResult` and the update's: the endpoint as it now is.
 * @example
 * const r: WebhookEndpointResult = { endpointId: endpoint.endpointId, webhookEndpoint: endpoint };
 */
export interface WebhookEndpointResult {
  endpointId: string;
  webhookEndpoint: WebhookEndpoint;
}

/**
 * `v1AppProof` as Keyhold makes it for `generateAppProofs`: a software proof, not a hardware
 * attestation. `publicKey` is the signer's uncompressed P-256 key twice (the encryption half,
 * then the signing half, as `@turnkey/crypto`'s `verifyAppProofSignature` reads it);
 * `signature` is the 64-byte r‖s (hex) over sha256 of `proofPayload`, a JSON text naming the
 * activity and holding its result. `verifyKeyholdAppProof` of `@keyhold/conformance` checks it.
 * @example
 * const proof: AppProof = { scheme: 'SIGNATURE_SCHEME_EPHEMERAL_KEY_P256', publicKey: '04…04…', proofPayload: '{…}', signature: '…' };
 */
export interface AppProof {
  scheme: 'SIGNATURE_SCHEME_EPHEMERAL_KEY_P256';
  publicKey: string;
  proofPayload: string;
  signature: string;
}

/**
 * `v1BootProof` as a self-hosted Keyhold states it: no enclave and no AWS attestation
 * (`awsAttestationDocB64` is empty). `qosManifestB64` is a base64 JSON statement of the
 * server's version and published keys; `qosManifestEnvelopeB64` a base64 JSON envelope of its
 * signature by the signer key; `deploymentLabel` says it is a software statement.
 * @example
 * const proof: BootProof = { ephemeralPublicKeyHex: '04…04…', awsAttestationDocB64: '', qosManifestB64: 'eyJ…', qosManifestEnvelopeB64: 'eyJ…', deploymentLabel: 'keyhold-self-hosted-software-statement', enclaveApp: 'keyhold', owner: 'self-hosted', createdAt: { seconds: '0', nanos: '0' } };
 */
export interface BootProof {
  ephemeralPublicKeyHex: string;
  awsAttestationDocB64: string;
  qosManifestB64: string;
  qosManifestEnvelopeB64: string;
  deploymentLabel: string;
  enclaveApp: string;
  owner: string;
  createdAt: Timestamp;
  qosManifestVersion?: string;
}

/**
 * `v1TvcOperator`: an operator of a TVC operator set (its key signs manifest approvals).
 * @example
 * const operator: TvcOperator = { id: '…', name: 'ops-1', publicKey: '02…', encryptPublicKey: '', signPublicKey: '02…', createdAt, updatedAt };
 */
export interface TvcOperator {
  id: string;
  name: string;
  publicKey: string;
  encryptPublicKey: string;
  signPublicKey: string;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

/**
 * `v1TvcOperatorSet`: operators and the number of them that must approve.
 * @example
 * const set: TvcOperatorSet = { id: '…', name: 'manifest', organizationId: '…', operators: [], threshold: 1, createdAt, updatedAt };
 */
export interface TvcOperatorSet {
  id: string;
  name: string;
  organizationId: string;
  operators: TvcOperator[];
  threshold: number;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

/**
 * `v1TvcApp` as get_tvc_app and list_tvc_apps show it.
 * @example
 * const app: TvcApp = { id: '…', organizationId: '…', name: 'oracle', quorumPublicKey: '04…', manifestSet, shareSet, enableEgress: false, publicDomain: '', enableDebugModeDeployments: false, createdAt, updatedAt };
 */
export interface TvcApp {
  id: string;
  organizationId: string;
  name: string;
  quorumPublicKey: string;
  manifestSet: TvcOperatorSet;
  shareSet: TvcOperatorSet;
  enableEgress: boolean;
  publicDomain: string;
  enableDebugModeDeployments: boolean;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

/**
 * `v1TvcDeployment` as get_tvc_deployment and list_tvc_app_deployments show it: the manifest
 * (a JSON text of the deployment's parameters) and the operators' approvals of it.
 * @example
 * const deployment: TvcDeployment = { id: '…', organizationId: '…', appId: '…', manifestSet, shareSet, manifest, manifestApprovals: [], qosVersion: '0.1', pivotContainer, delete: false, debugMode: false, createdAt, updatedAt };
 */
export interface TvcDeployment {
  id: string;
  organizationId: string;
  appId: string;
  manifestSet: TvcOperatorSet;
  shareSet: TvcOperatorSet;
  manifest: { id: string; manifest: string; createdAt: Timestamp; updatedAt: Timestamp };
  manifestApprovals: {
    id: string;
    manifestId: string;
    operator: TvcOperator;
    approval: string;
    createdAt: Timestamp;
    updatedAt: Timestamp;
  }[];
  qosVersion: string;
  pivotContainer: {
    containerUrl: string;
    path: string;
    args: string[];
    hasPullSecret: boolean;
    healthCheckType: string;
    healthCheckPort: number;
    publicIngressPort: number;
  };
  delete: boolean;
  debugMode: boolean;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

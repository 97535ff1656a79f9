/**
 * The JSON shapes Keyhold sends and receives. Field names and optionality follow the public
 * API (protobuf JSON conventions: int64 values are strings, timestamps are `{seconds, nanos}`).
 * @module
 */

import type {
  ActivityStatus,
  ActivityType,
  AddressFormat,
  CredentialType,
  Curve,
  Effect,
  Outcome,
  PathFormat,
  VoteSelection,
} from './enums.js';
import type { StatusBody } from './keyhold-error.js';

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

export interface User {
  userId: string;
  userName: string;
  userEmail?: string;
  userPhoneNumber?: string;
  authenticators: unknown[];
  apiKeys: ApiKey[];
  userTags: string[];
  oauthProviders: unknown[];
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

/**
 * Test records: valid defaults for every record of the Store port, overridable field by
 * field, with ids unique across a test run so tests can share one database.
 * @module
 */
import type {
  ActivityRecord,
  ApiKeyRecord,
  AuthenticatorRecord,
  OauthProviderRecord,
  OrganizationRecord,
  PolicyEvaluationRecord,
  PolicyRecord,
  PrivateKeyRecord,
  TagRecord,
  UserRecord,
  VoteRecord,
  WalletAccountRecord,
  WalletRecord,
  WebhookEndpointRecord,
} from '@keyhold/activities';
import type { WebhookDelivery } from '@keyhold/webhooks';

const run = Math.random().toString(36).slice(2, 8);
let counter = 0;

/** A fresh id, unique within this test run. */
export const fresh = (prefix: string): string => `${prefix}-${run}-${(++counter).toString(36)}`;

/** A fresh UUID-shaped activity id that sorts after every earlier one of this run. */
export function activityId(): string {
  const n = (Date.now() * 4096 + ++counter).toString(16).padStart(20, '0');
  const r = Math.random().toString(16).slice(2).padEnd(12, '0').slice(0, 12);
  return `${n.slice(0, 8)}-${n.slice(8, 12)}-${n.slice(12, 16)}-${n.slice(16, 20)}-${r}`;
}

export const organization = (o: Partial<OrganizationRecord> = {}): OrganizationRecord => ({
  organizationId: fresh('org'),
  name: fresh('Org'),
  rootQuorum: { threshold: 1, userIds: [fresh('user')] },
  createdAt: 1_700_000_000_000,
  updatedAt: 1_700_000_000_000,
  ...o,
});

export const user = (organizationId: string, o: Partial<UserRecord> = {}): UserRecord => ({
  organizationId,
  userId: fresh('user'),
  userName: 'Alice',
  userTags: [],
  createdAt: 1_700_000_000_000,
  updatedAt: 1_700_000_000_000,
  ...o,
});

export const oauthProvider = (
  organizationId: string,
  userId: string,
  o: Partial<OauthProviderRecord> = {},
): OauthProviderRecord => ({
  organizationId,
  providerId: fresh('provider'),
  userId,
  providerName: 'Google',
  issuer: 'https://accounts.google.com',
  audience: fresh('client'),
  subject: fresh('sub'),
  createdAt: 1_700_000_000_000,
  updatedAt: 1_700_000_000_000,
  ...o,
});

export const apiKey = (
  organizationId: string,
  userId: string,
  o: Partial<ApiKeyRecord> = {},
): ApiKeyRecord => ({
  organizationId,
  userId,
  apiKeyId: fresh('key'),
  apiKeyName: 'ci key',
  publicKey: `02${fresh('pk')}`,
  curve: 'API_KEY_CURVE_P256',
  createdAt: 1_700_000_000_000,
  updatedAt: 1_700_000_000_000,
  ...o,
});

export const authenticator = (
  organizationId: string,
  userId: string,
  o: Partial<AuthenticatorRecord> = {},
): AuthenticatorRecord => ({
  organizationId,
  userId,
  authenticatorId: fresh('authenticator'),
  authenticatorName: 'laptop',
  credentialId: fresh('credential'),
  publicKey: fresh('cose'),
  algorithm: -7,
  aaguid: 'AAAAAAAAAAAAAAAAAAAAAA',
  attestationType: 'none',
  transports: ['AUTHENTICATOR_TRANSPORT_INTERNAL'],
  signCount: 0,
  createdAt: 1_700_000_000_000,
  updatedAt: 1_700_000_000_000,
  ...o,
});

export const wallet = (organizationId: string, o: Partial<WalletRecord> = {}): WalletRecord => ({
  organizationId,
  walletId: fresh('wallet'),
  walletName: 'Treasury',
  seed: `sealed:v1:${fresh('seed')}`,
  mnemonicLength: 12,
  exported: false,
  imported: false,
  createdAt: 1_700_000_000_000,
  updatedAt: 1_700_000_000_000,
  ...o,
});

export const account = (
  organizationId: string,
  walletId: string,
  o: Partial<WalletAccountRecord> = {},
): WalletAccountRecord => ({
  organizationId,
  walletId,
  walletAccountId: fresh('account'),
  curve: 'CURVE_SECP256K1',
  pathFormat: 'PATH_FORMAT_BIP32',
  path: `m/44'/60'/0'/0/${++counter}`,
  addressFormat: 'ADDRESS_FORMAT_ETHEREUM',
  address: `0x${(++counter).toString(16).padStart(40, 'a')}`,
  publicKey: `03${fresh('pub')}`,
  key: `sealed:v1:${fresh('key')}`,
  exported: false,
  createdAt: 1_700_000_000_000,
  updatedAt: 1_700_000_000_000,
  ...o,
});

export const privateKey = (
  organizationId: string,
  o: Partial<PrivateKeyRecord> = {},
): PrivateKeyRecord => ({
  organizationId,
  privateKeyId: fresh('pkey'),
  privateKeyName: 'hot key',
  curve: 'CURVE_SECP256K1',
  publicKey: `02${fresh('pub')}`,
  addresses: [
    {
      format: 'ADDRESS_FORMAT_ETHEREUM',
      address: `0x${(++counter).toString(16).padStart(40, 'b')}`,
    },
  ],
  privateKeyTags: [],
  key: `sealed:v1:${fresh('key')}`,
  exported: false,
  imported: false,
  disabled: false,
  createdAt: 1_700_000_000_000,
  updatedAt: 1_700_000_000_000,
  ...o,
});

export const activity = (
  organizationId: string,
  o: Partial<ActivityRecord> = {},
): ActivityRecord => ({
  id: activityId(),
  organizationId,
  type: 'ACTIVITY_TYPE_CREATE_WALLET',
  status: 'ACTIVITY_STATUS_COMPLETED',
  parameters: { walletName: 'Treasury', accounts: [] },
  votes: [],
  fingerprint: `sha256:${fresh('fp')}`,
  timestampMs: '1700000000000',
  createdAt: 1_700_000_000_000,
  updatedAt: 1_700_000_000_000,
  ...o,
});

/**
 * An approving vote on activity `activityId` by user `u` (Alice), as it is stored in the
 * activity's `votes`.
 * @example
 * const approved = { ...waiting, votes: [vote(waiting.id)] };
 */
export const vote = (activityId: string, o: Partial<VoteRecord> = {}): VoteRecord => ({
  id: fresh('vote'),
  activityId,
  userId: 'u',
  user: {
    userId: 'u',
    userName: 'Alice',
    authenticators: [],
    apiKeys: [],
    userTags: [],
    oauthProviders: [],
    createdAt: { seconds: '1', nanos: '0' },
    updatedAt: { seconds: '1', nanos: '0' },
  },
  selection: 'VOTE_SELECTION_APPROVED',
  message: '{"raw":"body"}',
  publicKey: '02ab',
  signature: '3045',
  scheme: 'SIGNATURE_SCHEME_TK_API_P256',
  createdAt: 5,
  ...o,
});

export const policy = (organizationId: string, o: Partial<PolicyRecord> = {}): PolicyRecord => ({
  organizationId,
  policyId: fresh('policy'),
  policyName: fresh('Allow signing'),
  effect: 'EFFECT_ALLOW',
  condition: "activity.action == 'SIGN'",
  consensus: 'approvers.count() >= 2',
  notes: 'two approvals to sign',
  createdAt: 1_700_000_000_000,
  updatedAt: 1_700_000_000_000,
  ...o,
});

export const tag = (organizationId: string, o: Partial<TagRecord> = {}): TagRecord => ({
  organizationId,
  tagId: fresh('tag'),
  tagName: fresh('ops'),
  createdAt: 1_700_000_000_000,
  updatedAt: 1_700_000_000_000,
  ...o,
});

export const policyEvaluation = (
  organizationId: string,
  activityId: string,
  o: Partial<PolicyEvaluationRecord> = {},
): PolicyEvaluationRecord => ({
  id: fresh('evaluation'),
  activityId,
  organizationId,
  voteId: fresh('vote'),
  policyEvaluations: [{ policyId: fresh('policy'), outcome: 'OUTCOME_ALLOW' }],
  createdAt: 1_700_000_000_000,
  ...o,
});

export const webhookEndpoint = (
  organizationId: string,
  o: Partial<WebhookEndpointRecord> = {},
): WebhookEndpointRecord => ({
  organizationId,
  endpointId: fresh('endpoint'),
  url: 'https://hooks.example.com/keyhold',
  name: fresh('hook'),
  isActive: true,
  subscriptions: [{ eventType: 'ACTIVITY_UPDATES', isActive: true }],
  createdAt: 1_700_000_000_000,
  updatedAt: 1_700_000_000_000,
  ...o,
});

export const webhookDelivery = (
  organizationId: string,
  endpointId: string,
  o: Partial<WebhookDelivery> = {},
): WebhookDelivery => ({
  deliveryId: fresh('delivery'),
  eventId: fresh('event'),
  organizationId,
  endpointId,
  url: 'https://hooks.example.com/keyhold',
  eventType: 'ACTIVITY_UPDATES',
  body: JSON.stringify({ id: fresh('activity'), status: 'ACTIVITY_STATUS_COMPLETED' }),
  attempts: 0,
  nextAttemptAt: 1_700_000_000_000,
  createdAt: 1_700_000_000_000,
  ...o,
});

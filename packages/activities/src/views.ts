/**
 * Records → wire objects. The only place that decides what a client sees of a record, so a
 * sealed secret can never leak into a response by accident: views copy named fields only.
 * @module
 */
import {
  type Activity,
  type ApiKey,
  type Authenticator,
  activityDefinitionOf,
  type FiatOnRampCredential,
  type Oauth2Credential,
  type OauthProvider,
  type Policy,
  type PolicyEvaluation,
  type PrivateKey,
  type SmartContractInterface,
  type Tag,
  type TagType,
  timestampOf,
  type User,
  type Vote,
  type Wallet,
  type WalletAccount,
  type WebhookEndpoint,
} from '@keyhold/protocol';
import type {
  ActivityRecord,
  ApiKeyRecord,
  AuthenticatorRecord,
  FiatOnRampCredentialRecord,
  InvitationRecord,
  Oauth2CredentialRecord,
  OauthProviderRecord,
  PolicyEvaluationRecord,
  PolicyRecord,
  PrivateKeyRecord,
  SmartContractInterfaceRecord,
  TagRecord,
  UserRecord,
  VoteRecord,
  WalletAccountRecord,
  WalletRecord,
  WebhookEndpointRecord,
} from './records.js';
import { credentialTypeOf } from './records.js';

export function apiKeyView(key: ApiKeyRecord): ApiKey {
  return {
    credential: { publicKey: key.publicKey, type: credentialTypeOf(key) },
    apiKeyId: key.apiKeyId,
    apiKeyName: key.apiKeyName,
    createdAt: timestampOf(key.createdAt),
    updatedAt: timestampOf(key.updatedAt),
    ...(key.expirationSeconds !== undefined ? { expirationSeconds: key.expirationSeconds } : {}),
  };
}

/** A passkey as `get_authenticator(s)` and a user's `authenticators` show it (wire-compat §1.2). */
export function authenticatorView(authenticator: AuthenticatorRecord): Authenticator {
  return {
    transports: [...authenticator.transports],
    attestationType: authenticator.attestationType,
    aaguid: authenticator.aaguid,
    credentialId: authenticator.credentialId,
    // Keyhold reads no authenticator metadata service: the model is not known.
    model: '',
    credential: {
      publicKey: authenticator.publicKey,
      type: 'CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR',
    },
    authenticatorId: authenticator.authenticatorId,
    authenticatorName: authenticator.authenticatorName,
    createdAt: timestampOf(authenticator.createdAt),
    updatedAt: timestampOf(authenticator.updatedAt),
  };
}

/** An OAuth provider as `get_oauth_providers` and a user's `oauthProviders` show it. */
export function oauthProviderView(provider: OauthProviderRecord): OauthProvider {
  return {
    providerId: provider.providerId,
    providerName: provider.providerName,
    issuer: provider.issuer,
    audience: provider.audience,
    subject: provider.subject,
    createdAt: timestampOf(provider.createdAt),
    updatedAt: timestampOf(provider.updatedAt),
  };
}

export function userView(
  user: UserRecord,
  apiKeys: readonly ApiKeyRecord[],
  authenticators: readonly AuthenticatorRecord[] = [],
  oauthProviders: readonly OauthProviderRecord[] = [],
): User {
  return {
    userId: user.userId,
    userName: user.userName,
    ...(user.userEmail !== undefined ? { userEmail: user.userEmail } : {}),
    ...(user.userPhoneNumber !== undefined ? { userPhoneNumber: user.userPhoneNumber } : {}),
    authenticators: authenticators.map(authenticatorView),
    apiKeys: apiKeys.map(apiKeyView),
    userTags: [...user.userTags],
    oauthProviders: oauthProviders.map(oauthProviderView),
    createdAt: timestampOf(user.createdAt),
    updatedAt: timestampOf(user.updatedAt),
  };
}

export function walletView(wallet: WalletRecord): Wallet {
  return {
    walletId: wallet.walletId,
    walletName: wallet.walletName,
    createdAt: timestampOf(wallet.createdAt),
    updatedAt: timestampOf(wallet.updatedAt),
    exported: wallet.exported,
    imported: wallet.imported,
  };
}

export function walletAccountView(
  account: WalletAccountRecord,
  wallet?: WalletRecord,
): WalletAccount {
  return {
    walletAccountId: account.walletAccountId,
    organizationId: account.organizationId,
    walletId: account.walletId,
    curve: account.curve,
    pathFormat: account.pathFormat,
    path: account.path,
    addressFormat: account.addressFormat,
    address: account.address,
    publicKey: account.publicKey,
    createdAt: timestampOf(account.createdAt),
    updatedAt: timestampOf(account.updatedAt),
    ...(wallet ? { walletDetails: walletView(wallet) } : {}),
  };
}

export function privateKeyView(key: PrivateKeyRecord): PrivateKey {
  return {
    privateKeyId: key.privateKeyId,
    publicKey: key.publicKey,
    privateKeyName: key.privateKeyName,
    curve: key.curve,
    addresses: key.addresses.map((a) => ({ format: a.format, address: a.address })),
    privateKeyTags: [...key.privateKeyTags],
    createdAt: timestampOf(key.createdAt),
    updatedAt: timestampOf(key.updatedAt),
    exported: key.exported,
    imported: key.imported,
  };
}

export function voteView(vote: VoteRecord): Vote {
  return {
    id: vote.id,
    userId: vote.userId,
    user: vote.user,
    activityId: vote.activityId,
    selection: vote.selection,
    message: vote.message,
    publicKey: vote.publicKey,
    signature: vote.signature,
    scheme: vote.scheme,
    createdAt: timestampOf(vote.createdAt),
  };
}

/** What the user reading an activity may do with it (both false unless computed for them). */
export interface VotingRights {
  canApprove: boolean;
  canReject: boolean;
}

export const NO_VOTING_RIGHTS: VotingRights = { canApprove: false, canReject: false };

/**
 * The wire Activity: intent and result under the keys the clients read. `canApprove` and
 * `canReject` say what the reader may do; they are only ever true while the activity awaits
 * consensus (see `votingRights`).
 */
export function activityView(
  record: ActivityRecord,
  rights: VotingRights = NO_VOTING_RIGHTS,
): Activity {
  const def = activityDefinitionOf(record.type);
  const intentKey = def?.intentKey ?? 'intent';
  const resultKey = def?.resultKey ?? 'result';
  const pending = record.status === 'ACTIVITY_STATUS_CONSENSUS_NEEDED';
  return {
    id: record.id,
    organizationId: record.organizationId,
    status: record.status,
    type: record.type,
    intent: { [intentKey]: record.parameters },
    result: record.result ? { [resultKey]: record.result } : {},
    votes: record.votes.map(voteView),
    fingerprint: record.fingerprint,
    canApprove: pending && rights.canApprove,
    canReject: pending && rights.canReject,
    createdAt: timestampOf(record.createdAt),
    updatedAt: timestampOf(record.updatedAt),
    ...(record.failure ? { failure: record.failure } : {}),
    timestampMs: record.timestampMs,
  };
}

export function policyView(policy: PolicyRecord): Policy {
  return {
    policyId: policy.policyId,
    policyName: policy.policyName,
    effect: policy.effect,
    createdAt: timestampOf(policy.createdAt),
    updatedAt: timestampOf(policy.updatedAt),
    notes: policy.notes,
    consensus: policy.consensus ?? '',
    condition: policy.condition ?? '',
    ...(policy.time !== undefined ? { time: policy.time } : {}),
  };
}

/**
 * `v1Invitation`, as `get_organization` lists it (`organizationData.invitations`).
 * @example
 * invitations.map(invitationView);
 */
export function invitationView(invitation: InvitationRecord) {
  return {
    invitationId: invitation.invitationId,
    receiverUserName: invitation.receiverUserName,
    receiverEmail: invitation.receiverEmail,
    receiverUserTags: [...invitation.receiverUserTags],
    accessType: invitation.accessType,
    status: invitation.status,
    createdAt: timestampOf(invitation.createdAt),
    updatedAt: timestampOf(invitation.updatedAt),
    senderUserId: invitation.senderUserId,
  };
}

export function tagView(tag: TagRecord, tagType: TagType): Tag {
  return {
    tagId: tag.tagId,
    tagName: tag.tagName,
    tagType,
    createdAt: timestampOf(tag.createdAt),
    updatedAt: timestampOf(tag.updatedAt),
  };
}

export function policyEvaluationView(evaluation: PolicyEvaluationRecord): PolicyEvaluation {
  return {
    id: evaluation.id,
    activityId: evaluation.activityId,
    organizationId: evaluation.organizationId,
    voteId: evaluation.voteId ?? '',
    policyEvaluations: evaluation.policyEvaluations.map((e) =>
      e.error
        ? { policyId: e.policyId, outcome: e.outcome, error: { ...e.error } }
        : { policyId: e.policyId, outcome: e.outcome },
    ),
    createdAt: timestampOf(evaluation.createdAt),
  };
}

/**
 * `v1WebhookEndpointData`: no timestamps; `filtersJson` only when one was given;
 * `disabledReason` (a Keyhold extension) only while the dispatcher has it disabled.
 */
export function webhookEndpointView(endpoint: WebhookEndpointRecord): WebhookEndpoint {
  return {
    endpointId: endpoint.endpointId,
    organizationId: endpoint.organizationId,
    url: endpoint.url,
    name: endpoint.name,
    isActive: endpoint.isActive,
    ...(endpoint.disabledReason !== undefined ? { disabledReason: endpoint.disabledReason } : {}),
    subscriptions: endpoint.subscriptions.map((s) => ({
      eventType: s.eventType,
      ...(s.filtersJson !== undefined ? { filtersJson: s.filtersJson } : {}),
      isActive: s.isActive,
    })),
  };
}

/** `v1Oauth2Credential` without the client secret (see `Oauth2Credential`). */
export function oauth2CredentialView(record: Oauth2CredentialRecord): Oauth2Credential {
  return {
    oauth2CredentialId: record.oauth2CredentialId,
    organizationId: record.organizationId,
    provider: record.provider,
    clientId: record.clientId,
    createdAt: timestampOf(record.createdAt),
    updatedAt: timestampOf(record.updatedAt),
  };
}

/** `externaldatav1SmartContractInterface` (see `SmartContractInterface`). */
export function smartContractInterfaceView(
  record: SmartContractInterfaceRecord,
): SmartContractInterface {
  return {
    organizationId: record.organizationId,
    smartContractInterfaceId: record.smartContractInterfaceId,
    smartContractAddress: record.smartContractAddress,
    smartContractInterface: record.smartContractInterface,
    type: record.type,
    label: record.label,
    notes: record.notes,
    createdAt: timestampOf(record.createdAt),
    updatedAt: timestampOf(record.updatedAt),
  };
}

/** `v1FiatOnRampCredential` without any secret (see `FiatOnRampCredential`). */
export function fiatOnRampCredentialView(record: FiatOnRampCredentialRecord): FiatOnRampCredential {
  return {
    fiatOnrampCredentialId: record.fiatOnrampCredentialId,
    organizationId: record.organizationId,
    onrampProvider: record.onrampProvider,
    ...(record.projectId !== undefined ? { projectId: record.projectId } : {}),
    publishableApiKey: record.publishableApiKey,
    encryptedSecretApiKey: '',
    sandboxMode: record.sandboxMode,
    createdAt: timestampOf(record.createdAt),
    updatedAt: timestampOf(record.updatedAt),
  };
}

/**
 * The records Keyhold keeps, as the Store port reads and writes them. Times are epoch
 * milliseconds; secrets appear only as SealedSecret handles from the KeyVault.
 * @module
 */

import type { SealedSecret } from '@keyhold/keys';
import type {
  ActivityStatus,
  ActivityType,
  Address,
  AddressFormat,
  ApiKeyCurve,
  AuthenticatorTransport,
  CredentialType,
  Curve,
  Effect,
  Outcome,
  PathFormat,
  PolicyOutcomeError,
  Quorum,
  StatusBody,
  User,
  VoteSelection,
} from '@keyhold/protocol';
import { CREDENTIAL_TYPE_OF_API_KEY_CURVE } from '@keyhold/protocol';

/** An organization (root or sub-organization) as stored. */
export interface OrganizationRecord {
  organizationId: string;
  name: string;
  /** Set for sub-organizations. */
  parentOrganizationId?: string;
  rootQuorum: Quorum;
  /**
   * The origins passkey stamps and registrations may come from (UPDATE_ALLOWED_ORIGINS);
   * absent or empty: any origin whose host the credential's rpId covers. A sub-organization
   * without its own list uses its parent's.
   */
  allowedOrigins?: string[];
  /** CREATE_SUB_ORGANIZATION's `disableEmailAuth`: EMAIL_AUTH is refused here. */
  emailAuthDisabled?: boolean;
  /** CREATE_SUB_ORGANIZATION's `disableEmailRecovery`: INIT_USER_EMAIL_RECOVERY is refused here. */
  emailRecoveryDisabled?: boolean;
  createdAt: number;
  updatedAt: number;
}

/** A user of an organization as stored, with its tags (as tag ids). */
export interface UserRecord {
  organizationId: string;
  userId: string;
  userName: string;
  userEmail?: string;
  userPhoneNumber?: string;
  userTags: string[];
  /**
   * When a verification token of VERIFY_OTP proved `userEmail` (sign-up, UPDATE_USER_EMAIL);
   * cleared when the address changes without one. What `list_verified_suborgs` reads.
   */
  emailVerifiedAt?: number;
  /** The same for `userPhoneNumber`. */
  phoneNumberVerifiedAt?: number;
  createdAt: number;
  updatedAt: number;
}

/** An API key of a user as stored: the public key that stamps the user's requests. */
export interface ApiKeyRecord {
  organizationId: string;
  userId: string;
  apiKeyId: string;
  apiKeyName: string;
  /** Lower-case hex: compressed SEC1 (P-256, secp256k1) or 32-byte Ed25519. */
  publicKey: string;
  curve: ApiKeyCurve;
  /**
   * What made the key, when not CREATE_API_KEYS or a user's creation: a session key
   * (`CREDENTIAL_TYPE_LOGIN` from STAMP_LOGIN, `CREDENTIAL_TYPE_READ_WRITE_SESSION_KEY_P256`
   * from CREATE_READ_WRITE_SESSION). Absent: the API key type of its curve.
   */
  credentialType?: CredentialType;
  /** As submitted; absent for long-lived keys. */
  expirationSeconds?: string;
  /** Epoch ms after which the key is refused; absent for long-lived keys. */
  expiresAt?: number;
  createdAt: number;
  updatedAt: number;
}

/**
 * A passkey (WebAuthn credential) of a user as stored: what its registration attested, and
 * the signature counter of its last accepted assertion.
 */
export interface AuthenticatorRecord {
  organizationId: string;
  userId: string;
  authenticatorId: string;
  authenticatorName: string;
  /** base64url without padding; unique in its organization. */
  credentialId: string;
  /** The credential's COSE public key, base64url without padding. */
  publicKey: string;
  /** The COSE algorithm of the key: -7 (ES256), -257 (RS256), -8 (EdDSA). */
  algorithm: number;
  /** The authenticator model's AAGUID, base64url of its 16 bytes. */
  aaguid: string;
  /** The attestation format it was registered with (`none`, `packed`, `tpm`, …). */
  attestationType: string;
  transports: AuthenticatorTransport[];
  /**
   * The signature counter of the last accepted assertion (registration's to start with); 0
   * while the authenticator does not count.
   */
  signCount: number;
  createdAt: number;
  updatedAt: number;
}

/**
 * The credential type of an API key, as `credential.type` and consensus conditions see it.
 * @example
 * credentialTypeOf(sessionKey); // 'CREDENTIAL_TYPE_LOGIN'
 */
export function credentialTypeOf(key: ApiKeyRecord): CredentialType {
  return key.credentialType ?? CREDENTIAL_TYPE_OF_API_KEY_CURVE[key.curve];
}

/** An HD wallet as stored; its seed only as the KeyVault sealed it. */
export interface WalletRecord {
  organizationId: string;
  walletId: string;
  walletName: string;
  seed: SealedSecret;
  mnemonicLength: number;
  exported: boolean;
  imported: boolean;
  createdAt: number;
  updatedAt: number;
}

/** One derived account of a wallet as stored: its path, curve, address and public key. */
export interface WalletAccountRecord {
  organizationId: string;
  walletId: string;
  walletAccountId: string;
  curve: Curve;
  pathFormat: PathFormat;
  path: string;
  addressFormat: AddressFormat;
  address: string;
  /** Hex, compressed SEC1 or Ed25519. */
  publicKey: string;
  key: SealedSecret;
  /**
   * Set by EXPORT_WALLET_ACCOUNT. The account also counts as exported when its wallet was
   * (`WalletRecord.exported`); either allows DELETE_WALLET_ACCOUNTS without
   * `deleteWithoutExport`.
   */
  exported: boolean;
  createdAt: number;
  updatedAt: number;
}

/** A standalone private key as stored; the key only as the KeyVault sealed it. */
export interface PrivateKeyRecord {
  organizationId: string;
  privateKeyId: string;
  privateKeyName: string;
  curve: Curve;
  publicKey: string;
  addresses: Address[];
  privateKeyTags: string[];
  key: SealedSecret;
  exported: boolean;
  imported: boolean;
  disabled: boolean;
  createdAt: number;
  updatedAt: number;
}

/** One vote (approval or rejection) on an activity. */
export interface VoteRecord {
  id: string;
  activityId: string;
  userId: string;
  /** The API key that stamped the vote (absent on votes stored before it was recorded). */
  apiKeyId?: string;
  /** The passkey that stamped the vote, when a passkey did. */
  authenticatorId?: string;
  /** The voter as they were when they voted. */
  user: User;
  selection: VoteSelection;
  /** The exact request body the voter signed. */
  message: string;
  publicKey: string;
  signature: string;
  scheme: string;
  createdAt: number;
}

/** An activity as stored: its intent, status, votes and result. */
export interface ActivityRecord {
  id: string;
  organizationId: string;
  type: ActivityType;
  status: ActivityStatus;
  /** The submitted `parameters`. */
  parameters: Record<string, unknown>;
  /** The result member's content once completed. */
  result?: Record<string, unknown>;
  failure?: StatusBody;
  votes: VoteRecord[];
  /** `sha256:` + hex(sha256(raw body)). */
  fingerprint: string;
  timestampMs: string;
  createdAt: number;
  updatedAt: number;
}

/** A policy of an organization as stored: effect, condition and consensus texts. */
export interface PolicyRecord {
  organizationId: string;
  policyId: string;
  /** Unique in the organization ("policy label must be unique"). */
  policyName: string;
  effect: Effect;
  /** Policy-language texts; absent means "always" (checked by the engine when written). */
  condition?: string;
  consensus?: string;
  time?: string;
  notes: string;
  createdAt: number;
  updatedAt: number;
}

/**
 * A user tag or a private-key tag. Membership lives on the tagged record
 * (`UserRecord.userTags`, `PrivateKeyRecord.privateKeyTags`), as tag ids.
 */
export interface TagRecord {
  organizationId: string;
  tagId: string;
  /** Unique per organization and kind of tag. */
  tagName: string;
  createdAt: number;
  updatedAt: number;
}

/** A user tag. */
export type UserTagRecord = TagRecord;
/** A private-key tag. */
export type PrivateKeyTagRecord = TagRecord;

/** The outcome of one policy in one decision. */
export interface PolicyOutcomeRecord {
  policyId: string;
  outcome: Outcome;
  /** For OUTCOME_ERROR: why, and whether it counted as a deny (kept for get_policy_evaluations). */
  error?: PolicyOutcomeError;
}

/** One decision on an activity (per vote): the outcome of every policy of the organization. */
export interface PolicyEvaluationRecord {
  id: string;
  activityId: string;
  organizationId: string;
  /** The vote that caused the decision. */
  voteId?: string;
  policyEvaluations: PolicyOutcomeRecord[];
  createdAt: number;
}

/** One event subscription of a webhook endpoint (only `ACTIVITY_UPDATES` is accepted). */
export interface WebhookSubscriptionRecord {
  eventType: string;
  /** As submitted (valid JSON, checked when written); absent when none was given. */
  filtersJson?: string;
  isActive: boolean;
}

/**
 * A webhook endpoint of an organization. Its URL was checked when written (public https, or
 * private and loopback destinations too when the server allows them); whether it resolves to
 * a public address is checked at delivery time. Subscriptions are fixed at creation.
 */
export interface WebhookEndpointRecord {
  organizationId: string;
  endpointId: string;
  url: string;
  name: string;
  isActive: boolean;
  /**
   * Why the delivery dispatcher turned the endpoint off (it kept failing, answered 410, or its
   * URL can never be delivered to); absent otherwise. Cleared when it is made active again.
   */
  disabledReason?: string;
  subscriptions: WebhookSubscriptionRecord[];
  createdAt: number;
  updatedAt: number;
}

/**
 * A one-time code sent by INIT_OTP. The code itself is never stored: `codeMac` is an
 * HMAC-SHA256 of it under a key derived from the server's TLS-fetcher key, so a copy of the
 * table does not let anyone try codes offline.
 */
export interface OtpRecord {
  /** The organization that sent the code (where VERIFY_OTP must run). */
  organizationId: string;
  otpId: string;
  /** `OTP_TYPE_EMAIL` or `OTP_TYPE_SMS`. */
  otpType: string;
  /** The address or phone number the code went to, normalized (emails lower-cased). */
  contact: string;
  /** Hex HMAC-SHA256 of the code (see `otp-code.ts`). */
  codeMac: string;
  /** Wrong codes tried so far; at `MAX_OTP_ATTEMPTS` the code is burned. */
  attempts: number;
  expiresAt: number;
  /** When VERIFY_OTP accepted the code: it is not accepted again. */
  verifiedAt?: number;
  /** When OTP_LOGIN used the verification token issued for it: it is not used again. */
  tokenUsedAt?: number;
  /**
   * When a sign-up (CREATE_SUB_ORGANIZATION) used the token: it signs up once. A sign-up is
   * its own use, apart from the login's: `@turnkey/core` signs up and then logs in with the
   * same token (`signUpWithOtp`), each under its own client signature.
   */
  signupUsedAt?: number;
  createdAt: number;
  updatedAt: number;
}

/**
 * One link of an organization's audit chain (see `audit/audit-chain.ts`): `hash` is the hex
 * SHA-256 of the previous link's hash (64 zeros before the first), a newline, and `body`.
 */
export interface AuditEntryRecord {
  organizationId: string;
  /** 1, 2, 3… within the organization, without gaps. */
  seq: number;
  /** The entry as JSON text: exactly what is hashed. */
  body: string;
  hash: string;
  createdAt: number;
}

/** The newest link of an organization's audit chain: what a cut-off tail is checked against. */
export interface AuditHeadRecord {
  organizationId: string;
  seq: number;
  hash: string;
  createdAt: number;
  updatedAt: number;
}

/**
 * An invitation (CREATE_INVITATIONS): the invitee is a user of the organization from the
 * start, holding only the invitation key whose private half was mailed to them; ACCEPT_INVITATION,
 * stamped with that key, adds their passkey and removes the key. Nothing secret is stored.
 */
export interface InvitationRecord {
  organizationId: string;
  invitationId: string;
  receiverUserName: string;
  /** The address the invitation was mailed to, as given. */
  receiverEmail: string;
  receiverUserTags: string[];
  /** `ACCESS_TYPE_WEB`, `ACCESS_TYPE_API` or `ACCESS_TYPE_ALL`. */
  accessType: string;
  /** `INVITATION_STATUS_CREATED`, `INVITATION_STATUS_ACCEPTED` or `INVITATION_STATUS_REVOKED`. */
  status: string;
  senderUserId: string;
  /** The invitee's user. */
  userId: string;
  /** The invitation key's API key id (removed on acceptance or revocation). */
  apiKeyId: string;
  createdAt: number;
  updatedAt: number;
}

/**
 * What an organization document is: an organization feature (id: the feature name), the auth
 * proxy's setting and configuration (id `auth_proxy`), a TVC app, operator set, operator,
 * deployment, manifest or manifest approval, a payment method (its last four digits and
 * holder: never a card number or CVV), the billing tier (id `billing_tier`), or the app proof
 * of an activity (id: the activity id).
 */
export type OrganizationDocumentKind =
  | 'feature'
  | 'auth_proxy'
  | 'tvc_app'
  | 'tvc_operator_set'
  | 'tvc_operator'
  | 'tvc_deployment'
  | 'tvc_manifest'
  | 'tvc_manifest_approval'
  | 'payment_method'
  | 'billing_tier'
  | 'app_proof';

/**
 * A small record of an organization that has no table of its own (the settings and records
 * of issue 15), by kind: its members are the `body` the kind's handler writes and its views
 * read. Nothing secret goes in a body.
 */
export interface OrganizationDocumentRecord {
  organizationId: string;
  kind: OrganizationDocumentKind;
  documentId: string;
  body: Record<string, unknown>;
  createdAt: number;
  updatedAt: number;
}

/**
 * An OAuth 2.0 credential of the organization (CREATE_OAUTH2_CREDENTIAL): the app's client id
 * at an OAuth 2.0-only provider and its client secret, sealed. The secret is never stored in
 * the clear nor returned: `sealedClientSecret` is AES-256-GCM under a key derived from the
 * master key, bound to this record (see `oauth2-credentials.ts`).
 */
export interface Oauth2CredentialRecord {
  organizationId: string;
  oauth2CredentialId: string;
  /** `OAUTH2_PROVIDER_X` or `OAUTH2_PROVIDER_DISCORD`. */
  provider: string;
  clientId: string;
  sealedClientSecret: string;
  createdAt: number;
  updatedAt: number;
}

/**
 * Where a payment of the payment gateway is in its life: `verified` (claimed, nothing sent),
 * `submitted` (a signed transfer recorded, then broadcast), `settled` or `failed` (a receipt,
 * or a refusal before anything was sent), `unknown` (sent, no receipt by the deadline; the
 * reconciler settles it from the chain).
 */
export type PaymentStatus = 'verified' | 'submitted' | 'settled' | 'failed' | 'unknown';

/**
 * A payment of the payment gateway (`@keyhold/payments`): one EIP-3009 authorization, claimed
 * once (`authorizationKey` is unique), with the exact signed transaction that settles it so a
 * restart can find it on chain or broadcast the same bytes, never a second transfer.
 */
export interface PaymentRecord {
  /** The organization the payment belongs to: the operator's for `/settle`, the charger's. */
  organizationId: string;
  /** The x402 `payment-identifier` when the payload carries one, else `pay_<uuid>`. */
  paymentId: string;
  /** The gateway's network name (`base-sepolia`). */
  network: string;
  x402Version: number;
  status: PaymentStatus;
  /** `settle` or `charge`. */
  source: string;
  payer: string;
  payTo: string;
  asset: string;
  amount: string;
  /** `<chainId>:<asset>:<from>:<nonce>`, lower-case: one record per authorization, ever. */
  authorizationKey: string;
  /** SHA-256 of the payment payload and requirements, for idempotent answers. */
  payloadHash: string;
  /** Unix seconds after which the authorization cannot settle. */
  validBefore: number;
  /** The settling transaction's hash. */
  transaction?: string;
  /** The signed settling transaction (public data), to broadcast the same bytes again. */
  rawTransaction?: string;
  /** The x402 reason of a failure. */
  errorReason?: string;
  createdAt: number;
  updatedAt: number;
}

/**
 * An OIDC identity a user logs in with (CREATE_OAUTH_PROVIDERS, OAUTH_LOGIN, OAUTH): the
 * issuer, audience and subject of the id_token it was registered with (or of the claims given
 * instead). The token itself is never stored. An identity belongs to at most one user of an
 * organization.
 */
export interface OauthProviderRecord {
  organizationId: string;
  providerId: string;
  userId: string;
  providerName: string;
  /** The `iss` claim, as the token carries it. */
  issuer: string;
  /** The `aud` claim: the OAuth client the token was issued to. */
  audience: string;
  /** The `sub` claim: the user at the issuer. */
  subject: string;
  createdAt: number;
  updatedAt: number;
}

/**
 * One transaction of ETH_SEND_TRANSACTION (`sendTransactionStatusId`). The signed bytes are
 * stored in the activity's transaction, before anything is broadcast: a broadcast that was cut
 * short (a crash after the commit) is repeated with the same bytes, never re-signed, so one
 * activity never puts two transactions on the chain. The status itself is read from the chain.
 */
export interface SendTransactionRecord {
  organizationId: string;
  sendTransactionStatusId: string;
  activityId: string;
  /** `eip155:<chainId>`. */
  caip2: string;
  /** The sender, lower-case `0x` address. */
  fromAddress: string;
  /** keccak256 of `signedTransaction`, lower-case `0x`. */
  txHash: string;
  /** The signed serialization (public once broadcast), lower-case `0x` hex. */
  signedTransaction: string;
  /** The sponsor's gas top-up of a sponsored transaction, broadcast first (see `sponsoredWei`). */
  sponsorSignedTransaction?: string;
  sponsorTxHash?: string;
  /** The wei the sponsor paid for gas (`gasLimit * maxFeePerGas`), decimal; absent: none. */
  sponsoredWei?: string;
  /** What the sponsored wei was worth when sent, USD decimal string (the window's usage). */
  sponsoredUsd?: string;
  createdAt: number;
  updatedAt: number;
}

/**
 * A smart-contract interface of the organization (CREATE_SMART_CONTRACT_INTERFACE): an Ethereum
 * ABI or a Solana (Anchor) IDL, as the JSON text uploaded, for one contract address or program
 * id. `addressKey` is how SIGN_TRANSACTION finds it: an Ethereum address in lower case (they
 * are case-insensitive), a Solana program id as given (base58 is case-sensitive). One
 * interface per address and type in an organization.
 */
export interface SmartContractInterfaceRecord {
  organizationId: string;
  smartContractInterfaceId: string;
  /** `SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM` or `SMART_CONTRACT_INTERFACE_TYPE_SOLANA`. */
  type: string;
  smartContractAddress: string;
  addressKey: string;
  smartContractInterface: string;
  label: string;
  notes: string;
  createdAt: number;
  updatedAt: number;
}

/**
 * An organization's gas sponsorship limits (UPSERT_GAS_USAGE_CONFIG): one per organization.
 * USD amounts as decimal strings.
 */
export interface GasUsageConfigRecord {
  organizationId: string;
  gasUsageConfigId: string;
  orgWindowLimitUsd: string;
  subOrgWindowLimitUsd: string;
  windowDurationMinutes: number;
  enabled: boolean;
  createdAt: number;
  updatedAt: number;
}

/**
 * What one activity type does. `precheck` refuses what is wrong with the parameters alone
 * (the request is refused and nothing is stored); `execute` runs against the organization's
 * state inside the activity's transaction, and what it throws makes the activity FAILED.
 * @module
 */

import type { BundleSigner, CryptoWorkPool, KeyVault, SessionNotarizer } from '@keyhold/keys';
import type {
  ActivityDefinition,
  IntentOfKind,
  ResultOfKind,
  ServedKind,
  VoteKind,
} from '@keyhold/protocol';
import type { ActivityScope } from '../activity-scope.js';
import type { SendTransactionChains } from '../ports/evm-send-chain.js';
import type { Ids } from '../ports/ids.js';
import type { Notifier } from '../ports/notifier.js';
import type { Oauth2Gateway } from '../ports/oauth2-gateway.js';
import type { OidcVerifier } from '../ports/oidc-verifier.js';
import type { OnRampProvider } from '../ports/on-ramp-provider.js';
import type { StoreTransaction } from '../ports/store.js';
import type { Principal } from '../principal.js';
import type { OrganizationRecord } from '../records.js';
import type { SigningPlan, StartedSignatures } from '../speculative-signing.js';
import type { GasSponsor } from './gas-sponsorship.js';

export interface ActivityContext {
  readonly tx: StoreTransaction;
  /**
   * The activity's reads, shared with its decision: `resolveSigner(ctx.scope, signWith)` gets
   * the key the policies were evaluated against without reading it again.
   */
  readonly scope: ActivityScope;
  readonly organization: OrganizationRecord;
  readonly principal: Principal;
  readonly vault: KeyVault;
  /**
   * Signatures started before the transaction from the handler's `signingPlan` (see
   * speculative-signing.ts); sign through `signWithStarted(ctx.vault, ctx.started, …)`.
   */
  readonly started?: StartedSignatures;
  /**
   * Where CPU-heavy public-key work runs (addresses of many accounts: a Taproot tweak is a point
   * multiplication): `ctx.work.run('addresses', …)`. Inline unless the server was given a pool.
   */
  readonly work: CryptoWorkPool;
  /** The server's signer key: signs export and import bundles. */
  readonly signer: BundleSigner;
  /** Signs session JWTs (STAMP_LOGIN, CREATE_READ_ONLY_SESSION, OTP_LOGIN). */
  readonly notarizer: SessionNotarizer;
  /** The TLS-fetcher key: signs OTP target bundles and OTP verification tokens. */
  readonly tlsFetcher: BundleSigner;
  /** Sends one-time codes by email or SMS. */
  readonly notifier: Notifier;
  /**
   * OAuth 2 credentials and the code exchange: the TLS-fetcher encryption key (client secrets
   * arrive encrypted to it, and are sealed under a key derived from it), the gateway that
   * reaches the providers, and the issuer of the OIDC tokens OAUTH2_AUTHENTICATE signs.
   */
  readonly oauth2: Oauth2Settings;
  /**
   * The fiat on-ramp: the on-ramp encryption key (provider secrets arrive encrypted to it and
   * are sealed under a key derived from it) and the provider adapters by provider name.
   */
  readonly onRamp: OnRampSettings;
  /** Verifies OIDC id_tokens: signature, trusted issuer, expiry. */
  readonly oidc: OidcVerifier;
  /** The chains of the send-transaction activities (`--evm-rpc`, `--solana-rpc`). */
  readonly chains: SendTransactionChains;
  /** The operator's account that sponsors gas (ETH_SEND_TRANSACTION `sponsor`), if any. */
  readonly gasSponsor?: GasSponsor;
  readonly ids: Ids;
  /** The activity's time (epoch ms): every record it writes carries it. */
  readonly now: number;
  readonly activityId: string;
  readonly definition: ActivityDefinition;
  /**
   * Runs `effect` once the activity's transaction has committed, never if it rolls back: work
   * outside the Store, such as destroying the HSM objects of a deleted key. Effects run in order
   * before the response; one that fails is reported to the service's `onEffectError` and the
   * activity stands (its records are already committed).
   */
  afterCommit(description: string, effect: () => Promise<unknown>): void;
}

/**
 * What the OAuth 2 handlers use (see `ActivityContext.oauth2`).
 * @example
 * const oauth2: Oauth2Settings = { encryptionKey, gateway: noOauth2Gateway('none'), issuer: 'https://keyhold.example' };
 */
export interface Oauth2Settings {
  /** The TLS-fetcher encryption key (`tlsFetcherEncryptPublicKey` is its public half). */
  readonly encryptionKey: BundleSigner;
  readonly gateway: Oauth2Gateway;
  /** The `iss` of the OIDC tokens OAUTH2_AUTHENTICATE issues. */
  readonly issuer: string;
}

/**
 * What the fiat on-ramp handlers use (see `ActivityContext.onRamp`).
 * @example
 * const onRamp: OnRampSettings = { encryptionKey, providers: new Map([[p.provider, p]]) };
 */
export interface OnRampSettings {
  /** The on-ramp encryption key (`onRampEncryptionPublicKey` is its compressed public half). */
  readonly encryptionKey: BundleSigner;
  readonly providers: ReadonlyMap<string, OnRampProvider>;
}

/**
 * What a handler's `verify` reads: the organization the activity is proposed in, through the
 * proposal's transaction. A check there writes nothing.
 */
export interface ProposalContext {
  readonly tx: StoreTransaction;
  readonly organization: OrganizationRecord;
}

/** What `prepare` may use: the ports that reach outside, and the request's time. */
export interface PrepareContext {
  readonly oidc: OidcVerifier;
  /** Epoch ms. */
  readonly now: number;
}

/** Settings of the service that a precheck may depend on. */
export interface PrecheckSettings {
  /**
   * Accept webhook URLs with private, loopback and link-local destinations, and http to
   * loopback hosts (the server's `--allow-private-webhooks`).
   */
  readonly allowPrivateWebhookDestinations: boolean;
}

/**
 * What one activity kind does, with its parameters as its versions' intent schemas type them
 * (`P`) and its result as the wire says it (`R`). Without type arguments it is the handler as
 * the service calls it by run-time kind: parameters already validated, result stored as JSON.
 * `precheck` and `execute` are function-typed members, not methods, so a handler that expects
 * more than its intent guarantees does not type-check (methods would be compared bivariantly).
 * @example
 * const handler: ActivityHandler<{ walletId: string }, { walletId: string }> = {
 *   async execute(ctx, p) {
 *     return { walletId: p.walletId };
 *   },
 * };
 */
export interface ActivityHandler<P = ValidatedIntent, R = ActivityResult> {
  readonly precheck?: (
    parameters: P,
    definition: ActivityDefinition,
    settings: PrecheckSettings,
  ) => void;
  /**
   * Checks of the parameters that need the organization's state or asynchronous work (a
   * passkey's attestation): run after `precheck`, before the decision, so a refusal stores
   * nothing, as a precheck's does.
   */
  readonly verify?: (ctx: ProposalContext, parameters: P) => Promise<void>;
  /**
   * The parameters as the store keeps them, for an intent that carries a secret the handler can
   * check in a derived form (a one-time code as its keyed MAC): the activity's parameters and
   * its first vote's message hold this form, and `execute` receives it, so no stored row or
   * view carries the secret. Runs after `precheck`; a KeyholdError it throws refuses the request.
   */
  readonly storedParameters?: (parameters: P, keys: StorageKeys) => P;
  /**
   * Work outside the Store, run once the parameters passed `precheck` and before the
   * activity's transaction opens: fetching what `execute` will need from the network (an OIDC
   * issuer's discovery document and keys), so no transaction waits on it. What it throws
   * refuses the request, after authentication, as a precheck refusal does.
   */
  readonly prepare?: (ctx: PrepareContext, parameters: P) => Promise<void>;
  /**
   * What `execute` will sign, known from the parameters alone: lets the service start the
   * signatures before the transaction (see speculative-signing.ts). A handler that has one
   * signs with `signWithStarted`.
   */
  readonly signingPlan?: (parameters: P) => SigningPlan;
  /** Returns the content of the result member. */
  readonly execute: (ctx: ActivityContext, parameters: P) => Promise<R>;
}

/**
 * The server keys a handler's `storedParameters` may derive from.
 * @example
 * const keys: StorageKeys = { tlsFetcher: { privateKey } };
 */
export interface StorageKeys {
  readonly tlsFetcher: BundleSigner;
}

/**
 * Parameters that passed `validateIntent` for the definition's type, when the type is known
 * only at run time (the stored activity's `parameters`).
 * @example
 * const parameters: ValidatedIntent = record.parameters;
 */
export type ValidatedIntent = Record<string, unknown>;

/**
 * A result as the activity record stores it, when the type is known only at run time.
 * @example
 * record.result = await handler.execute(ctx, record.parameters); // an ActivityResult
 */
export type ActivityResult = Record<string, unknown>;

/**
 * The kinds with a handler: every served kind but the votes, which the activity service
 * records on their target.
 * @example
 * const kind: HandledKind = 'CREATE_WALLET';
 */
export type HandledKind = Exclude<ServedKind, VoteKind>;

/**
 * The handler of one kind: its parameters are the union of its versions' intents, its result
 * the union of their results.
 * @example
 * export const deletePolicyHandler: HandlerOf<'DELETE_POLICY'> = {
 *   async execute(ctx, p) {
 *     return { policyId: await deletePolicy(ctx, p.policyId) };
 *   },
 * };
 */
export type HandlerOf<K extends HandledKind> = ActivityHandler<IntentOfKind<K>, ResultOfKind<K>>;

/**
 * A handler for every handled kind, each typed by its kind: a served kind without a handler,
 * or a handler of another kind's intent, does not compile.
 * @example
 * const handlers: ActivityHandlerMap = { CREATE_USERS: createUsersHandler, … };
 */
export type ActivityHandlerMap = { readonly [K in HandledKind]: HandlerOf<K> };

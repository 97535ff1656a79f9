/**
 * The activity lifecycle: one submitted body becomes at most one activity.
 *
 * A request is refused (a Status error, nothing stored) when it fails authentication,
 * validation or authorization. Once accepted, the activity is decided (`decision/decide.ts`):
 * it runs at once, or waits in CONSENSUS_NEEDED for votes. It runs in one Store transaction
 * with its effects; if the handler fails, those effects roll back and the activity is stored
 * FAILED with `failure` set. The fingerprint (sha256 of the raw body) makes the same body the
 * same activity, even when two copies race.
 *
 * APPROVE_ACTIVITY and REJECT_ACTIVITY are votes on the activity whose fingerprint they name:
 * each is recorded on that activity (with the exact body the voter signed, the stamp's public
 * key and signature), the activity is decided again, and, when enough approvals have arrived,
 * it runs in the same transaction. The answer to a vote is `{activity}`: the TARGET activity
 * as it is after the vote (COMPLETED with its result, FAILED, REJECTED, or still
 * CONSENSUS_NEEDED). `@turnkey/sdk-server` returns `{...activity.result, activity}` for these
 * calls, so an approval that completes a signature hands the caller the signature.
 * @module
 */

import { createHash } from 'node:crypto';
import {
  type BundleSigner,
  type CryptoWorkPool,
  createSoftwareAppProof,
  inlineCryptoWorkPool,
  type KeyVault,
  type SessionNotarizer,
  softwareNotarizer,
} from '@keyhold/keys';
import {
  type Activity,
  type ActivityDefinition,
  type AppProof,
  activityDefinitionOf,
  isKeyholdError,
  KeyholdError,
  timestampOf,
  VOTE_KINDS,
  type VoteSelection,
  validateEnvelope,
  validateIntent,
} from '@keyhold/protocol';
import { p256 } from '@noble/curves/nist.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import {
  checkIntent,
  definitionAt,
  handlerOf,
  refusalOf,
  requireSameOrganization,
  voteRecordOf,
} from './activity-proposal.js';
import { ActivityScope } from './activity-scope.js';
import { attestedLoginOnly, attestStamp } from './attested-stamp.js';
import { type AuditEvent, appendAuditEvent, auditBody } from './audit/audit-chain.js';
import { requireCredentialScope } from './credential-scope.js';
import { type ActivityDecision, decide } from './decision/decide.js';
import {
  consensusExpired,
  consensusExpiresAt,
  DEFAULT_CONSENSUS_EXPIRY_MS,
  votingRights,
} from './decision/voting-rights.js';
import type {
  ActivityContext,
  ActivityHandler,
  Oauth2Settings,
  OnRampSettings,
  PrecheckSettings,
} from './handlers/activity-handler.js';
import { ExecutionRefusal } from './handlers/execution-refusal.js';
import type { GasSponsor } from './handlers/gas-sponsorship.js';
import { ACTIVITY_HANDLERS } from './handlers/index.js';
import { resolveSigner } from './handlers/resolve-signer.js';
import type { Clock } from './ports/clock.js';
import { noSendTransactionChains, type SendTransactionChains } from './ports/evm-send-chain.js';
import type { Ids } from './ports/ids.js';
import type { Metrics } from './ports/metrics.js';
import { type Notifier, noNotifier } from './ports/notifier.js';
import { noOauth2Gateway, type Oauth2Gateway } from './ports/oauth2-gateway.js';
import { noOidcVerifier, type OidcVerifier } from './ports/oidc-verifier.js';
import type { OnRampProvider } from './ports/on-ramp-provider.js';
import type { SignatureVerifier } from './ports/signature-verifier.js';
import {
  type ResourceCounts,
  type Store,
  StoreConflictError,
  type StoreTransaction,
} from './ports/store.js';
import { findPrincipal, type Principal } from './principal.js';
import { activityCost } from './rate-limit/activity-cost.js';
import type { RequestMeter } from './rate-limit/request-admission.js';
import type {
  ActivityRecord,
  OrganizationRecord,
  PolicyEvaluationRecord,
  VoteRecord,
} from './records.js';
import {
  createdOrganizationOf,
  hasResourceLimits,
  NO_RESOURCES,
  type ResourceLimits,
  requireResourceLimits,
} from './resource-limits.js';
import { type IncomingRequest, organizationIdOf, readSignedRequest } from './signed-request.js';
import { requireSigningQuota, type SigningQuotas } from './signing-quota.js';
import {
  type RecentSigner,
  RecentSigners,
  type SigningPlan,
  StartedSignatures,
} from './speculative-signing.js';
import type { ApiKeyStamp, Stamp } from './stamp.js';
import { findSubmitter } from './submitter.js';
import { activityView } from './views.js';
import { enqueueActivityUpdate } from './webhook-events.js';

/** Tuning of an ActivityService; every field has a default. */
export interface ActivityServiceOptions {
  /** How far `timestampMs` may be from the server's clock, either way. Default 5 minutes. */
  timestampToleranceMs?: number;
  /**
   * How long an activity awaiting consensus accepts votes, counted from its first vote (the
   * submission). Default 24 hours. A vote after that is refused ("consensus expired").
   */
  consensusExpiryMs?: number;
  /**
   * Accept webhook endpoint URLs with private, loopback and link-local destinations, and
   * http to loopback hosts (the server's `--allow-private-webhooks`). Default false.
   */
  allowPrivateWebhookDestinations?: boolean;
  /** Monthly signing quotas (see `signing-quota.ts`); default none. */
  quotas?: SigningQuotas;
  /**
   * Per-organization resource limits (see `resource-limits.ts`); default none. Refusals name
   * `quotas.supportContact`.
   */
  resourceLimits?: ResourceLimits;
  /**
   * Start a signature on the work pool before its activity's transaction when the API key
   * signed with that key before (see speculative-signing.ts). Default true; it applies only
   * with a work pool of threads.
   */
  speculativeSigning?: boolean;
}

/** What an ActivityService runs on: the Store, KeyVault, Clock, Ids and SignatureVerifier ports. */
export interface ActivityServiceDeps {
  store: Store;
  vault: KeyVault;
  /** Times policy decisions. Default: none. */
  metrics?: Metrics;
  /**
   * Where handlers run CPU-heavy public-key jobs (`ActivityContext.work`). Default: inline. The
   * server passes the pool its vault derives in, so both draw from the same threads.
   */
  workPool?: CryptoWorkPool;
  /** Signs export and import bundles. Default: a random key (bundles die with the process). */
  signer?: BundleSigner;
  /** Signs session JWTs. Default: a random key (sessions verify only while the process runs). */
  notarizer?: SessionNotarizer;
  /**
   * The TLS-fetcher key: signs OTP target bundles and verification tokens. Default: a random
   * key (tokens verify only while the process runs).
   */
  tlsFetcher?: BundleSigner;
  /** Sends one-time codes. Default: none (INIT_OTP answers that no transport is configured). */
  notifier?: Notifier;
  /**
   * The TLS-fetcher encryption key: OAuth 2 client secrets arrive encrypted to it. Default: a
   * random key (credentials stored under it open only while the process runs).
   */
  tlsFetcherEncrypt?: BundleSigner;
  /** Reaches OAuth 2 providers (OAUTH2_AUTHENTICATE). Default: none (the exchange is refused). */
  oauth2Gateway?: Oauth2Gateway;
  /**
   * The `iss` of the OIDC tokens OAUTH2_AUTHENTICATE issues, or a function that answers it (a
   * server that learns its URL once it listens). Default
   * `https://keyhold.invalid/keyhold/v1/oauth2` (the server's `DEFAULT_OAUTH2_ISSUER`).
   */
  oauth2Issuer?: string | (() => string);
  /** Verifies OIDC id_tokens (OAuth providers and logins). Default: none trusted. */
  oidcVerifier?: OidcVerifier;
  /**
   * The on-ramp encryption key: fiat on-ramp provider secrets arrive encrypted to it
   * (`encryptOnRampSecret`). Default: a random key (credentials stored under it open only while
   * the process runs).
   */
  onRampEncrypt?: BundleSigner;
  /** The fiat on-ramp provider adapters (INIT_FIAT_ON_RAMP). Default: none (refused). */
  onRampProviders?: readonly OnRampProvider[];
  /**
   * The chains ETH_SEND_TRANSACTION, ETH_SEND_RAW_TRANSACTION and SOL_SEND_TRANSACTION
   * broadcast on. Default: none (they answer EVM_RPC_NOT_CONFIGURED, SOLANA_RPC_NOT_CONFIGURED).
   */
  chains?: SendTransactionChains;
  /**
   * The operator's gas sponsor (see `gas-sponsorship.ts`), or a function that answers it (a
   * server whose sponsor account is opened after the service is made). Default: none.
   */
  gasSponsor?: GasSponsor | (() => GasSponsor | undefined);
  verifier: SignatureVerifier;
  clock: Clock;
  ids: Ids;
  options?: ActivityServiceOptions;
  /**
   * Told when an after-commit effect fails (see `ActivityContext.afterCommit`); the activity
   * has committed and stands. Default: ignored. The server passes its logger.
   */
  onEffectError?: (description: string, error: unknown) => void;
}

/** Work to run after an activity's transaction commits. */
interface AfterCommitEffect {
  readonly description: string;
  readonly run: () => Promise<unknown>;
}

export const DEFAULT_TIMESTAMP_TOLERANCE_MS = 5 * 60 * 1000;

/** `{gasSponsor}` when there is one now, else nothing. */
function sponsorOf(sponsor: ActivityServiceDeps['gasSponsor']): { gasSponsor?: GasSponsor } {
  const now = typeof sponsor === 'function' ? sponsor() : sponsor;
  return now ? { gasSponsor: now } : {};
}

/** The OIDC issuer as a function, whichever way it was given. */
function issuerOf(issuer: string | (() => string) | undefined): () => string {
  if (typeof issuer === 'function') return issuer;
  const fixed = issuer ?? 'https://keyhold.invalid/keyhold/v1/oauth2';
  return () => fixed;
}

export { DEFAULT_CONSENSUS_EXPIRY_MS };

/** The fingerprint of a raw body: `sha256:` + lower-case hex. */
export function fingerprintOf(rawBody: Uint8Array): string {
  // node:crypto, not noble: 3.4 µs against 11 µs for a 600-byte body, once per request.
  return `sha256:${createHash('sha256').update(rawBody).digest('hex')}`;
}

const CONSENSUS_NEEDED = 'ACTIVITY_STATUS_CONSENSUS_NEEDED';

export async function requireOrganization(
  tx: StoreTransaction,
  organizationId: string,
): Promise<OrganizationRecord> {
  const org = await tx.organizations.get(organizationId);
  if (!org) throw new KeyholdError('ORGANIZATION_NOT_FOUND');
  return org;
}

/**
 * What a decision refuses with, HTTP 403 either way. An applicable DENY policy answers
 * Turnkey's "policy engine denied request explicitly" with empty details (clients copy
 * details into their error message). The deciding policy ids stay in the error's context (for
 * callers of this service), never on the wire. Otherwise "request not authorized", saying why.
 */
function notAuthorized(decision: ActivityDecision): KeyholdError {
  if (decision.reason === 'explicit-deny') {
    return new KeyholdError('POLICY_DENIED_EXPLICITLY', {
      policyIds: [...decision.decidingPolicyIds],
    });
  }
  return new KeyholdError('REQUEST_NOT_AUTHORIZED', {
    reason:
      decision.reason === 'root-quorum-only'
        ? 'only the root quorum may approve this activity'
        : 'no policy allows this request',
  });
}

interface ParsedSubmission {
  definition: ActivityDefinition;
  /**
   * What the stateless checks of the intent (schema, precheck) refused, found before the
   * transaction and thrown where it always was: after authentication and liveness.
   */
  refusal: KeyholdError | undefined;
  organizationId: string;
  fingerprint: string;
  parameters: Record<string, unknown>;
  body: Record<string, unknown>;
  stamp: Stamp;
  text: string;
  /** What the rate limiter charges once the stamp verified (see `activityCost`). */
  cost: number;
  meter: RequestMeter | undefined;
  /** What the handler will sign, when signatures may start early (see speculative-signing.ts). */
  plan: SigningPlan | undefined;
  /** The signatures started before the transaction, if any. */
  started: StartedSignatures | undefined;
}

/** Who an audit entry of a refusal names: the organization and user the stamp verified. */
interface AuditSubject {
  readonly organizationId: string;
  readonly userId: string;
}

/**
 * The activity path: verifies the stamp, validates the intent, decides it by policy and
 * consensus, runs its handler and stores the result, all in one store transaction. Votes
 * (APPROVE_ACTIVITY, REJECT_ACTIVITY) go the same way.
 *
 * @example
 * ```ts
 * const activities = new ActivityService({
 *   store: new MemoryStore(),
 *   vault: new SoftwareKeyVault({ masterKey: generateMasterKey() }),
 *   verifier: nobleSignatureVerifier,
 *   clock: systemClock,
 *   ids: randomIds(),
 * });
 * const activity = await activities.submit('create_wallet', { headers, rawBody });
 * ```
 */
export class ActivityService {
  private readonly tolerance: number;
  private readonly consensusExpiryMs: number;
  private readonly precheckSettings: PrecheckSettings;

  private readonly signer: BundleSigner;
  private readonly notarizer: SessionNotarizer;
  private readonly tlsFetcher: BundleSigner;
  private readonly notifier: Notifier;
  private readonly oauth2: Omit<Oauth2Settings, 'issuer'> & { issuer: () => string };
  private readonly oidcVerifier: OidcVerifier;
  private readonly onRamp: OnRampSettings;
  private readonly workPool: CryptoWorkPool;
  /** Keys recently signed with, by API key (see speculative-signing.ts); none with no pool. */
  private readonly recentSigners: RecentSigners | undefined;

  constructor(private readonly deps: ActivityServiceDeps) {
    this.signer = deps.signer ?? { privateKey: p256.utils.randomSecretKey() };
    this.notarizer = deps.notarizer ?? softwareNotarizer(p256.utils.randomSecretKey());
    this.tlsFetcher = deps.tlsFetcher ?? { privateKey: p256.utils.randomSecretKey() };
    this.notifier = deps.notifier ?? noNotifier('no notifier configured');
    this.oauth2 = {
      encryptionKey: deps.tlsFetcherEncrypt ?? { privateKey: p256.utils.randomSecretKey() },
      gateway: deps.oauth2Gateway ?? noOauth2Gateway('no OAuth 2 gateway configured'),
      issuer: issuerOf(deps.oauth2Issuer),
    };
    this.oidcVerifier = deps.oidcVerifier ?? noOidcVerifier();
    this.onRamp = {
      encryptionKey: deps.onRampEncrypt ?? { privateKey: p256.utils.randomSecretKey() },
      providers: new Map((deps.onRampProviders ?? []).map((p) => [p.provider, p])),
    };
    this.workPool = deps.workPool ?? inlineCryptoWorkPool();
    // Inline, a signature started early would run on the event loop all the same: no gain.
    this.recentSigners =
      this.workPool.kind === 'inline' || deps.options?.speculativeSigning === false
        ? undefined
        : new RecentSigners();
    this.tolerance = deps.options?.timestampToleranceMs ?? DEFAULT_TIMESTAMP_TOLERANCE_MS;
    this.consensusExpiryMs = deps.options?.consensusExpiryMs ?? DEFAULT_CONSENSUS_EXPIRY_MS;
    this.precheckSettings = {
      allowPrivateWebhookDestinations: deps.options?.allowPrivateWebhookDestinations ?? false,
    };
  }

  /**
   * Submits the stamped body posted to `/public/v1/submit/<path>`. With a `meter`, the request
   * is charged to its user and organization once its stamp verified, before any work.
   */
  async submit(path: string, request: IncomingRequest, meter?: RequestMeter): Promise<Activity> {
    // Stateless steps first, outside any transaction: the stamp over the raw bytes, the one
    // parse of the body, the envelope, the route, the intent and the handler's precheck.
    const { stamp, body, text } = await readSignedRequest(this.deps.verifier, request);
    validateEnvelope(body);
    const definition = definitionAt(path, body);
    if (stamp.kind === 'attested') {
      // Checked before the transaction: an OIDC issuer may have to be fetched.
      if (definition.kind !== 'STAMP_LOGIN') throw attestedLoginOnly();
      // The session key is the key the token binds, which signed the body.
      const asked = (body.parameters as { publicKey?: unknown } | undefined)?.publicKey;
      if (String(asked ?? '').toLowerCase() !== stamp.signed.publicKey) {
        throw new KeyholdError('REQUEST_NOT_AUTHORIZED', {
          reason: 'an attested login is for the attested public key only',
        });
      }
      await attestStamp(stamp, {
        tlsFetcher: this.tlsFetcher,
        oidc: this.oidcVerifier,
        now: this.deps.clock.now(),
      });
    }
    const parameters = body.parameters as Record<string, unknown>;
    const vote = VOTE_KINDS.has(definition.kind);
    const handler = vote ? undefined : handlerOf(definition);
    let stored = { parameters, text };
    let refusal = refusalOf(() => {
      if (!handler) return validateIntent(definition.type, parameters);
      checkIntent(definition, parameters, handler, this.precheckSettings);
      stored = this.storedForm(handler, body, parameters) ?? stored;
    });
    if (!refusal && handler?.prepare) {
      // Network work before the transaction; its refusal comes after authentication too.
      try {
        await handler.prepare({ oidc: this.oidcVerifier, now: this.deps.clock.now() }, parameters);
      } catch (error) {
        if (!isKeyholdError(error)) throw error;
        refusal = error;
      }
    }
    const organizationId = organizationIdOf(body);
    const plan =
      !refusal && handler?.signingPlan && stamp.kind === 'api-key' && this.recentSigners
        ? handler.signingPlan(parameters)
        : undefined;
    const submission: ParsedSubmission = {
      definition,
      refusal,
      organizationId,
      // A body that carries a secret is fingerprinted in its stored form: a hash of the raw
      // bytes would let whoever reads it try every six-digit code or card number offline.
      fingerprint:
        stored.text === text
          ? fingerprintOf(request.rawBody)
          : fingerprintOf(utf8ToBytes(stored.text)),
      parameters: stored.parameters,
      body,
      stamp,
      text: stored.text,
      cost: activityCost(definition.kind, body.parameters),
      meter,
      plan,
      started: undefined,
    };
    if (plan) {
      submission.started = await this.startSignatures(submission, plan);
      // Waited for here, outside the transaction: a store whose transactions run one at a
      // time (memory, PGlite) would otherwise wait for the signing thread with every other
      // request queued behind it.
      await submission.started?.finished();
    }
    return handler ? this.create(submission, handler) : this.vote(submission);
  }

  /**
   * Starts the plan's signatures when the submission's API key signed with the same key
   * before (see speculative-signing.ts). With a rate limiter the request is charged first, to
   * whom that API key was charged last time; a refused charge starts nothing (the transaction
   * meets the same refusal where it always did: the meter answers a second charge with the
   * first one's outcome).
   */
  private async startSignatures(
    s: ParsedSubmission,
    plan: SigningPlan,
  ): Promise<StartedSignatures | undefined> {
    const signer = this.recentSigners?.recall(
      s.organizationId,
      (s.stamp as ApiKeyStamp).publicKey,
      plan.signWith,
    );
    if (!signer) return undefined;
    let messages: readonly Uint8Array[];
    try {
      messages = plan.messages(signer.curve);
    } catch {
      return undefined; // the handler refuses it in the transaction
    }
    if (s.meter) {
      try {
        await s.meter.charge({
          organizationId: signer.organizationId,
          userId: signer.userId,
          cost: s.cost,
        });
      } catch {
        return undefined;
      }
    }
    return new StartedSignatures(this.deps.vault, signer, messages);
  }

  /** Remembers the key a completed signing activity used, or forgets it when refused. */
  private rememberSigner(s: ParsedSubmission, signer: RecentSigner | undefined): void {
    if (!s.plan || !this.recentSigners) return;
    const apiPublicKey = (s.stamp as ApiKeyStamp).publicKey;
    if (signer) {
      this.recentSigners.remember(s.organizationId, apiPublicKey, s.plan.signWith, signer);
    } else {
      this.recentSigners.forget(s.organizationId, apiPublicKey, s.plan.signWith);
    }
  }

  /** A new activity: decided, then run, parked for consensus, or refused. */
  private async create(s: ParsedSubmission, handler: ActivityHandler): Promise<Activity> {
    const now = this.deps.clock.now();
    const effects: AfterCommitEffect[] = [];
    // A refusal that keeps the handler's writes (see ExecutionRefusal): the transaction commits
    // them, without the activity, and the request is refused after the commit.
    let refusal: ExecutionRefusal | undefined;
    // Who is refused, once the stamp verified: an authenticated refusal joins the audit chain.
    let submitter: AuditSubject | undefined;
    // The key a completed signature used, remembered for this API key (see startSignatures);
    // a resubmitted body changes nothing of what is remembered.
    let signed: RecentSigner | undefined;
    let resubmitted = false;
    try {
      const activity = await this.deps.store.transaction(async (tx) => {
        effects.length = 0; // a store that retries the callback starts the effects over
        refusal = undefined;
        submitter = undefined;
        signed = undefined;
        resubmitted = false;
        // The organization and a stored activity of this body, in one read; the activity is
        // looked at only once the submitter is known, as before.
        const first = await tx.organizations.getWithActivity(s.organizationId, s.fingerprint);
        const named = first.organization;
        if (!named) throw new KeyholdError('ORGANIZATION_NOT_FOUND');
        // A login may name the parent of the sub-organization it runs in (see submitter.ts).
        const { organization, principal } = await findSubmitter(
          tx,
          named,
          s.definition,
          s.stamp,
          now,
        );
        submitter = { organizationId: organization.organizationId, userId: principal.user.userId };
        const existing = first.activity;
        // Rate limits after authentication; a resubmitted body only reads its activity.
        await s.meter?.charge({
          organizationId: organization.organizationId,
          userId: principal.user.userId,
          cost: existing ? 1 : s.cost,
        });
        const scope = new ActivityScope(tx, organization.organizationId);
        if (existing) {
          resubmitted = true;
          return this.viewFor(scope, organization, existing, principal, now);
        }

        this.checkLiveness(s.body.timestampMs as string, now);
        if (s.refusal) throw s.refusal;
        requireSameOrganization(principal, organization, s.definition.kind);
        await requireCredentialScope(tx, principal, s.definition.kind);
        await requireSigningQuota(tx, organization, s.definition, this.deps.options?.quotas, now);
        // What needs the store to check (a passkey's attestation) is checked in it.
        await handler.verify?.({ tx, organization }, s.parameters);

        const record = this.newRecord(s, organization.organizationId, now);
        const vote = await this.voteOf(
          tx,
          record,
          principal,
          s.text,
          'VOTE_SELECTION_APPROVED',
          now,
        );
        record.votes.push(vote);
        // A parent's user running a PARENT_RUN_KINDS activity in a sub-organization is
        // decided by the parent's root quorum and policies: the sub-organization has none
        // for them, and the end user's token or mailbox is what the handler checks.
        const deciding =
          principal.organizationId === organization.organizationId
            ? organization
            : await requireOrganization(tx, principal.organizationId);
        const decision = await this.decide(
          deciding === organization ? scope : new ActivityScope(tx, deciding.organizationId),
          {
            organization: deciding,
            definition: s.definition,
            parameters: record.parameters,
            votes: record.votes,
          },
          now,
        );
        if (decision.outcome === 'DENY' || decision.outcome === 'REJECTED') {
          throw notAuthorized(decision);
        }
        const evaluation = this.evaluationOf(record, vote, decision, now);
        if (decision.outcome === 'ALLOW') {
          try {
            await this.execute(
              scope,
              handler,
              record,
              organization,
              principal,
              s.definition,
              now,
              effects,
              false,
              s.started,
            );
            if (s.plan && record.status === 'ACTIVITY_STATUS_COMPLETED') {
              signed = await this.signerOf(scope, s.plan, submitter);
            }
          } catch (error) {
            if (!(error instanceof ExecutionRefusal && error.commitWrites)) throw error;
            refusal = error;
            return undefined;
          }
        } else {
          record.status = CONSENSUS_NEEDED;
        }
        await enqueueActivityUpdate(tx, this.deps.ids, record, now, organization);
        const appProofs =
          s.body.generateAppProofs === true
            ? await this.recordAppProofs(tx, record, now, true)
            : undefined;
        // The activity, its evaluation and its audit entry in one write, last (the port's
        // contract): the audit chain's head stays locked until the commit, and a store may
        // commit with it.
        const entry: AuditEvent = {
          event: 'activity',
          activityId: record.id,
          activityType: record.type,
          status: record.status,
          fingerprint: record.fingerprint,
          userId: principal.user.userId,
        };
        await tx.activities.insertDecided(record, evaluation, {
          body: auditBody(organization.organizationId, entry, now),
          now,
        });
        const view = activityView(record);
        return appProofs ? { ...view, appProofs } : view;
      });
      if (activity === undefined) throw (refusal as ExecutionRefusal).error;
      if (!resubmitted) this.rememberSigner(s, signed);
      await this.runEffects(effects);
      return activity;
    } catch (error) {
      this.rememberSigner(s, undefined);
      await this.auditRefusal(submitter, s, error, now);
      if (error instanceof ExecutionRefusal) throw error.error;
      // Two copies of one body raced, and the other stored its activity first.
      if (StoreConflictError.is(error) && error.constraint === 'activity_fingerprint') {
        return this.existing(s.fingerprint);
      }
      throw error;
    }
  }

  /**
   * APPROVE_ACTIVITY / REJECT_ACTIVITY: a vote on the activity of the caller's organization
   * with that fingerprint. Refused, changing nothing: an unknown fingerprint (or one of
   * another organization), a finished activity, a second vote by the same user, an expired
   * approval window, a voter who is neither in the root quorum nor named in an applicable
   * consensus. The same user's vote body sent again is the same vote (answered, not recorded
   * twice).
   */
  private async vote(s: ParsedSubmission): Promise<Activity> {
    const now = this.deps.clock.now();
    const selection: VoteSelection =
      s.definition.kind === 'REJECT_ACTIVITY'
        ? 'VOTE_SELECTION_REJECTED'
        : 'VOTE_SELECTION_APPROVED';
    const effects: AfterCommitEffect[] = [];
    let voter: AuditSubject | undefined;
    const activity = await this.deps.store
      .transaction(async (tx) => {
        effects.length = 0;
        voter = undefined;
        const organization = await requireOrganization(tx, s.organizationId);
        const principal = await findPrincipal(tx, organization, s.stamp, now);
        voter = { organizationId: organization.organizationId, userId: principal.user.userId };
        // A vote costs 1: its activity paid for what it carries when it was submitted.
        await s.meter?.charge({
          organizationId: organization.organizationId,
          userId: principal.user.userId,
          cost: 1,
        });
        if (s.refusal) throw s.refusal;
        requireSameOrganization(principal, organization);
        await requireCredentialScope(tx, principal, undefined);

        const fingerprint = s.parameters.fingerprint as string;
        const found = await tx.activities.findByFingerprint(fingerprint);
        // Serializes votes on one activity across instances (SELECT … FOR UPDATE).
        const target =
          found?.organizationId === organization.organizationId
            ? await tx.activities.getForUpdate(organization.organizationId, found.id)
            : undefined;
        if (!target) throw new KeyholdError('NO_ACTIVITY_WITH_FINGERPRINT', { fingerprint });
        const scope = new ActivityScope(tx, organization.organizationId);
        // The same user's same vote body again: answered, not recorded twice. (Two users may
        // sign identical bodies in the same millisecond; those are two votes.)
        if (target.votes.some((v) => v.message === s.text && v.userId === principal.user.userId)) {
          return this.viewFor(scope, organization, target, principal, now);
        }
        this.checkLiveness(s.body.timestampMs as string, now);
        if (target.status !== CONSENSUS_NEEDED) {
          throw new KeyholdError('ACTIVITY_FINISHED', {
            activityId: target.id,
            status: target.status,
          });
        }
        if (target.votes.some((v) => v.userId === principal.user.userId)) {
          throw new KeyholdError('ALREADY_VOTED', {
            activityId: target.id,
            userId: principal.user.userId,
          });
        }
        if (consensusExpired(target, now, this.consensusExpiryMs)) {
          throw new KeyholdError('CONSENSUS_EXPIRED', {
            activityId: target.id,
            expiredAt: timestampOf(consensusExpiresAt(target, this.consensusExpiryMs)),
          });
        }
        const rights = await votingRights(
          scope,
          organization,
          target,
          principal.user.userId,
          now,
          this.consensusExpiryMs,
        );
        if (!rights.canApprove) {
          throw new KeyholdError('REQUEST_NOT_AUTHORIZED', {
            reason:
              'only root quorum users and users named in the consensus of a policy that applies may vote on this activity',
          });
        }

        const definition = activityDefinitionOf(target.type);
        const handler = definition && ACTIVITY_HANDLERS[definition.kind];
        if (!definition || !handler) {
          throw new KeyholdError('UNSUPPORTED_ACTIVITY_TYPE', { type: target.type });
        }
        const vote = await this.voteOf(tx, target, principal, s.text, selection, now);
        target.votes.push(vote);
        target.updatedAt = now;
        const decision = await this.decide(
          scope,
          { organization, definition, parameters: target.parameters, votes: target.votes },
          now,
          { rejected: selection === 'VOTE_SELECTION_REJECTED' },
        );
        const evaluation = this.evaluationOf(target, vote, decision, now);
        if (decision.outcome === 'ALLOW') {
          await this.execute(
            scope,
            handler,
            target,
            organization,
            principal,
            definition,
            now,
            effects,
            true,
          );
        } else if (decision.outcome !== 'CONSENSUS_NEEDED') {
          // Rejected by a voter, or now denied with no root quorum left to approve it.
          target.status = 'ACTIVITY_STATUS_REJECTED';
        }
        // A vote that leaves the activity awaiting consensus changes no status: no event.
        if (target.status !== CONSENSUS_NEEDED) {
          await enqueueActivityUpdate(tx, this.deps.ids, target, now, organization);
        }
        const appProofs = await this.recordAppProofs(tx, target, now, false);
        // The activity's new state, the vote's evaluation and its audit entry in one write,
        // last (the port's contract), as a new activity's: the chain's head is locked the least.
        const entry: AuditEvent = {
          event: 'vote',
          activityId: target.id,
          activityType: target.type,
          status: target.status,
          selection,
          fingerprint: s.fingerprint,
          userId: principal.user.userId,
        };
        await tx.activities.updateDecided(target, evaluation, {
          body: auditBody(organization.organizationId, entry, now),
          now,
        });
        return appProofs ? { ...activityView(target), appProofs } : activityView(target);
      })
      .catch(async (error: unknown) => {
        await this.auditRefusal(voter, s, error, now);
        throw error;
      });
    await this.runEffects(effects);
    return activity;
  }

  /**
   * Appends a refusal of an authenticated request to its organization's chain, in a
   * transaction of its own (the request's rolled back). Not a rate limiter's refusal (writing
   * one per refused request would defeat it), nor anything before the stamp verified (anyone
   * could make the server write); those are in the access log. Best effort: a failure to
   * record it does not change the answer.
   */
  private async auditRefusal(
    subject: AuditSubject | undefined,
    s: ParsedSubmission,
    error: unknown,
    now: number,
  ): Promise<void> {
    const refused = error instanceof ExecutionRefusal ? error.error : error;
    if (!subject || !isKeyholdError(refused) || refused.errorCode === 'RATE_LIMITED') return;
    const event: AuditEvent = {
      event: 'refusal',
      activityType: s.definition.type,
      errorCode: refused.errorCode,
      fingerprint: s.fingerprint,
      userId: subject.userId,
    };
    try {
      await this.deps.store.transaction((tx) =>
        appendAuditEvent(tx, subject.organizationId, event, now),
      );
    } catch (failure) {
      this.deps.onEffectError?.('audit refusal', failure);
    }
  }

  /** The activity as `principal` sees it (canApprove / canReject for them). */
  private async viewFor(
    scope: ActivityScope,
    organization: OrganizationRecord,
    record: ActivityRecord,
    principal: Principal,
    now: number,
  ): Promise<Activity> {
    if (principal.organizationId !== organization.organizationId) return activityView(record);
    const rights = await votingRights(
      scope,
      organization,
      record,
      principal.user.userId,
      now,
      this.consensusExpiryMs,
    );
    return activityView(record, rights);
  }

  private evaluationOf(
    record: ActivityRecord,
    vote: VoteRecord,
    decision: ActivityDecision,
    now: number,
  ): PolicyEvaluationRecord {
    return {
      id: this.deps.ids.uuid(),
      activityId: record.id,
      organizationId: record.organizationId,
      voteId: vote.id,
      policyEvaluations: decision.policyEvaluations,
      createdAt: now,
    };
  }

  /**
   * Runs the handler inside a savepoint of the activity's transaction. A refusal it throws (a
   * KeyholdError) undoes its writes and drops its after-commit effects; the activity is then
   * stored FAILED, with the refusal, in the same transaction. Anything else is a fault and
   * rolls the whole transaction back.
   */
  /** The organization's, and a new sub-organization's, resource limits after a handler ran. */
  private async requireResourceLimits(
    tx: StoreTransaction,
    organization: OrganizationRecord,
    before: ResourceCounts,
    result: unknown,
    limits: ResourceLimits,
  ): Promise<void> {
    const contact = this.deps.options?.quotas?.supportContact;
    try {
      await requireResourceLimits(tx, organization.organizationId, before, limits, contact);
      const created = createdOrganizationOf(result);
      if (created) await requireResourceLimits(tx, created, NO_RESOURCES, limits, contact);
    } catch (error) {
      // Refused, not failed: the activity leaves nothing behind (see resource-limits.ts).
      throw isKeyholdError(error) ? new ExecutionRefusal(error) : error;
    }
  }

  private async execute(
    scope: ActivityScope,
    handler: ActivityHandler,
    record: ActivityRecord,
    organization: OrganizationRecord,
    principal: Principal,
    definition: ActivityDefinition,
    now: number,
    effects: AfterCommitEffect[],
    /** An approval made it run: the activity is stored already, so a refusal fails it. */
    runByVote: boolean,
    started?: StartedSignatures,
  ): Promise<void> {
    const own: AfterCommitEffect[] = [];
    const ctx: ActivityContext = {
      tx: scope.tx,
      scope,
      organization,
      principal,
      vault: this.deps.vault,
      ...(started ? { started } : {}),
      work: this.workPool,
      signer: this.signer,
      notarizer: this.notarizer,
      tlsFetcher: this.tlsFetcher,
      notifier: this.notifier,
      oauth2: { ...this.oauth2, issuer: this.oauth2.issuer() },
      oidc: this.oidcVerifier,
      chains: this.deps.chains ?? noSendTransactionChains,
      onRamp: this.onRamp,
      ...sponsorOf(this.deps.gasSponsor),
      ids: this.deps.ids,
      now,
      activityId: record.id,
      definition,
      afterCommit: (description, run) => own.push({ description, run }),
    };
    record.updatedAt = now;
    try {
      const limits = this.deps.options?.resourceLimits;
      const counted =
        hasResourceLimits(limits) && definition.action !== 'SIGN' ? limits : undefined;
      const outcome = await scope.tx.savepoint(async () => {
        try {
          const before =
            counted && (await scope.tx.organizations.countResources(organization.organizationId));
          const result = await handler.execute(ctx, record.parameters);
          if (counted && before)
            await this.requireResourceLimits(scope.tx, organization, before, result, counted);
          return { result };
        } catch (error) {
          // A refusal that keeps the handler's writes leaves the savepoint without undoing them.
          if (error instanceof ExecutionRefusal && error.commitWrites && !runByVote) {
            return { refusal: error };
          }
          throw error;
        }
      });
      if (outcome.refusal) throw outcome.refusal;
      record.result = outcome.result;
      record.status = 'ACTIVITY_STATUS_COMPLETED';
      effects.push(...own);
    } catch (error) {
      // A refusal refuses the submission that runs the activity; an activity run by a vote
      // has been stored already, so there it fails like any other error.
      if (error instanceof ExecutionRefusal && !runByVote) throw error;
      const cause = error instanceof ExecutionRefusal ? error.error : error;
      if (!isKeyholdError(cause)) throw error;
      record.status = 'ACTIVITY_STATUS_FAILED';
      record.failure = cause.toStatus();
      delete record.result;
    }
  }

  /** The key the plan's `signWith` resolved to in the transaction (read once, by the scope). */
  private async signerOf(
    scope: ActivityScope,
    plan: SigningPlan,
    submitter: AuditSubject,
  ): Promise<RecentSigner> {
    const { key, curve } = await resolveSigner(scope, plan.signWith);
    return { key, curve, ...submitter };
  }

  /** After-commit effects, in order; a failure is reported and the rest still run. */
  private async runEffects(effects: readonly AfterCommitEffect[]): Promise<void> {
    for (const effect of effects) {
      try {
        await effect.run();
      } catch (error) {
        this.deps.onEffectError?.(effect.description, error);
      }
    }
  }

  private async existing(fingerprint: string): Promise<Activity> {
    return this.deps.store.transaction(async (tx) => {
      const found = await tx.activities.findByFingerprint(fingerprint);
      if (!found) throw new Error('activity vanished after a fingerprint conflict');
      return activityView(found);
    });
  }

  private checkLiveness(timestampMs: string, now: number): void {
    const ts = Number(timestampMs);
    if (!Number.isSafeInteger(ts) || Math.abs(now - ts) > this.tolerance) {
      throw new KeyholdError('TIMESTAMP_INVALID', {
        field: '/timestampMs',
        serverTimeMs: String(now),
        toleranceMs: this.tolerance,
      });
    }
  }

  /** `decide`, timed for the metrics (reading the policies included). */
  private async decide(...args: Parameters<typeof decide>): Promise<ActivityDecision> {
    const started = performance.now();
    const decision = await decide(...args);
    this.deps.metrics?.policyDecided(decision.outcome, (performance.now() - started) / 1000);
    return decision;
  }

  /**
   * The parameters and the vote message as the store keeps them, when the handler keeps a
   * secret of the intent in a derived form (see `ActivityHandler.storedParameters`). The
   * stored message is then the body with those parameters, which the stamp no longer covers.
   */
  private storedForm(
    handler: ActivityHandler,
    body: Record<string, unknown>,
    parameters: Record<string, unknown>,
  ): { parameters: Record<string, unknown>; text: string } | undefined {
    if (!handler.storedParameters) return undefined;
    const stored = handler.storedParameters(parameters, { tlsFetcher: this.tlsFetcher });
    return { parameters: stored, text: JSON.stringify({ ...body, parameters: stored }) };
  }

  /**
   * App proofs (`generateAppProofs`): a completed activity gets a software proof by the signer
   * key over its result, kept for `list_app_proofs`; one awaiting consensus is marked, and is
   * proven by the vote that completes it. `asked`: the submission asked (false for a vote,
   * which proves only a marked activity).
   */
  private async recordAppProofs(
    tx: StoreTransaction,
    record: ActivityRecord,
    now: number,
    asked: boolean,
  ): Promise<AppProof[] | undefined> {
    const { organizationId } = record;
    // A vote that does not complete its activity proves nothing: no read.
    if (!asked && record.status !== 'ACTIVITY_STATUS_COMPLETED') return undefined;
    const marked = asked
      ? undefined
      : await tx.organizationDocuments.get(organizationId, 'app_proof', record.id);
    if (!asked && !marked) return undefined;
    if (record.status === CONSENSUS_NEEDED) {
      if (asked) {
        await tx.organizationDocuments.insert({
          organizationId,
          kind: 'app_proof',
          documentId: record.id,
          body: { appProofs: [] },
          createdAt: now,
          updatedAt: now,
        });
      }
      return undefined;
    }
    if (record.status !== 'ACTIVITY_STATUS_COMPLETED') return undefined;
    const view = activityView(record);
    const appProofs = [
      createSoftwareAppProof(
        this.signer,
        {
          organizationId,
          activityId: record.id,
          activityType: record.type,
          fingerprint: record.fingerprint,
          result: view.result,
        },
        now,
      ),
    ];
    await tx.organizationDocuments.update({
      organizationId,
      kind: 'app_proof',
      documentId: record.id,
      body: { appProofs },
      createdAt: marked?.createdAt ?? now,
      updatedAt: now,
    });
    return appProofs;
  }

  private newRecord(s: ParsedSubmission, organizationId: string, now: number): ActivityRecord {
    return {
      id: this.deps.ids.activityId(),
      organizationId,
      type: s.definition.type,
      status: 'ACTIVITY_STATUS_CREATED',
      parameters: s.parameters,
      votes: [],
      fingerprint: s.fingerprint,
      timestampMs: s.body.timestampMs as string,
      createdAt: now,
      updatedAt: now,
    };
  }

  private async voteOf(
    tx: StoreTransaction,
    record: ActivityRecord,
    principal: Principal,
    message: string,
    selection: VoteSelection,
    now: number,
  ): Promise<VoteRecord> {
    return voteRecordOf(tx, this.deps.ids, record.id, principal, message, selection, now);
  }
}

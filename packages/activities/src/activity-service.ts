/**
 * The activity lifecycle: one submitted body becomes at most one activity.
 *
 * A request is refused (a Status error, nothing stored) when it fails authentication,
 * validation or authorization. Once accepted, the activity runs in one Store transaction
 * with its effects; if the handler fails, those effects roll back and the activity is
 * stored FAILED with `failure` set. The fingerprint (sha256 of the raw body) makes the
 * same body the same activity, even when two copies race.
 * @module
 */

import type { KeyVault } from '@keyhold/keys';
import {
  type Activity,
  type ActivityDefinition,
  activityDefinitionsAt,
  isKeyholdError,
  KeyholdError,
  validateEnvelope,
  validateIntent,
} from '@keyhold/protocol';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import type { ActivityHandler } from './handlers/activity-handler.js';
import { ACTIVITY_HANDLERS } from './handlers/index.js';
import type { Clock } from './ports/clock.js';
import type { Ids } from './ports/ids.js';
import type { SignatureVerifier } from './ports/signature-verifier.js';
import { type Store, StoreConflictError, type StoreTransaction } from './ports/store.js';
import { findPrincipal, type Principal } from './principal.js';
import type { ActivityRecord, OrganizationRecord } from './records.js';
import { type IncomingRequest, organizationIdOf, readSignedRequest } from './signed-request.js';
import { activityView, userView } from './views.js';

export interface ActivityServiceOptions {
  /** How far `timestampMs` may be from the server's clock, either way. Default 5 minutes. */
  timestampToleranceMs?: number;
}

export interface ActivityServiceDeps {
  store: Store;
  vault: KeyVault;
  verifier: SignatureVerifier;
  clock: Clock;
  ids: Ids;
  options?: ActivityServiceOptions;
}

export const DEFAULT_TIMESTAMP_TOLERANCE_MS = 5 * 60 * 1000;

/** The fingerprint of a raw body: `sha256:` + lower-case hex. */
export function fingerprintOf(rawBody: Uint8Array): string {
  return `sha256:${bytesToHex(sha256(rawBody))}`;
}

/** Carries a handler's refusal out of the rolled-back transaction. */
class ExecutionFailed extends Error {
  constructor(
    readonly record: ActivityRecord,
    readonly error: KeyholdError,
  ) {
    super(error.message);
  }
}

export async function requireOrganization(
  tx: StoreTransaction,
  organizationId: string,
): Promise<OrganizationRecord> {
  const org = await tx.organizations.get(organizationId);
  if (!org) throw new KeyholdError('ORGANIZATION_NOT_FOUND');
  return org;
}

export class ActivityService {
  private readonly tolerance: number;

  constructor(private readonly deps: ActivityServiceDeps) {
    this.tolerance = deps.options?.timestampToleranceMs ?? DEFAULT_TIMESTAMP_TOLERANCE_MS;
  }

  /** Submits the stamped body posted to `/public/v1/submit/<path>`. */
  async submit(path: string, request: IncomingRequest): Promise<Activity> {
    const definitions = activityDefinitionsAt(path);
    const { stamp, body, text } = await readSignedRequest(this.deps.verifier, request);
    validateEnvelope(body);
    const definition = definitions.find((d) => d.type === body.type);
    if (!definition) {
      throw new KeyholdError('BAD_REQUEST_BODY', {
        field: '/type',
        reason: `this endpoint accepts ${definitions.map((d) => d.type).join(', ')}`,
      });
    }
    const organizationId = organizationIdOf(body);
    const fingerprint = fingerprintOf(request.rawBody);
    const handler = ACTIVITY_HANDLERS[definition.kind];
    if (!handler) throw new KeyholdError('ACTIVITY_TYPE_NOT_SUPPORTED', { type: definition.type });
    const now = this.deps.clock.now();
    const parameters = body.parameters as Record<string, unknown>;

    try {
      return await this.deps.store.transaction(async (tx) => {
        const organization = await requireOrganization(tx, organizationId);
        const principal = await findPrincipal(tx, organization, stamp, now);
        const existing = await tx.activities.findByFingerprint(fingerprint);
        if (existing) return activityView(existing);

        this.checkLiveness(body.timestampMs as string, now);
        validateIntent(definition.type, parameters);
        handler.precheck?.(parameters, definition);
        authorize(principal, organization);

        const record = this.newRecord(
          definition,
          organizationId,
          parameters,
          fingerprint,
          body,
          now,
        );
        record.votes.push(await this.voteOf(tx, record, principal, text, now));
        if (organization.rootQuorum.threshold > 1) {
          // More root approvals are needed before this runs.
          record.status = 'ACTIVITY_STATUS_CONSENSUS_NEEDED';
        } else {
          await this.execute(tx, handler, record, organization, principal, definition, now);
        }
        await tx.activities.insert(record);
        return activityView(record);
      });
    } catch (error) {
      if (error instanceof ExecutionFailed) return this.storeFailed(error);
      if (error instanceof StoreConflictError && error.constraint === 'activity_fingerprint') {
        return this.existing(fingerprint);
      }
      throw error;
    }
  }

  private async execute(
    tx: StoreTransaction,
    handler: ActivityHandler,
    record: ActivityRecord,
    organization: OrganizationRecord,
    principal: Principal,
    definition: ActivityDefinition,
    now: number,
  ): Promise<void> {
    try {
      const ctx = {
        tx,
        organization,
        principal,
        vault: this.deps.vault,
        ids: this.deps.ids,
        now,
        activityId: record.id,
        definition,
      };
      record.result = await handler.execute(ctx, record.parameters);
      record.status = 'ACTIVITY_STATUS_COMPLETED';
    } catch (error) {
      if (isKeyholdError(error)) throw new ExecutionFailed(record, error);
      throw error;
    }
  }

  /** Stores an activity whose execution failed, in a transaction of its own. */
  private async storeFailed({ record, error: cause }: ExecutionFailed): Promise<Activity> {
    record.status = 'ACTIVITY_STATUS_FAILED';
    record.failure = cause.toStatus();
    delete record.result;
    try {
      return await this.deps.store.transaction(async (tx) => {
        const existing = await tx.activities.findByFingerprint(record.fingerprint);
        if (existing) return activityView(existing);
        await tx.activities.insert(record);
        return activityView(record);
      });
    } catch (error) {
      if (error instanceof StoreConflictError) return this.existing(record.fingerprint);
      throw error;
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
      throw new KeyholdError('TIMESTAMP_OUTSIDE_WINDOW', {
        field: '/timestampMs',
        serverTimeMs: String(now),
        toleranceMs: this.tolerance,
      });
    }
  }

  private newRecord(
    definition: ActivityDefinition,
    organizationId: string,
    parameters: Record<string, unknown>,
    fingerprint: string,
    body: Record<string, unknown>,
    now: number,
  ): ActivityRecord {
    return {
      id: this.deps.ids.activityId(),
      organizationId,
      type: definition.type,
      status: 'ACTIVITY_STATUS_CREATED',
      parameters,
      votes: [],
      fingerprint,
      timestampMs: body.timestampMs as string,
      createdAt: now,
      updatedAt: now,
    };
  }

  private async voteOf(
    tx: StoreTransaction,
    record: ActivityRecord,
    principal: Principal,
    message: string,
    now: number,
  ) {
    const keys = await tx.apiKeys.listByUser(principal.organizationId, principal.user.userId);
    return {
      id: this.deps.ids.uuid(),
      activityId: record.id,
      userId: principal.user.userId,
      user: userView(principal.user, keys),
      selection: 'VOTE_SELECTION_APPROVED' as const,
      message,
      publicKey: principal.stamp.publicKey,
      signature: principal.stamp.signature,
      scheme: principal.stamp.scheme,
      createdAt: now,
    };
  }
}

/**
 * Until the policy engine lands, only the target organization's root-quorum users may
 * submit activities. A parent organization's users may read a sub-organization, never write.
 */
function authorize(principal: Principal, organization: OrganizationRecord): void {
  if (principal.organizationId !== organization.organizationId) {
    throw new KeyholdError('ORGANIZATION_MISMATCH', {
      targetOrganizationId: organization.organizationId,
      voterOrganizationId: principal.organizationId,
    });
  }
  if (!organization.rootQuorum.userIds.includes(principal.user.userId)) {
    throw new KeyholdError('REQUEST_NOT_AUTHORIZED', {
      reason: 'only root quorum users may submit activities',
    });
  }
}

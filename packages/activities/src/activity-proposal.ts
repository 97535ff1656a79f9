/**
 * What a proposed activity must pass before it is decided, and the submitter's vote that every
 * decision counts first. A real submit (`ActivityService`) and its dry run (`PolicyExplainer`)
 * both call these, so the dry run refuses what submit refuses, with the same Status, and is
 * decided on the same subject.
 * @module
 */
import {
  ACTIVITY_TYPES,
  type ActivityDefinition,
  activityDefinitionsAt,
  isKeyholdError,
  KeyholdError,
  PARENT_RUN_KINDS,
  submitPathOf,
  type VoteSelection,
  validateIntent,
} from '@keyhold/protocol';
import { requireCredentialScope } from './credential-scope.js';
import type { ActivityHandler, PrecheckSettings } from './handlers/activity-handler.js';
import { ACTIVITY_HANDLERS } from './handlers/index.js';
import type { Ids } from './ports/ids.js';
import type { StoreTransaction } from './ports/store.js';
import type { Principal } from './principal.js';
import type { OrganizationRecord, VoteRecord } from './records.js';
import { userView } from './views.js';
import { WEBAUTHN_VOTE_SCHEME } from './webauthn-stamp.js';

/**
 * The definition serving `body.type` at the submit path `path`.
 * @throws KeyholdError UNSUPPORTED_ACTIVITY_TYPE (a type of this endpoint Keyhold does not
 *   serve), REQUEST_INVALID (a type of another endpoint, or none)
 */
export function definitionAt(path: string, body: Record<string, unknown>): ActivityDefinition {
  const definitions = activityDefinitionsAt(path);
  const definition = definitions.find((d) => d.type === body.type);
  if (definition) return definition;
  // A type of this very endpoint that Keyhold does not serve (CREATE_POLICY V1/V2).
  if (isActivityType(body.type) && submitPathOf(body.type) === path) {
    throw new KeyholdError('UNSUPPORTED_ACTIVITY_TYPE', { type: body.type });
  }
  throw new KeyholdError('REQUEST_INVALID', {
    field: '/type',
    reason: `this endpoint accepts ${definitions.map((d) => d.type).join(', ')}`,
  });
}

/**
 * The definition of `body.type` when no endpoint names it (a dry run): the type's own submit
 * path, refused as submitting there would be.
 * @throws KeyholdError REQUEST_INVALID (not an activity type of the wire protocol),
 *   UNSUPPORTED_ACTIVITY_TYPE (one Keyhold does not serve)
 */
export function definitionOfType(body: Record<string, unknown>): ActivityDefinition {
  if (!isActivityType(body.type)) {
    throw new KeyholdError('REQUEST_INVALID', {
      field: '/type',
      reason: 'not an activity type of the public API',
    });
  }
  const path = submitPathOf(body.type);
  // What the router answers for a known path with nothing served at it.
  if (activityDefinitionsAt(path).length === 0) {
    throw new KeyholdError('UNSUPPORTED_ACTIVITY_TYPE', { type: body.type });
  }
  return definitionAt(path, body);
}

/**
 * The handler that runs a (non-vote) definition.
 * @throws KeyholdError UNSUPPORTED_ACTIVITY_TYPE
 */
export function handlerOf(definition: ActivityDefinition): ActivityHandler {
  const handler = ACTIVITY_HANDLERS[definition.kind];
  if (!handler) throw new KeyholdError('UNSUPPORTED_ACTIVITY_TYPE', { type: definition.type });
  return handler;
}

/**
 * Delegated access (interface spec, Authentication §7): the submitter must be a user of the
 * organization the activity runs in. A parent organization acts in a sub-organization only
 * through a user of that sub-organization (a delegated-access user holding the parent's key,
 * scoped by the sub-organization's policies); its own users may read the sub-organization and
 * submit there only the kinds of `PARENT_RUN_KINDS` (`kind`; votes pass none).
 * @throws KeyholdError ORGANIZATION_MISMATCH
 */
export function requireSameOrganization(
  principal: Principal,
  organization: OrganizationRecord,
  kind?: string,
): void {
  const parentRuns =
    kind !== undefined &&
    PARENT_RUN_KINDS.has(kind) &&
    principal.organizationId === organization.parentOrganizationId;
  if (principal.organizationId !== organization.organizationId && !parentRuns) {
    throw new KeyholdError('ORGANIZATION_MISMATCH', {
      targetOrganizationId: organization.organizationId,
      voterOrganizationId: principal.organizationId,
    });
  }
}

/** A new activity, as checked once its organization and submitter are known. */
export interface Proposal {
  readonly definition: ActivityDefinition;
  readonly parameters: Record<string, unknown>;
  readonly handler: ActivityHandler;
  readonly organization: OrganizationRecord;
  readonly principal: Principal;
}

/**
 * The checks of a new activity after authentication: its intent schema, the handler's own
 * precheck (e.g. policy texts) and verification (e.g. a passkey's attestation), and that the
 * submitter belongs to the organization.
 * @throws KeyholdError the refusal submit answers with
 */
export async function checkProposal(
  tx: StoreTransaction,
  proposal: Proposal,
  settings: PrecheckSettings,
): Promise<void> {
  const { definition, parameters, handler, organization, principal } = proposal;
  checkIntent(definition, parameters, handler, settings);
  requireSameOrganization(principal, organization, definition.kind);
  await requireCredentialScope(tx, principal, definition.kind);
  await handler.verify?.({ tx, organization }, parameters);
}

/**
 * The checks of a proposal that need no state — its intent schema and the handler's precheck —
 * so they can run before the transaction opens.
 * @throws KeyholdError the refusal submit answers with
 */
export function checkIntent(
  definition: ActivityDefinition,
  parameters: Record<string, unknown>,
  handler: ActivityHandler,
  settings: PrecheckSettings,
): void {
  validateIntent(definition.type, parameters);
  handler.precheck?.(parameters, definition, settings);
}

/**
 * What `check` throws, kept to be thrown later: the stateless checks run before the
 * transaction, but their refusal must come where it always came, after authentication and
 * the liveness check (the conformance suite pins which refusal wins).
 */
export function refusalOf(check: () => void): KeyholdError | undefined {
  try {
    check();
    return undefined;
  } catch (error) {
    if (isKeyholdError(error)) return error;
    throw error;
  }
}

/**
 * A vote by `principal` on an activity: the user as they are now, the credential and the
 * stamp over `message` (the exact body they signed). A passkey's vote keeps the whole
 * `X-Stamp-Webauthn` header as its signature (the assertion needs its authenticator data and
 * clientDataJSON to be verified again) and the passkey's COSE key as its public key.
 */
export async function voteRecordOf(
  tx: StoreTransaction,
  ids: Ids,
  activityId: string,
  principal: Principal,
  message: string,
  selection: VoteSelection,
  now: number,
): Promise<VoteRecord> {
  const { organizationId, user } = principal;
  const [keys, authenticators] = await Promise.all([
    (principal.apiKey && principal.userApiKeys) ??
      tx.apiKeys.listByUser(organizationId, user.userId),
    (principal.apiKey && principal.userAuthenticators) ??
      tx.authenticators.listByUser(organizationId, user.userId),
  ]);
  const base = {
    id: ids.uuid(),
    activityId,
    userId: user.userId,
    user: userView(user, keys, authenticators),
    selection,
    message,
    createdAt: now,
  };
  if (principal.authenticator) {
    return {
      ...base,
      authenticatorId: principal.authenticator.authenticatorId,
      publicKey: principal.authenticator.publicKey,
      signature: principal.stamp.header,
      scheme: WEBAUTHN_VOTE_SCHEME,
    };
  }
  if (principal.stamp.kind === 'attested') {
    // A login with an attested stamp: the attested key signed the body; no stored credential.
    const { signed } = principal.stamp;
    return {
      ...base,
      publicKey: signed.publicKey,
      signature: signed.signature,
      scheme: principal.stamp.scheme,
    };
  }
  return {
    ...base,
    apiKeyId: principal.apiKey!.apiKeyId,
    publicKey: principal.stamp.publicKey,
    signature: principal.stamp.signature,
    scheme: principal.stamp.scheme,
  };
}

function isActivityType(type: unknown): type is (typeof ACTIVITY_TYPES)[number] {
  return (ACTIVITY_TYPES as readonly unknown[]).includes(type);
}

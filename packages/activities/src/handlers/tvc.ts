/**
 * TVC apps as records under consensus: CREATE_TVC_APP (an app with its manifest and share
 * operator sets, new operators made or existing ones named), CREATE_TVC_DEPLOYMENT (a
 * deployment and its manifest: a JSON text of the deployment's parameters), and
 * CREATE_TVC_MANIFEST_APPROVALS (operators of the manifest set sign the manifest: P-256 ECDSA
 * over sha256 of the manifest text, r‖s or DER in hex). Each is decided by policies and
 * consensus like any activity. Keyhold runs no enclave: these are the records a TVC operator
 * keeps, not a deployment anywhere. Every refusal stores nothing.
 * @module
 */
import { KeyholdError } from '@keyhold/protocol';
import { p256 } from '@noble/curves/nist.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import type { OrganizationDocumentRecord } from '../records.js';
import type { ActivityContext, HandlerOf } from './activity-handler.js';
import { refusingHandler } from './execution-refusal.js';
import { documentsOf, putDocument } from './organization-documents.js';

/** `v1TvcOperatorSetParams` as the intent schema types it. */
interface OperatorSetParams {
  name: string;
  threshold: number;
  newOperators?: { name: string; publicKey: string }[];
  existingOperatorIds?: string[];
}

const invalidSet = (field: string, reason: string) =>
  new KeyholdError('INVALID_TVC_OPERATOR_SET', { field, reason });

/** Exactly one of an existing set's id and a new set's parameters; a threshold it can meet. */
function checkSetChoice(
  field: string,
  id: string | undefined,
  params: OperatorSetParams | undefined,
  required: boolean,
): void {
  if (id !== undefined && params !== undefined) {
    throw invalidSet(field, 'give either the id of an existing set or the parameters of a new one');
  }
  if (id === undefined && params === undefined && required) {
    throw invalidSet(field, 'give the id of an existing set or the parameters of a new one');
  }
  if (params) {
    const operators = (params.newOperators?.length ?? 0) + new Set(params.existingOperatorIds).size;
    if (operators === 0) throw invalidSet(field, 'the set has no operators');
    if (params.threshold > operators) {
      throw invalidSet(field, `threshold ${params.threshold} exceeds the ${operators} operators`);
    }
  }
}

const doc = (ctx: ActivityContext, kind: OrganizationDocumentRecord['kind'], id: string) =>
  ctx.tx.organizationDocuments.get(ctx.organization.organizationId, kind, id.toLowerCase());

const put = (
  ctx: ActivityContext,
  kind: OrganizationDocumentRecord['kind'],
  documentId: string,
  body: Record<string, unknown>,
) =>
  putDocument(
    ctx.tx,
    { organizationId: ctx.organization.organizationId, kind, documentId, body },
    ctx.now,
  );

/** The id of the set named or made, and its operator ids and threshold. */
async function operatorSet(
  ctx: ActivityContext,
  field: string,
  id: string | undefined,
  params: OperatorSetParams | undefined,
): Promise<{ id: string; operatorIds: string[]; threshold: number }> {
  if (id !== undefined) {
    const found = await doc(ctx, 'tvc_operator_set', id);
    if (!found) throw new KeyholdError('TVC_OPERATOR_SET_NOT_FOUND', { [field]: id });
    return {
      id: found.documentId,
      operatorIds: found.body.operatorIds as string[],
      threshold: found.body.threshold as number,
    };
  }
  const p = params as OperatorSetParams;
  const operatorIds: string[] = [];
  for (const existing of new Set(p.existingOperatorIds)) {
    if (!(await doc(ctx, 'tvc_operator', existing))) {
      throw invalidSet(field, `operator ${existing} does not exist`);
    }
    operatorIds.push(existing.toLowerCase());
  }
  for (const operator of p.newOperators ?? []) {
    const operatorId = ctx.ids.uuid();
    await put(ctx, 'tvc_operator', operatorId, {
      name: operator.name,
      publicKey: operator.publicKey.replace(/^0x/, '').toLowerCase(),
    });
    operatorIds.push(operatorId);
  }
  const setId = ctx.ids.uuid();
  await put(ctx, 'tvc_operator_set', setId, { name: p.name, threshold: p.threshold, operatorIds });
  return { id: setId, operatorIds, threshold: p.threshold };
}

export const createTvcAppHandler: HandlerOf<'CREATE_TVC_APP'> = refusingHandler({
  precheck(p) {
    checkSetChoice('manifestSet', p.manifestSetId, p.manifestSetParams, true);
    checkSetChoice('shareSet', p.shareSetId, p.shareSetParams, false);
  },
  async execute(ctx, p) {
    const manifestSet = await operatorSet(ctx, 'manifestSet', p.manifestSetId, p.manifestSetParams);
    // Without a share set of its own, the app's manifest set also holds its shares.
    const shareSet =
      p.shareSetId === undefined && p.shareSetParams === undefined
        ? manifestSet
        : await operatorSet(ctx, 'shareSet', p.shareSetId, p.shareSetParams);
    const appId = ctx.ids.uuid();
    await put(ctx, 'tvc_app', appId, {
      name: p.name,
      quorumPublicKey: p.quorumPublicKey,
      manifestSetId: manifestSet.id,
      shareSetId: shareSet.id,
      enableEgress: p.enableEgress ?? p.externalConnectivity ?? false,
      enableDebugModeDeployments: p.enableDebugModeDeployments ?? false,
    });
    return {
      appId,
      manifestSetId: manifestSet.id,
      manifestSetOperatorIds: manifestSet.operatorIds,
      manifestSetThreshold: manifestSet.threshold,
    };
  },
});

export const createTvcDeploymentHandler: HandlerOf<'CREATE_TVC_DEPLOYMENT'> = refusingHandler({
  async execute(ctx, p) {
    const app = await doc(ctx, 'tvc_app', p.appId);
    if (!app) throw new KeyholdError('TVC_APP_NOT_FOUND', { appId: p.appId });
    const deploymentId = ctx.ids.uuid();
    const manifestId = ctx.ids.uuid();
    // What the operators approve: the deployment's parameters, in a fixed member order.
    const manifest = JSON.stringify({
      namespace: { name: app.body.name, nonce: p.nonce ?? 0, quorumKey: app.body.quorumPublicKey },
      appId: app.documentId,
      deploymentId,
      qosVersion: p.qosVersion,
      pivot: {
        containerUrl: p.pivotContainerImageUrl,
        path: p.pivotPath,
        args: p.pivotArgs ?? [],
        expectedDigest: p.expectedPivotDigest,
      },
      host: {
        containerUrl: p.hostContainerImageUrl ?? '',
        path: p.hostPath ?? '',
        args: p.hostArgs ?? [],
      },
      manifestSetId: app.body.manifestSetId,
      shareSetId: app.body.shareSetId,
      debugMode: p.debugMode ?? false,
    });
    await put(ctx, 'tvc_manifest', manifestId, { deploymentId, manifest });
    await put(ctx, 'tvc_deployment', deploymentId, {
      appId: app.documentId,
      manifestId,
      qosVersion: p.qosVersion,
      pivotContainer: {
        containerUrl: p.pivotContainerImageUrl,
        path: p.pivotPath,
        args: p.pivotArgs ?? [],
        // A pull secret is not kept: only whether one was given.
        hasPullSecret: p.pivotContainerEncryptedPullSecret !== undefined,
        healthCheckType: p.healthCheckType ?? '',
        healthCheckPort: p.healthCheckPort ?? 0,
        publicIngressPort: p.publicIngressPort ?? 0,
      },
      debugMode: p.debugMode ?? false,
    });
    return { deploymentId, manifestId };
  },
});

/** True when `signatureHex` (r‖s or DER) signs sha256(`message`) for `publicKeyHex`. */
function verifies(signatureHex: string, message: string, publicKeyHex: string): boolean {
  try {
    const signature = hexToBytes(signatureHex.replace(/^0x/, ''));
    return p256.verify(signature, sha256(utf8ToBytes(message)), hexToBytes(publicKeyHex), {
      prehash: false,
      lowS: false,
      format: signature.length === 64 ? 'compact' : 'der',
    });
  } catch {
    return false;
  }
}

export const createTvcManifestApprovalsHandler: HandlerOf<'CREATE_TVC_MANIFEST_APPROVALS'> =
  refusingHandler({
    async execute(ctx, p) {
      const manifest = await doc(ctx, 'tvc_manifest', p.manifestId);
      if (!manifest) throw new KeyholdError('TVC_MANIFEST_NOT_FOUND', { manifestId: p.manifestId });
      const deployment = await doc(ctx, 'tvc_deployment', manifest.body.deploymentId as string);
      const app = deployment && (await doc(ctx, 'tvc_app', deployment.body.appId as string));
      const set = app && (await doc(ctx, 'tvc_operator_set', app.body.manifestSetId as string));
      if (!set) throw new KeyholdError('TVC_MANIFEST_NOT_FOUND', { manifestId: p.manifestId });
      const members = new Set(set.body.operatorIds as string[]);
      const approved = new Set(
        (await documentsOf(ctx.tx, ctx.organization.organizationId, 'tvc_manifest_approval'))
          .filter((a) => a.body.manifestId === manifest.documentId)
          .map((a) => a.body.operatorId as string),
      );
      const approvalIds: string[] = [];
      for (const [approvalIndex, approval] of p.approvals.entries()) {
        const operatorId = approval.operatorId.toLowerCase();
        const refuse = (reason: string) =>
          new KeyholdError('INVALID_TVC_MANIFEST_APPROVAL', { approvalIndex, operatorId, reason });
        if (!members.has(operatorId)) throw refuse("the operator is not in the app's manifest set");
        if (approved.has(operatorId))
          throw refuse('the operator has approved this manifest already');
        const operator = await doc(ctx, 'tvc_operator', operatorId);
        const text = manifest.body.manifest as string;
        if (!operator || !verifies(approval.signature, text, operator.body.publicKey as string)) {
          throw refuse("the signature does not verify with the operator's key");
        }
        approved.add(operatorId);
        const approvalId = ctx.ids.uuid();
        await put(ctx, 'tvc_manifest_approval', approvalId, {
          manifestId: manifest.documentId,
          operatorId,
          approval: approval.signature,
        });
        approvalIds.push(approvalId);
      }
      return { approvalIds };
    },
  });

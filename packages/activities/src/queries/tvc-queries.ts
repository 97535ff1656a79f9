/**
 * get_tvc_app, list_tvc_apps, get_tvc_deployment, list_tvc_app_deployments: the TVC records
 * of CREATE_TVC_APP, CREATE_TVC_DEPLOYMENT and CREATE_TVC_MANIFEST_APPROVALS, in the shapes of
 * `v1TvcApp` and `v1TvcDeployment`.
 * @module
 */
import {
  KeyholdError,
  type TvcApp,
  type TvcDeployment,
  type TvcOperator,
  type TvcOperatorSet,
  timestampOf,
} from '@keyhold/protocol';
import type { OrganizationDocumentKind, OrganizationDocumentRecord } from '../records.js';
import type { QueryContext, QueryHandlerOf } from './query-handler.js';

/** One organization's TVC documents, read once per query, by kind and id. */
class TvcDocuments {
  private constructor(private readonly byKey: Map<string, OrganizationDocumentRecord>) {}

  static async of(ctx: QueryContext): Promise<TvcDocuments> {
    const all = await ctx.tx.organizationDocuments.list(ctx.organization.organizationId);
    return new TvcDocuments(new Map(all.map((d) => [`${d.kind}/${d.documentId}`, d])));
  }

  get(kind: OrganizationDocumentKind, id: string): OrganizationDocumentRecord | undefined {
    return this.byKey.get(`${kind}/${id.toLowerCase()}`);
  }

  all(kind: OrganizationDocumentKind): OrganizationDocumentRecord[] {
    return [...this.byKey.values()].filter((d) => d.kind === kind);
  }

  operator(id: string): TvcOperator {
    const d = this.get('tvc_operator', id);
    const publicKey = (d?.body.publicKey as string | undefined) ?? '';
    return {
      id,
      name: (d?.body.name as string | undefined) ?? '',
      publicKey,
      encryptPublicKey: '',
      signPublicKey: publicKey,
      createdAt: timestampOf(d?.createdAt ?? 0),
      updatedAt: timestampOf(d?.updatedAt ?? 0),
    };
  }

  operatorSet(id: string): TvcOperatorSet {
    const d = this.get('tvc_operator_set', id);
    return {
      id,
      name: (d?.body.name as string | undefined) ?? '',
      organizationId: d?.organizationId ?? '',
      operators: ((d?.body.operatorIds as string[] | undefined) ?? []).map((o) => this.operator(o)),
      threshold: (d?.body.threshold as number | undefined) ?? 0,
      createdAt: timestampOf(d?.createdAt ?? 0),
      updatedAt: timestampOf(d?.updatedAt ?? 0),
    };
  }

  app(d: OrganizationDocumentRecord): TvcApp {
    return {
      id: d.documentId,
      organizationId: d.organizationId,
      name: d.body.name as string,
      quorumPublicKey: d.body.quorumPublicKey as string,
      manifestSet: this.operatorSet(d.body.manifestSetId as string),
      shareSet: this.operatorSet(d.body.shareSetId as string),
      enableEgress: d.body.enableEgress === true,
      publicDomain: '',
      enableDebugModeDeployments: d.body.enableDebugModeDeployments === true,
      createdAt: timestampOf(d.createdAt),
      updatedAt: timestampOf(d.updatedAt),
    };
  }

  deployment(d: OrganizationDocumentRecord): TvcDeployment {
    const app = this.get('tvc_app', d.body.appId as string);
    const manifestId = d.body.manifestId as string;
    const manifest = this.get('tvc_manifest', manifestId);
    return {
      id: d.documentId,
      organizationId: d.organizationId,
      appId: d.body.appId as string,
      manifestSet: this.operatorSet((app?.body.manifestSetId as string | undefined) ?? ''),
      shareSet: this.operatorSet((app?.body.shareSetId as string | undefined) ?? ''),
      manifest: {
        id: manifestId,
        manifest: (manifest?.body.manifest as string | undefined) ?? '',
        createdAt: timestampOf(manifest?.createdAt ?? d.createdAt),
        updatedAt: timestampOf(manifest?.updatedAt ?? d.updatedAt),
      },
      manifestApprovals: this.all('tvc_manifest_approval')
        .filter((a) => a.body.manifestId === manifestId)
        .map((a) => ({
          id: a.documentId,
          manifestId,
          operator: this.operator(a.body.operatorId as string),
          approval: a.body.approval as string,
          createdAt: timestampOf(a.createdAt),
          updatedAt: timestampOf(a.updatedAt),
        })),
      qosVersion: d.body.qosVersion as string,
      pivotContainer: d.body.pivotContainer as TvcDeployment['pivotContainer'],
      delete: false,
      debugMode: d.body.debugMode === true,
      createdAt: timestampOf(d.createdAt),
      updatedAt: timestampOf(d.updatedAt),
    };
  }
}

export const getTvcApp: QueryHandlerOf<'get_tvc_app'> = async (ctx, body) => {
  const docs = await TvcDocuments.of(ctx);
  const app = docs.get('tvc_app', body.tvcAppId);
  if (!app) throw new KeyholdError('TVC_APP_NOT_FOUND', { tvcAppId: body.tvcAppId });
  return { tvcApp: docs.app(app) };
};

export const listTvcApps: QueryHandlerOf<'list_tvc_apps'> = async (ctx) => {
  const docs = await TvcDocuments.of(ctx);
  return { tvcApps: docs.all('tvc_app').map((d) => docs.app(d)) };
};

export const getTvcDeployment: QueryHandlerOf<'get_tvc_deployment'> = async (ctx, body) => {
  const docs = await TvcDocuments.of(ctx);
  const deployment = docs.get('tvc_deployment', body.deploymentId);
  if (!deployment) {
    throw new KeyholdError('TVC_DEPLOYMENT_NOT_FOUND', { deploymentId: body.deploymentId });
  }
  return { tvcDeployment: docs.deployment(deployment) };
};

export const listTvcAppDeployments: QueryHandlerOf<'list_tvc_app_deployments'> = async (
  ctx,
  body,
) => {
  const docs = await TvcDocuments.of(ctx);
  if (!docs.get('tvc_app', body.appId)) {
    throw new KeyholdError('TVC_APP_NOT_FOUND', { appId: body.appId });
  }
  const appId = body.appId.toLowerCase();
  return {
    tvcDeployments: docs
      .all('tvc_deployment')
      .filter((d) => d.body.appId === appId)
      .map((d) => docs.deployment(d)),
  };
};

/**
 * CREATE_SUB_ORGANIZATION (V2, V4–V8) and DELETE_SUB_ORGANIZATION.
 *
 * A sub-organization is an organization whose `parentOrganizationId` is the organization that
 * created it. Its root users, their API keys, its root quorum and its optional wallet are
 * written in the creating activity's transaction, so a refusal leaves nothing behind. Its
 * users act in it like in any organization; the parent's users may read it, never write to it.
 * Sub-organizations do not nest.
 *
 * DELETE_SUB_ORGANIZATION is submitted in the sub-organization by its own users. It removes
 * the organization and every record in it (`organizations.delete`); the activity itself and
 * the sub-organization's earlier activities stay in the Store as the audit trail, but nothing
 * can read them through the API any more: the organization is gone, so requests naming it
 * answer "no organization found with the given ID", and its API keys no longer authenticate.
 * @module
 */
import { type ApiKeyParams, KeyholdError } from '@keyhold/protocol';
import type { OrganizationRecord, UserRecord } from '../records.js';
import type { ActivityContext, HandlerOf } from './activity-handler.js';
import { addApiKeys, precheckApiKeys } from './api-key-creation.js';
import { precheckAccounts } from './wallet-accounts.js';
import { createWalletHandler } from './wallets.js';

/**
 * What creating a root user reads of one: the members every version's RootUser has in common
 * (each version's type is checked against it).
 */
interface RootUser {
  userName: string;
  userEmail?: string;
  userPhoneNumber?: string;
  apiKeys?: readonly ApiKeyParams[];
}

export const createSubOrganizationHandler: HandlerOf<'CREATE_SUB_ORGANIZATION'> = {
  precheck(p) {
    if (p.rootQuorumThreshold > p.rootUsers.length) {
      throw new KeyholdError('INVALID_QUORUM_THRESHOLD', {
        reason: `threshold ${p.rootQuorumThreshold} exceeds the ${p.rootUsers.length} root users`,
      });
    }
    const rootUsers: readonly RootUser[] = p.rootUsers;
    precheckApiKeys(rootUsers.flatMap((u) => u.apiKeys ?? []));
    if ('wallet' in p && p.wallet) precheckAccounts(p.wallet.accounts);
  },
  async execute(ctx, p) {
    if (ctx.organization.parentOrganizationId) {
      throw new KeyholdError('SUB_ORGANIZATION_NESTING', {
        organizationId: ctx.organization.organizationId,
      });
    }
    const rootUserIds = p.rootUsers.map(() => ctx.ids.uuid());
    const sub: OrganizationRecord = {
      organizationId: ctx.ids.uuid(),
      name: p.subOrganizationName,
      parentOrganizationId: ctx.organization.organizationId,
      rootQuorum: { threshold: p.rootQuorumThreshold, userIds: [...rootUserIds] },
      createdAt: ctx.now,
      updatedAt: ctx.now,
    };
    await ctx.tx.organizations.insert(sub);
    // Everything below is written in the sub-organization.
    const inSub: ActivityContext = { ...ctx, organization: sub };
    const rootUsers: readonly RootUser[] = p.rootUsers;
    for (const [i, params] of rootUsers.entries()) {
      const user: UserRecord = {
        organizationId: sub.organizationId,
        userId: rootUserIds[i]!,
        userName: params.userName,
        userTags: [],
        createdAt: ctx.now,
        updatedAt: ctx.now,
        ...(params.userEmail ? { userEmail: params.userEmail } : {}),
        ...(params.userPhoneNumber ? { userPhoneNumber: params.userPhoneNumber } : {}),
      };
      await ctx.tx.users.insert(user);
      await addApiKeys(inSub, user.userId, params.apiKeys ?? []);
    }
    const wallet =
      'wallet' in p && p.wallet ? await createWalletHandler.execute(inSub, p.wallet) : undefined;
    return {
      subOrganizationId: sub.organizationId,
      ...(wallet && ctx.definition.version >= 4 ? { wallet } : {}),
      rootUserIds,
    };
  },
};

export const deleteSubOrganizationHandler: HandlerOf<'DELETE_SUB_ORGANIZATION'> = {
  async execute(ctx, p) {
    const org = ctx.organization;
    if (!org.parentOrganizationId) {
      throw new KeyholdError('NOT_A_SUB_ORGANIZATION', { organizationId: org.organizationId });
    }
    const [wallets, privateKeys] = await Promise.all([
      ctx.tx.wallets.list(org.organizationId),
      ctx.tx.privateKeys.list(org.organizationId),
    ]);
    if (!p.deleteWithoutExport) {
      const wallet = wallets.find((w) => !w.exported);
      if (wallet) {
        throw new KeyholdError('SUB_ORGANIZATION_NOT_EXPORTED', { walletId: wallet.walletId });
      }
      const key = privateKeys.find((k) => !k.exported);
      if (key) {
        throw new KeyholdError('SUB_ORGANIZATION_NOT_EXPORTED', {
          privateKeyId: key.privateKeyId,
        });
      }
    }
    await ctx.tx.organizations.delete(org.organizationId);
    const { vault } = ctx;
    if (vault.destroyKey) {
      for (const key of privateKeys) {
        // After the commit, as DELETE_PRIVATE_KEYS: a rolled-back deletion keeps its keys.
        ctx.afterCommit(`destroy the vault key of private key ${key.privateKeyId}`, () =>
          vault.destroyKey!(key.key),
        );
      }
    }
    return { subOrganizationUuid: org.organizationId };
  },
};

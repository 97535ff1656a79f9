/**
 * CREATE_SUB_ORGANIZATION (V1–V8) and DELETE_SUB_ORGANIZATION.
 *
 * A sub-organization is an organization whose `parentOrganizationId` is the organization that
 * created it. Its root users, their API keys and passkeys, its root quorum and its optional
 * wallet (V4+) or private keys (V3) are written in the creating activity's transaction, so a
 * refusal leaves nothing behind. V1 creates one root user (named after the passkey) holding
 * its `rootAuthenticator`, threshold 1. A passkey's attestation is verified against the
 * parent's allowed origins (the sub-organization has none of its own yet). Its
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
import {
  type ActivityDefinition,
  type ApiKeyParams,
  type AuthenticatorParams,
  activityDefinitionOf,
  type IntentOfKind,
  KeyholdError,
  type OauthProviderParams,
} from '@keyhold/protocol';
import type { OrganizationRecord, UserRecord } from '../records.js';
import type { ActivityContext, HandlerOf } from './activity-handler.js';
import { addApiKeys, precheckApiKeys } from './api-key-creation.js';
import { addAuthenticators, verifyAuthenticators } from './authenticator-creation.js';
import { refusing } from './execution-refusal.js';
import {
  addOauthProviders,
  precheckOauthProviders,
  prepareOauthProviders,
} from './oauth-providers.js';
import { createPrivateKeysHandler } from './private-keys.js';
import { verifySignUp } from './sign-up-verification.js';
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
  authenticators?: readonly AuthenticatorParams[];
  oauthProviders?: readonly OauthProviderParams[];
}

/** Every version's intent, as the handler reads it: V1's one passkey becomes one root user. */
interface SubOrganizationShape {
  name: string;
  rootUsers: readonly RootUser[];
  threshold: number;
}

function shapeOf(p: IntentOfKind<'CREATE_SUB_ORGANIZATION'>): SubOrganizationShape {
  if ('rootAuthenticator' in p) {
    return {
      name: p.name,
      rootUsers: [
        { userName: p.rootAuthenticator.authenticatorName, authenticators: [p.rootAuthenticator] },
      ],
      threshold: 1,
    };
  }
  return { name: p.subOrganizationName, rootUsers: p.rootUsers, threshold: p.rootQuorumThreshold };
}

/** CREATE_PRIVATE_KEYS V2: V3's private keys answer as V2 creates them, with addresses. */
const CREATE_PRIVATE_KEYS_V2 = activityDefinitionOf(
  'ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2',
) as ActivityDefinition;

export const createSubOrganizationHandler: HandlerOf<'CREATE_SUB_ORGANIZATION'> = {
  precheck(p, definition, settings) {
    const { rootUsers, threshold } = shapeOf(p);
    if (threshold > rootUsers.length) {
      throw new KeyholdError('INVALID_QUORUM_THRESHOLD', {
        reason: `threshold ${threshold} exceeds the ${rootUsers.length} root users`,
      });
    }
    precheckApiKeys(rootUsers.flatMap((u) => u.apiKeys ?? []));
    precheckOauthProviders(rootUsers.flatMap((u) => u.oauthProviders ?? []));
    if ('wallet' in p && p.wallet) precheckAccounts(p.wallet.accounts);
    if ('privateKeys' in p) {
      createPrivateKeysHandler.precheck?.({ privateKeys: p.privateKeys }, definition, settings);
    }
  },
  prepare: (ctx, p) =>
    prepareOauthProviders(
      ctx,
      shapeOf(p).rootUsers.flatMap((u) => u.oauthProviders ?? []),
    ),
  verify: (ctx, p) =>
    verifyAuthenticators(
      ctx,
      shapeOf(p).rootUsers.flatMap((u) => u.authenticators ?? []),
    ),
  async execute(ctx, p) {
    if (ctx.organization.parentOrganizationId) {
      throw new KeyholdError('SUB_ORGANIZATION_NESTING', {
        organizationId: ctx.organization.organizationId,
      });
    }
    const shape = shapeOf(p);
    // Sign-up (V7, V8): a bad verification token or client signature stores nothing.
    const verified =
      'verificationToken' in p || 'clientSignature' in p
        ? await refusing(() => verifySignUp(ctx, p, shape.rootUsers))
        : undefined;
    const rootUserIds = shape.rootUsers.map(() => ctx.ids.uuid());
    const sub: OrganizationRecord = {
      organizationId: ctx.ids.uuid(),
      name: shape.name,
      parentOrganizationId: ctx.organization.organizationId,
      rootQuorum: { threshold: shape.threshold, userIds: [...rootUserIds] },
      ...('disableEmailAuth' in p && p.disableEmailAuth ? { emailAuthDisabled: true } : {}),
      ...('disableEmailRecovery' in p && p.disableEmailRecovery
        ? { emailRecoveryDisabled: true }
        : {}),
      createdAt: ctx.now,
      updatedAt: ctx.now,
    };
    await ctx.tx.organizations.insert(sub);
    // Everything below is written in the sub-organization.
    const inSub: ActivityContext = { ...ctx, organization: sub };
    for (const [i, params] of shape.rootUsers.entries()) {
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
      if (verified?.userIndex === i) {
        if (verified.otpType === 'OTP_TYPE_EMAIL') user.emailVerifiedAt = ctx.now;
        else user.phoneNumberVerifiedAt = ctx.now;
      }
      await ctx.tx.users.insert(user);
      await addApiKeys(inSub, user.userId, params.apiKeys ?? []);
      // Verified against the parent's allowed origins: the sub-organization has none yet.
      await addAuthenticators(inSub, user.userId, params.authenticators ?? []);
      await addOauthProviders(inSub, user, params.oauthProviders ?? []);
    }
    if ('privateKeys' in p) {
      const created = await createPrivateKeysHandler.execute(
        { ...inSub, definition: CREATE_PRIVATE_KEYS_V2 },
        { privateKeys: p.privateKeys },
      );
      const privateKeys = 'privateKeys' in created ? created.privateKeys : [];
      return { subOrganizationId: sub.organizationId, privateKeys, rootUserIds };
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

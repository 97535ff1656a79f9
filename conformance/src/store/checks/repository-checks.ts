/**
 * Store contract, the repositories: every method of every repository of the Store port — get,
 * list orderings (createdAt, ties in insertion order; activities newest first), paging cursors,
 * lookups (by public key, address, path, name), updates, deletes and the constraint each
 * refused insert or update names.
 * @module
 */
import {
  type ActivityRecord,
  AUDIT_GENESIS_HASH,
  auditEntryHash,
  type NamedRecordRepository,
  NO_RESOURCES,
  type PaymentRecord,
  type StoreTransaction,
  type TagRecord,
  type VoteRecord,
  verifyAuditChain,
} from '@keyhold/activities';
import { type CheckList, checkList } from '../check-list.js';
import { conflict } from '../conflict.js';
import { expect } from '../expectation.js';
import {
  account,
  activity,
  activityId,
  apiKey,
  authenticator,
  fresh,
  oauthProvider,
  organization,
  policy,
  policyEvaluation,
  privateKey,
  tag,
  user,
  vote,
  wallet,
} from '../records.js';
import type { StoreCheck } from '../store-check.js';
import type { StoreContractOptions } from '../store-contract-options.js';

/**
 * The checks of every repository of the Store port.
 * @example
 * for (const check of repositoryChecks({ store })) it(check.name, check.run);
 */
export function repositoryChecks(options: StoreContractOptions): StoreCheck[] {
  const { checks, check, tx }: CheckList = checkList(options);

  check('organizations: insert, get, update, conflict', async () => {
    const org = organization({ parentOrganizationId: undefined });
    await tx((t) => t.organizations.insert(org));
    expect(await tx((t) => t.organizations.get(org.organizationId))).toEqual(org);
    expect(await tx((t) => t.organizations.get(fresh('missing')))).toBeUndefined();
    expect(await conflict(tx((t) => t.organizations.insert({ ...org, name: 'other' })))).toBe(
      'organization_pkey',
    );

    const renamed = {
      ...org,
      name: 'Renamed',
      rootQuorum: { threshold: 2, userIds: ['a', 'b'] },
    };
    await tx((t) => t.organizations.update(renamed));
    expect(await tx((t) => t.organizations.get(org.organizationId))).toEqual(renamed);

    const sub = organization({ parentOrganizationId: org.organizationId });
    await tx((t) => t.organizations.insert(sub));
    expect(await tx((t) => t.organizations.get(sub.organizationId))).toEqual(sub);
  });

  check('organizations: findRootByName returns the oldest root of that name', async () => {
    const name = fresh('Bootstrap');
    const later = organization({ name, createdAt: 2000 });
    const sub = organization({
      name,
      createdAt: 500,
      parentOrganizationId: later.organizationId,
    });
    const tiedA = organization({ name, createdAt: 1000 });
    const tiedB = organization({ name, createdAt: 1000 });
    await tx(async (t) => {
      for (const o of [later, sub, tiedA, tiedB]) await t.organizations.insert(o);
    });
    expect(await tx((t) => t.organizations.findRootByName(name))).toEqual(tiedA);
    expect(await tx((t) => t.organizations.findRootByName(fresh('nobody')))).toBeUndefined();

    const emptyParent = fresh('EmptyParent');
    const root = organization({ name: emptyParent, parentOrganizationId: '' });
    await tx((t) => t.organizations.insert(root));
    expect(await tx((t) => t.organizations.findRootByName(emptyParent))).toEqual(root);
  });

  check(
    'organizations: listRoots lists every root by createdAt, never a sub-organization',
    async () => {
      const late = organization({ createdAt: 9_000_000_000_002 });
      const early = organization({ createdAt: 9_000_000_000_001, parentOrganizationId: '' });
      const child = organization({ parentOrganizationId: late.organizationId });
      await tx(async (t) => {
        for (const o of [late, early, child]) await t.organizations.insert(o);
      });
      const roots = await tx((t) => t.organizations.listRoots());
      const ids = roots.map((o) => o.organizationId);
      expect(ids.includes(child.organizationId)).toBe(false);
      const mine = new Set([early.organizationId, late.organizationId]);
      const ours = roots.filter((o) => mine.has(o.organizationId));
      expect(ours).toEqual([early, late]);
      expect(roots.every((o, i) => i === 0 || o.createdAt >= roots[i - 1]!.createdAt)).toBe(true);
    },
  );

  check(
    'organizations: countResources counts one organization’s records, its own writes included, and frees deleted ones',
    async () => {
      const org = organization();
      const other = organization();
      await tx(async (t) => {
        await t.organizations.insert(org);
        await t.organizations.insert(other);
        expect(await t.organizations.countResources(org.organizationId)).toEqual(NO_RESOURCES);
      });
      const w = wallet(org.organizationId);
      const doomed = user(org.organizationId);
      const counted = await tx(async (t) => {
        for (const u of [user(org.organizationId), doomed]) await t.users.insert(u);
        await t.users.insert(user(other.organizationId));
        await t.wallets.insert(w);
        await t.wallets.insert(wallet(other.organizationId));
        for (let i = 0; i < 3; i++) {
          await t.walletAccounts.insert(account(org.organizationId, w.walletId));
        }
        await t.privateKeys.insert(privateKey(org.organizationId));
        await t.policies.insert(policy(org.organizationId));
        await t.policies.insert(policy(org.organizationId));
        await t.organizations.insert(organization({ parentOrganizationId: org.organizationId }));
        await t.organizations.insert(organization({ parentOrganizationId: other.organizationId }));
        // Inside the transaction that wrote them: a limit is checked before the commit.
        return t.organizations.countResources(org.organizationId);
      });
      const expected = {
        users: 2,
        wallets: 1,
        walletAccounts: 3,
        privateKeys: 1,
        policies: 2,
        subOrganizations: 1,
      };
      expect(counted).toEqual(expected);
      await tx((t) => t.users.delete(org.organizationId, doomed.userId));
      expect(await tx((t) => t.organizations.countResources(org.organizationId))).toEqual({
        ...expected,
        users: 1,
      });
      expect(await tx((t) => t.organizations.countResources(fresh('missing')))).toEqual(
        NO_RESOURCES,
      );
    },
  );

  check(
    'users: get, getForUpdate, list by createdAt then insertion, update, delete, conflict',
    async () => {
      const org = fresh('org');
      const other = fresh('org');
      const c = user(org, { createdAt: 30, userName: 'c' });
      const a1 = user(org, { createdAt: 10, userName: 'a1', userEmail: 'a@example.com' });
      const a2 = user(org, { createdAt: 10, userName: 'a2', userPhoneNumber: '+15555550100' });
      const b = user(org, {
        createdAt: 20,
        userName: 'b',
        userTags: ['t"1', 'NULL', 'a,b', '{x}', 'back\\slash', 'ünï', ''],
      });
      const elsewhere = user(other, { userId: c.userId });
      await tx(async (t) => {
        for (const u of [c, a1, a2, b, elsewhere]) await t.users.insert(u);
      });
      expect(await tx((t) => t.users.list(org))).toEqual([a1, a2, b, c]);
      expect(await tx((t) => t.users.list(other))).toEqual([elsewhere]);
      const got = await tx((t) => t.users.get(org, a1.userId));
      expect(got).toEqual(a1);
      expect(await tx((t) => t.users.getForUpdate(org, a1.userId))).toEqual(a1);
      expect(await tx((t) => t.users.getForUpdate(other, a1.userId))).toBeUndefined();
      expect(got).not.toHaveProperty('userPhoneNumber');
      expect(await tx((t) => t.users.get(other, a1.userId))).toBeUndefined();
      expect(await conflict(tx((t) => t.users.insert({ ...a1, userName: 'x' })))).toBe('user_pkey');

      const updated = { ...a1, userName: 'renamed', userEmail: undefined, updatedAt: 99 };
      await tx((t) => t.users.update(updated));
      const back = await tx((t) => t.users.get(org, a1.userId));
      expect(back).toEqual(updated);
      expect(back?.userEmail).toBeUndefined();
      // An update keeps the user's place among equal createdAt values.
      expect((await tx((t) => t.users.list(org))).map((u) => u.userName)).toEqual([
        'renamed',
        'a2',
        'b',
        'c',
      ]);

      await tx((t) => t.users.delete(org, b.userId));
      await tx((t) => t.users.delete(org, fresh('missing')));
      expect(await tx((t) => t.users.get(org, b.userId))).toBeUndefined();
      expect((await tx((t) => t.users.list(org))).map((u) => u.userName)).toEqual([
        'renamed',
        'a2',
        'c',
      ]);
      // A deleted user's id can be used again.
      await tx((t) => t.users.insert(b));
      expect(await tx((t) => t.users.get(org, b.userId))).toEqual(b);
    },
  );

  check('api keys: lookups, listings, delete and both conflicts', async () => {
    const org = fresh('org');
    const [u1, u2] = [fresh('user'), fresh('user')];
    const k1 = apiKey(org, u1, { createdAt: 20 });
    // A session key: expiring, with its own credential type.
    const k2 = apiKey(org, u2, {
      createdAt: 10,
      credentialType: 'CREDENTIAL_TYPE_LOGIN',
      expirationSeconds: '900',
      expiresAt: 1_700_000_900_000,
    });
    const k3 = apiKey(org, u1, { createdAt: 20, curve: 'API_KEY_CURVE_ED25519' });
    await tx(async (t) => {
      for (const k of [k1, k2, k3]) await t.apiKeys.insert(k);
    });
    expect(await tx((t) => t.apiKeys.get(org, k2.apiKeyId))).toEqual(k2);
    expect(await tx((t) => t.apiKeys.get(org, fresh('missing')))).toBeUndefined();
    expect(await tx((t) => t.apiKeys.listByOrganization(org))).toEqual([k2, k1, k3]);
    expect(await tx((t) => t.apiKeys.listByUser(org, u1))).toEqual([k1, k3]);
    expect(await tx((t) => t.apiKeys.listByUser(org, fresh('nobody')))).toEqual([]);
    expect(await tx((t) => t.apiKeys.findByPublicKey(org, k3.publicKey))).toEqual(k3);
    expect(await tx((t) => t.apiKeys.findByPublicKey(fresh('org'), k3.publicKey))).toBeUndefined();
    const got = await tx((t) => t.apiKeys.get(org, k1.apiKeyId));
    expect(got).not.toHaveProperty('expiresAt');
    expect(got).not.toHaveProperty('credentialType');
    expect(got).not.toHaveProperty('expirationSeconds');

    // The primary key is checked first; then the public key within the organization.
    expect(await conflict(tx((t) => t.apiKeys.insert({ ...k1 })))).toBe('api_key_pkey');
    expect(
      await conflict(tx((t) => t.apiKeys.insert(apiKey(org, u2, { publicKey: k1.publicKey })))),
    ).toBe('api_key_public_key');
    // The same public key in another organization is fine.
    await tx((t) => t.apiKeys.insert(apiKey(fresh('org'), u1, { publicKey: k1.publicKey })));

    await tx((t) => t.apiKeys.delete(org, k1.apiKeyId));
    await tx((t) => t.apiKeys.delete(org, fresh('missing')));
    expect(await tx((t) => t.apiKeys.findByPublicKey(org, k1.publicKey))).toBeUndefined();
    expect(await tx((t) => t.apiKeys.listByUser(org, u1))).toEqual([k3]);
    // Deleting frees the public key.
    const again = apiKey(org, u2, { publicKey: k1.publicKey });
    await tx((t) => t.apiKeys.insert(again));
    expect(await tx((t) => t.apiKeys.findByPublicKey(org, k1.publicKey))).toEqual(again);
  });

  check(
    'credentials: one public key in the organization, its parent and at most two of its sub-organizations, with the user and its API keys',
    async () => {
      const parent = organization();
      const P = parent.organizationId;
      const tree = fresh('tree');
      // Sub-organizations by createdAt, ties by id: first, tieA, tieB, late.
      const first = organization({ parentOrganizationId: P, createdAt: 5 });
      const tieB = organization({
        organizationId: `${tree}-b`,
        parentOrganizationId: P,
        createdAt: 10,
      });
      const tieA = organization({
        organizationId: `${tree}-a`,
        parentOrganizationId: P,
        createdAt: 10,
      });
      const late = organization({ parentOrganizationId: P, createdAt: 20 });
      // Not P's sub-organizations: a grandchild, and an unrelated root.
      const grandchild = organization({ parentOrganizationId: first.organizationId });
      const stranger = organization();
      const orgs = [parent, first, tieB, tieA, late, grandchild, stranger];
      const publicKey = `02${fresh('shared')}`;
      const users = new Map(orgs.map((o) => [o.organizationId, user(o.organizationId)]));
      const keys = new Map(
        orgs.map((o) => [
          o.organizationId,
          apiKey(o.organizationId, users.get(o.organizationId)!.userId, { publicKey }),
        ]),
      );
      const expired = apiKey(P, users.get(P)!.userId, { expiresAt: 1, expirationSeconds: '1' });
      await tx(async (t) => {
        for (const o of orgs) await t.organizations.insert(o);
        for (const u of users.values()) await t.users.insert(u);
        // tieB's user is never created: its key comes back without a user.
        for (const [org, k] of keys) if (org !== late.organizationId) await t.apiKeys.insert(k);
        await t.apiKeys.insert(expired);
        await t.users.delete(tieB.organizationId, users.get(tieB.organizationId)!.userId);
      });
      const find = (
        organizationId: string,
        parentOrganizationId?: string,
        includeChildren = false,
      ) =>
        tx((t) =>
          t.credentials.findApiKeys(publicKey, {
            organizationId,
            ...(parentOrganizationId === undefined ? {} : { parentOrganizationId }),
            includeChildren,
          }),
        );
      // With its user come all of that user's keys and passkeys (none here), in creation order.
      const userApiKeys = (org: string) => (org === P ? [keys.get(P), expired] : [keys.get(org)]);
      const of = (relation: string, org: string, withUser = true) => ({
        relation,
        apiKey: keys.get(org),
        ...(withUser
          ? { user: users.get(org), userApiKeys: userApiKeys(org), userAuthenticators: [] }
          : {}),
      });

      // The organization's own key comes first, then its parent's.
      expect(await find(first.organizationId, P)).toEqual([
        of('self', first.organizationId),
        of('parent', P),
      ]);
      expect(await find(late.organizationId, P)).toEqual([of('parent', P)]);
      // Sub-organizations only on request: the first two by createdAt then id; a user deleted
      // alone leaves its key without a user; grandchildren and strangers never appear.
      expect(await find(P)).toEqual([of('self', P)]);
      expect(await find(P, undefined, true)).toEqual([
        of('self', P),
        of('child', first.organizationId),
        of('child', tieA.organizationId),
      ]);
      await tx((t) =>
        t.apiKeys.delete(first.organizationId, keys.get(first.organizationId)!.apiKeyId),
      );
      expect(await find(P, undefined, true)).toEqual([
        of('self', P),
        of('child', tieA.organizationId),
        of('child', tieB.organizationId, false),
      ]);
      // Expired keys are returned as they are: the caller decides what authenticates.
      expect(
        await tx((t) =>
          t.credentials.findApiKeys(expired.publicKey, {
            organizationId: P,
            includeChildren: true,
          }),
        ),
      ).toEqual([
        {
          relation: 'self',
          apiKey: expired,
          user: users.get(P),
          userApiKeys: userApiKeys(P),
          userAuthenticators: [],
        },
      ]);
      // An unknown key, or a scope that holds none of it, finds nothing.
      expect(
        await tx((t) =>
          t.credentials.findApiKeys(`02${fresh('unknown')}`, {
            organizationId: P,
            parentOrganizationId: stranger.organizationId,
            includeChildren: true,
          }),
        ),
      ).toEqual([]);
      expect(await find(fresh('org'), fresh('org'), true)).toEqual([]);

      // A transaction reads its own writes; a rolled-back insert leaves nothing to find.
      await expect(
        tx(async (t) => {
          await t.apiKeys.insert(keys.get(late.organizationId)!);
          expect(
            await t.credentials.findApiKeys(publicKey, {
              organizationId: late.organizationId,
              parentOrganizationId: P,
              includeChildren: false,
            }),
          ).toEqual([of('self', late.organizationId), of('parent', P)]);
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      expect(await find(late.organizationId, P)).toEqual([of('parent', P)]);

      // Deleting an organization removes its keys from the lookup.
      await tx((t) => t.organizations.delete(tieA.organizationId));
      await tx((t) => t.organizations.delete(P));
      expect(await find(P, undefined, true)).toEqual([of('child', tieB.organizationId, false)]);
      expect(await find(tieB.organizationId, P, true)).toEqual([
        of('self', tieB.organizationId, false),
      ]);
    },
  );

  check(
    'authenticators: lookups, listings, conflicts, the counter only moves forward',
    async () => {
      const org = fresh('org');
      const [u1, u2] = [fresh('user'), fresh('user')];
      const a1 = authenticator(org, u1, { createdAt: 20 });
      const a2 = authenticator(org, u2, { createdAt: 10, transports: [], signCount: 5 });
      const a3 = authenticator(org, u1, { createdAt: 20, algorithm: -257 });
      await tx(async (t) => {
        for (const a of [a1, a2, a3]) await t.authenticators.insert(a);
      });
      expect(await tx((t) => t.authenticators.get(org, a2.authenticatorId))).toEqual(a2);
      expect(await tx((t) => t.authenticators.get(org, fresh('missing')))).toBeUndefined();
      expect(await tx((t) => t.authenticators.listByOrganization(org))).toEqual([a2, a1, a3]);
      expect(await tx((t) => t.authenticators.listByUser(org, u1))).toEqual([a1, a3]);
      expect(await tx((t) => t.authenticators.findByCredentialId(org, a3.credentialId))).toEqual(
        a3,
      );
      expect(
        await tx((t) => t.authenticators.findByCredentialId(fresh('org'), a3.credentialId)),
      ).toBeUndefined();
      expect(await conflict(tx((t) => t.authenticators.insert({ ...a1 })))).toBe(
        'authenticator_pkey',
      );
      expect(
        await conflict(
          tx((t) =>
            t.authenticators.insert(authenticator(org, u2, { credentialId: a1.credentialId })),
          ),
        ),
      ).toBe('authenticator_credential_id');

      // The counter moves forward only; using a passkey changes nothing else of it.
      const advance = (a: typeof a2, n: number) =>
        tx((t) => t.authenticators.advanceSignCount(org, a.authenticatorId, n));
      expect(await advance(a2, 5)).toBe(false);
      expect(await advance(a2, 4)).toBe(false);
      expect(await advance(a2, 6)).toBe(true);
      expect(await advance(a2, 6)).toBe(false);
      expect(await tx((t) => t.authenticators.get(org, a2.authenticatorId))).toEqual({
        ...a2,
        signCount: 6,
      });
      expect(await tx((t) => t.authenticators.advanceSignCount(org, fresh('missing'), 9))).toBe(
        false,
      );
      // Of two transactions advancing to the same counter at once (a replay), one wins.
      const raced = await Promise.all([advance(a2, 7), advance(a2, 7), advance(a2, 7)]);
      expect(raced.filter(Boolean).length).toBe(1);
      // A rolled-back advance leaves the counter where it was.
      await expect(
        tx(async (t) => {
          await t.authenticators.advanceSignCount(org, a2.authenticatorId, 50);
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      expect((await tx((t) => t.authenticators.get(org, a2.authenticatorId)))?.signCount).toBe(7);

      await tx((t) => t.authenticators.delete(org, a1.authenticatorId));
      expect(await tx((t) => t.authenticators.findByCredentialId(org, a1.credentialId))).toBe(
        undefined,
      );
      // Deleting frees the credential id.
      const again = authenticator(org, u2, { credentialId: a1.credentialId });
      await tx((t) => t.authenticators.insert(again));
      expect(await tx((t) => t.authenticators.findByCredentialId(org, a1.credentialId))).toEqual(
        again,
      );
    },
  );

  check(
    'credentials: one credential id in the organization, its parent and its sub-organizations; deleting an organization removes its passkeys',
    async () => {
      const parent = organization();
      const P = parent.organizationId;
      const first = organization({ parentOrganizationId: P, createdAt: 5 });
      const second = organization({ parentOrganizationId: P, createdAt: 10 });
      const third = organization({ parentOrganizationId: P, createdAt: 20 });
      const orgs = [parent, first, second, third];
      const credentialId = fresh('shared-credential');
      const users = new Map(orgs.map((o) => [o.organizationId, user(o.organizationId)]));
      const passkeys = new Map(
        orgs.map((o) => [
          o.organizationId,
          authenticator(o.organizationId, users.get(o.organizationId)!.userId, { credentialId }),
        ]),
      );
      await tx(async (t) => {
        for (const o of orgs) await t.organizations.insert(o);
        for (const u of users.values()) await t.users.insert(u);
        for (const a of passkeys.values()) await t.authenticators.insert(a);
      });
      const find = (organizationId: string, parentOrganizationId?: string, children = false) =>
        tx((t) =>
          t.credentials.findAuthenticators(credentialId, {
            organizationId,
            ...(parentOrganizationId === undefined ? {} : { parentOrganizationId }),
            includeChildren: children,
          }),
        );
      const of = (relation: string, org: string) => ({
        relation,
        authenticator: passkeys.get(org),
        user: users.get(org),
      });
      expect(await find(first.organizationId, P)).toEqual([
        of('self', first.organizationId),
        of('parent', P),
      ]);
      expect(await find(P, undefined, true)).toEqual([
        of('self', P),
        of('child', first.organizationId),
        of('child', second.organizationId),
      ]);
      expect(
        await tx((t) =>
          t.credentials.findAuthenticators(fresh('unknown'), {
            organizationId: P,
            includeChildren: true,
          }),
        ),
      ).toEqual([]);
      await tx((t) => t.organizations.delete(first.organizationId));
      expect(await find(P, undefined, true)).toEqual([
        of('self', P),
        of('child', second.organizationId),
        of('child', third.organizationId),
      ]);
      expect(await tx((t) => t.authenticators.listByOrganization(first.organizationId))).toEqual(
        [],
      );
    },
  );

  check('wallets: get, list, update, conflict; the sealed seed is stored as given', async () => {
    const org = fresh('org');
    const w2 = wallet(org, { createdAt: 2, mnemonicLength: 24, imported: true });
    const w1 = wallet(org, { createdAt: 1 });
    await tx(async (t) => {
      await t.wallets.insert(w2);
      await t.wallets.insert(w1);
    });
    expect(await tx((t) => t.wallets.list(org))).toEqual([w1, w2]);
    expect(await tx((t) => t.wallets.get(org, w2.walletId))).toEqual(w2);
    expect(await tx((t) => t.wallets.get(fresh('org'), w2.walletId))).toBeUndefined();
    expect(await conflict(tx((t) => t.wallets.insert(w1)))).toBe('wallet_pkey');
    const exported = { ...w1, exported: true, walletName: 'Exported', updatedAt: 5 };
    await tx((t) => t.wallets.update(exported));
    expect(await tx((t) => t.wallets.get(org, w1.walletId))).toEqual(exported);
  });

  check(
    'oauth2 credentials: get, list by creation, update, delete, conflict; gone with the organization',
    async () => {
      const org = organization({ parentOrganizationId: undefined });
      const orgId = org.organizationId;
      const credential = (createdAt: number) => ({
        organizationId: orgId,
        oauth2CredentialId: fresh('oauth2'),
        provider: 'OAUTH2_PROVIDER_X',
        clientId: `app-${createdAt}`,
        sealedClientSecret: `v1.sealed-${createdAt}`,
        createdAt,
        updatedAt: createdAt,
      });
      const c2 = credential(2);
      const c1 = credential(1);
      await tx(async (t) => {
        await t.organizations.insert(org);
        await t.oauth2Credentials.insert(c2);
        await t.oauth2Credentials.insert(c1);
      });
      expect(await tx((t) => t.oauth2Credentials.list(orgId))).toEqual([c1, c2]);
      expect(await tx((t) => t.oauth2Credentials.get(orgId, c2.oauth2CredentialId))).toEqual(c2);
      expect(
        await tx((t) => t.oauth2Credentials.get(fresh('org'), c2.oauth2CredentialId)),
      ).toBeUndefined();
      expect(await conflict(tx((t) => t.oauth2Credentials.insert(c1)))).toBe(
        'oauth2_credential_pkey',
      );
      const updated = {
        ...c1,
        provider: 'OAUTH2_PROVIDER_DISCORD',
        clientId: 'other',
        sealedClientSecret: 'v1.resealed',
        updatedAt: 9,
      };
      await tx((t) => t.oauth2Credentials.update(updated));
      expect(await tx((t) => t.oauth2Credentials.get(orgId, c1.oauth2CredentialId))).toEqual(
        updated,
      );
      await tx((t) => t.oauth2Credentials.delete(orgId, c2.oauth2CredentialId));
      await tx((t) => t.oauth2Credentials.delete(orgId, fresh('missing')));
      expect(await tx((t) => t.oauth2Credentials.list(orgId))).toEqual([updated]);
      await tx((t) => t.organizations.delete(orgId));
      expect(await tx((t) => t.oauth2Credentials.list(orgId))).toEqual([]);
    },
  );

  check(
    'fiat on-ramp credentials and transactions: get, list by creation, update, delete, both conflicts, optional members; gone with the organization',
    async () => {
      const org = organization({ parentOrganizationId: undefined });
      const orgId = org.organizationId;
      const credential = (createdAt: number, sandboxMode: boolean) => ({
        organizationId: orgId,
        fiatOnrampCredentialId: fresh('onramp'),
        onrampProvider: 'FIAT_ON_RAMP_PROVIDER_MOONPAY',
        publishableApiKey: `pk_test_${createdAt}`,
        sealedSecretApiKey: `v1.sealed-${createdAt}`,
        sandboxMode,
        createdAt,
        updatedAt: createdAt,
      });
      const c2 = credential(2, true);
      const c1 = {
        ...credential(1, false),
        onrampProvider: 'FIAT_ON_RAMP_PROVIDER_COINBASE',
        projectId: 'project-1',
        sealedPrivateApiKey: 'v1.private-1',
      };
      const transaction = (createdAt: number) => ({
        organizationId: orgId,
        transactionId: fresh('onramp-tx'),
        onrampProvider: 'FIAT_ON_RAMP_PROVIDER_MOONPAY',
        fiatOnrampCredentialId: c2.fiatOnrampCredentialId,
        walletAddress: '0xde0b295669a9fd93d5f28d9ec85e40f4cb697bae',
        network: 'FIAT_ON_RAMP_BLOCKCHAIN_NETWORK_ETHEREUM',
        cryptoCurrencyCode: 'FIAT_ON_RAMP_CRYPTO_CURRENCY_ETH',
        sandboxMode: true,
        status: 'INITIATED',
        createdAt,
        updatedAt: createdAt,
      });
      const t2 = {
        ...transaction(2),
        fiatCurrencyCode: 'FIAT_ON_RAMP_CURRENCY_EUR',
        fiatCurrencyAmount: '25.50',
      };
      const t1 = transaction(1);
      await tx(async (t) => {
        await t.organizations.insert(org);
        await t.fiatOnRampCredentials.insert(c2);
        await t.fiatOnRampCredentials.insert(c1);
        await t.onRampTransactions.insert(t2);
        await t.onRampTransactions.insert(t1);
      });
      expect(await tx((t) => t.fiatOnRampCredentials.list(orgId))).toEqual([c1, c2]);
      expect(
        await tx((t) => t.fiatOnRampCredentials.get(orgId, c2.fiatOnrampCredentialId)),
      ).toEqual(c2);
      expect(
        await tx((t) => t.fiatOnRampCredentials.get(fresh('org'), c2.fiatOnrampCredentialId)),
      ).toBeUndefined();
      expect(await conflict(tx((t) => t.fiatOnRampCredentials.insert(c1)))).toBe(
        'fiat_on_ramp_credential_pkey',
      );
      expect(await conflict(tx((t) => t.fiatOnRampCredentials.insert(credential(3, true))))).toBe(
        'fiat_on_ramp_credential_provider',
      );
      const { projectId: _p, sealedPrivateApiKey: _k, ...withoutOptional } = c1;
      const updated = { ...withoutOptional, publishableApiKey: 'pk_other', updatedAt: 9 };
      await tx((t) => t.fiatOnRampCredentials.update(updated));
      expect(
        await tx((t) => t.fiatOnRampCredentials.get(orgId, c1.fiatOnrampCredentialId)),
      ).toEqual(updated);
      await tx((t) => t.fiatOnRampCredentials.delete(orgId, c2.fiatOnrampCredentialId));
      await tx((t) => t.fiatOnRampCredentials.delete(orgId, fresh('missing')));
      expect(await tx((t) => t.fiatOnRampCredentials.list(orgId))).toEqual([updated]);

      expect(await tx((t) => t.onRampTransactions.list(orgId))).toEqual([t1, t2]);
      expect(await tx((t) => t.onRampTransactions.get(orgId, t2.transactionId))).toEqual(t2);
      expect(await conflict(tx((t) => t.onRampTransactions.insert(t1)))).toBe(
        'on_ramp_transaction_pkey',
      );
      const completed = { ...t1, status: 'completed', updatedAt: 7 };
      await tx((t) => t.onRampTransactions.update(completed));
      expect(await tx((t) => t.onRampTransactions.get(orgId, t1.transactionId))).toEqual(completed);
      await tx((t) => t.onRampTransactions.delete(orgId, t2.transactionId));
      expect(await tx((t) => t.onRampTransactions.list(orgId))).toEqual([completed]);

      await tx((t) => t.organizations.delete(orgId));
      expect(await tx((t) => t.fiatOnRampCredentials.list(orgId))).toEqual([]);
      expect(await tx((t) => t.onRampTransactions.list(orgId))).toEqual([]);
    },
  );

  check(
    'smart contract interfaces: get, list by creation, find by address, conflicts, delete; gone with the organization',
    async () => {
      const org = organization({ parentOrganizationId: undefined });
      const orgId = org.organizationId;
      const sci = (createdAt: number, addressKey: string) => ({
        organizationId: orgId,
        smartContractInterfaceId: fresh('sci'),
        type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM',
        smartContractAddress: addressKey.toUpperCase(),
        addressKey,
        smartContractInterface: `[{"type":"function","name":"f${createdAt}","inputs":[]}]`,
        label: `abi ${createdAt}`,
        notes: '',
        createdAt,
        updatedAt: createdAt,
      });
      const s2 = sci(2, '0xbb');
      const s1 = sci(1, '0xaa');
      await tx(async (t) => {
        await t.organizations.insert(org);
        await t.smartContractInterfaces.insert(s2);
        await t.smartContractInterfaces.insert(s1);
      });
      expect(await tx((t) => t.smartContractInterfaces.list(orgId))).toEqual([s1, s2]);
      expect(
        await tx((t) => t.smartContractInterfaces.get(orgId, s2.smartContractInterfaceId)),
      ).toEqual(s2);
      expect(
        await tx((t) =>
          t.smartContractInterfaces.findByAddress(
            orgId,
            'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM',
            '0xaa',
          ),
        ),
      ).toEqual(s1);
      expect(
        await tx((t) =>
          t.smartContractInterfaces.findByAddress(
            orgId,
            'SMART_CONTRACT_INTERFACE_TYPE_SOLANA',
            '0xaa',
          ),
        ),
      ).toBeUndefined();
      expect(
        await tx((t) =>
          t.smartContractInterfaces.findByAddress(
            orgId,
            'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM',
            '0xAA',
          ),
        ),
      ).toBeUndefined();
      expect(await conflict(tx((t) => t.smartContractInterfaces.insert(s1)))).toBe(
        'smart_contract_interface_pkey',
      );
      expect(
        await conflict(tx((t) => t.smartContractInterfaces.insert({ ...sci(3, '0xaa') }))),
      ).toBe('smart_contract_interface_address');
      // Another type may use the same address key.
      const solana = { ...sci(4, '0xaa'), type: 'SMART_CONTRACT_INTERFACE_TYPE_SOLANA' };
      await tx((t) => t.smartContractInterfaces.insert(solana));
      await tx((t) => t.smartContractInterfaces.delete(orgId, s2.smartContractInterfaceId));
      await tx((t) => t.smartContractInterfaces.delete(orgId, fresh('missing')));
      expect(await tx((t) => t.smartContractInterfaces.list(orgId))).toEqual([s1, solana]);
      await tx((t) => t.organizations.delete(orgId));
      expect(await tx((t) => t.smartContractInterfaces.list(orgId))).toEqual([]);
    },
  );

  check(
    'organization documents: get by kind and id, list by creation, upsert, delete, conflict; gone with the organization',
    async () => {
      const org = organization({ parentOrganizationId: undefined });
      const orgId = org.organizationId;
      const feature = {
        organizationId: orgId,
        kind: 'feature' as const,
        documentId: 'FEATURE_NAME_WEBHOOK',
        body: { value: 'https://hooks.example' },
        createdAt: 2,
        updatedAt: 2,
      };
      const app = {
        organizationId: orgId,
        kind: 'tvc_app' as const,
        documentId: fresh('app'),
        body: { name: 'oracle', operatorIds: ['a', 'b'], nested: { threshold: 2 } },
        createdAt: 1,
        updatedAt: 1,
      };
      // The same id under another kind is another document.
      const sameIdOtherKind = { ...feature, kind: 'auth_proxy' as const, body: {}, createdAt: 3 };
      await tx(async (t) => {
        await t.organizations.insert(org);
        await t.organizationDocuments.insert(feature);
        await t.organizationDocuments.insert(app);
        await t.organizationDocuments.insert(sameIdOtherKind);
      });
      expect(await tx((t) => t.organizationDocuments.list(orgId))).toEqual([
        app,
        feature,
        sameIdOtherKind,
      ]);
      expect(
        await tx((t) => t.organizationDocuments.get(orgId, 'tvc_app', app.documentId)),
      ).toEqual(app);
      expect(
        await tx((t) => t.organizationDocuments.get(orgId, 'tvc_deployment', app.documentId)),
      ).toBeUndefined();
      expect(await conflict(tx((t) => t.organizationDocuments.insert(feature)))).toBe(
        'organization_document_pkey',
      );
      const updated = { ...feature, body: { value: '' }, updatedAt: 9 };
      await tx((t) => t.organizationDocuments.update(updated));
      expect(
        await tx((t) => t.organizationDocuments.get(orgId, 'feature', feature.documentId)),
      ).toEqual(updated);
      await tx((t) => t.organizationDocuments.delete(orgId, 'tvc_app', app.documentId));
      await tx((t) => t.organizationDocuments.delete(orgId, 'feature', fresh('missing')));
      expect(await tx((t) => t.organizationDocuments.list(orgId))).toEqual([
        updated,
        sameIdOtherKind,
      ]);
      await tx((t) => t.organizations.delete(orgId));
      expect(await tx((t) => t.organizationDocuments.list(orgId))).toEqual([]);
    },
  );

  check(
    'send transactions and gas usage configs: get, list by creation, update, conflict, optional columns; gone with the organization',
    async () => {
      const org = organization({ parentOrganizationId: undefined });
      const orgId = org.organizationId;
      const sent = (createdAt: number) => ({
        organizationId: orgId,
        sendTransactionStatusId: fresh('send'),
        activityId: fresh('activity'),
        caip2: 'eip155:84532',
        fromAddress: '0x00000000000000000000000000000000000000aa',
        txHash: `0x${String(createdAt).padStart(64, '0')}`,
        signedTransaction: `0x02f8${createdAt}`,
        createdAt,
        updatedAt: createdAt,
      });
      const s2 = {
        ...sent(2),
        sponsorSignedTransaction: '0x02f9',
        sponsorTxHash: `0x${'b'.repeat(64)}`,
        sponsoredWei: '21000000000000',
        sponsoredUsd: '0.063000',
      };
      const s1 = sent(1);
      const config = {
        organizationId: orgId,
        gasUsageConfigId: fresh('gas'),
        orgWindowLimitUsd: '25.000000',
        subOrgWindowLimitUsd: '5.000000',
        windowDurationMinutes: 60,
        enabled: true,
        createdAt: 3,
        updatedAt: 3,
      };
      await tx(async (t) => {
        await t.organizations.insert(org);
        await t.sendTransactions.insert(s2);
        await t.sendTransactions.insert(s1);
        await t.gasUsageConfigs.insert(config);
      });
      expect(await tx((t) => t.sendTransactions.list(orgId))).toEqual([s1, s2]);
      expect(await tx((t) => t.sendTransactions.get(orgId, s2.sendTransactionStatusId))).toEqual(
        s2,
      );
      expect(
        await tx((t) => t.sendTransactions.get(fresh('org'), s2.sendTransactionStatusId)),
      ).toBeUndefined();
      expect(await conflict(tx((t) => t.sendTransactions.insert(s1)))).toBe(
        'send_transaction_pkey',
      );
      const updated = { ...s1, updatedAt: 9 };
      await tx((t) => t.sendTransactions.update(updated));
      expect(await tx((t) => t.sendTransactions.get(orgId, s1.sendTransactionStatusId))).toEqual(
        updated,
      );
      expect(await tx((t) => t.gasUsageConfigs.list(orgId))).toEqual([config]);
      expect(await conflict(tx((t) => t.gasUsageConfigs.insert(config)))).toBe(
        'gas_usage_config_pkey',
      );
      const disabled = { ...config, enabled: false, orgWindowLimitUsd: '1.500000', updatedAt: 7 };
      await tx((t) => t.gasUsageConfigs.update(disabled));
      expect(await tx((t) => t.gasUsageConfigs.get(orgId, config.gasUsageConfigId))).toEqual(
        disabled,
      );
      await tx((t) => t.organizations.delete(orgId));
      expect(await tx((t) => t.sendTransactions.list(orgId))).toEqual([]);
      expect(await tx((t) => t.gasUsageConfigs.list(orgId))).toEqual([]);
    },
  );

  check('wallet accounts: creation order, per-wallet listing, lookups, conflicts', async () => {
    const org = fresh('org');
    const [wa, wb] = [fresh('wallet'), fresh('wallet')];
    // createdAt runs backwards: the listing follows creation, not createdAt.
    const a0 = account(org, wa, {
      createdAt: 30,
      address: '0xAbCdEf0000000000000000000000000000000001',
    });
    const b0 = account(org, wb, { createdAt: 20, path: a0.path });
    const a1 = account(org, wa, {
      createdAt: 10,
      address: 'So1anaAddressCaseMatters',
      addressFormat: 'ADDRESS_FORMAT_SOLANA',
      curve: 'CURVE_ED25519',
    });
    // Shares a0's address (other case) and public key: lookups return the first.
    const a2 = account(org, wa, { address: a0.address.toLowerCase(), publicKey: a0.publicKey });
    await tx(async (t) => {
      for (const a of [a0, b0, a1, a2]) await t.walletAccounts.insert(a);
    });
    expect(await tx((t) => t.walletAccounts.list(org))).toEqual([a0, b0, a1, a2]);
    expect(await tx((t) => t.walletAccounts.list(org, wa))).toEqual([a0, a1, a2]);
    expect(await tx((t) => t.walletAccounts.list(org, fresh('wallet')))).toEqual([]);
    expect(await tx((t) => t.walletAccounts.list(fresh('org')))).toEqual([]);

    const upper = `0x${a0.address.slice(2).toUpperCase()}`;
    expect(await tx((t) => t.walletAccounts.findByAddress(org, upper))).toEqual(a0);
    expect(await tx((t) => t.walletAccounts.findByAddress(org, a1.address))).toEqual(a1);
    // Non-hex addresses compare exactly.
    expect(
      await tx((t) => t.walletAccounts.findByAddress(org, a1.address.toLowerCase())),
    ).toBeUndefined();
    expect(
      await tx((t) => t.walletAccounts.findByAddress(fresh('org'), a0.address)),
    ).toBeUndefined();
    expect(await tx((t) => t.walletAccounts.findByPublicKey(org, a0.publicKey))).toEqual(a0);
    expect(await tx((t) => t.walletAccounts.findByPublicKey(org, 'nope'))).toBeUndefined();
    expect(await tx((t) => t.walletAccounts.findByPath(org, wb, a0.path))).toEqual(b0);
    expect(await tx((t) => t.walletAccounts.findByPath(org, wa, a1.path))).toEqual(a1);
    expect(await tx((t) => t.walletAccounts.findByPath(org, wa, "m/0'"))).toBeUndefined();

    expect(await conflict(tx((t) => t.walletAccounts.insert({ ...a1, path: "m/9'" })))).toBe(
      'wallet_account_pkey',
    );
    expect(
      await conflict(tx((t) => t.walletAccounts.insert(account(org, wa, { path: a1.path })))),
    ).toBe('wallet_account_path');
    // Both keys taken: the primary key is reported, as the memory store checks it first.
    expect(await conflict(tx((t) => t.walletAccounts.insert({ ...a1 })))).toBe(
      'wallet_account_pkey',
    );
  });

  check('wallet accounts: paging with after/before cursors and limits', async () => {
    const org = fresh('org');
    const [wa, wb] = [fresh('wallet'), fresh('wallet')];
    const all = Array.from({ length: 7 }, (_, i) =>
      account(org, i % 3 === 2 ? wb : wa, { createdAt: 100 - i }),
    );
    await tx(async (t) => {
      for (const a of all) await t.walletAccounts.insert(a);
    });
    const ids = (p: Promise<{ walletAccountId: string }[]>) =>
      p.then((rows) =>
        rows.map((r) => all.findIndex((a) => a.walletAccountId === r.walletAccountId)),
      );
    const list = (
      walletId: string | undefined,
      page: Parameters<StoreTransaction['walletAccounts']['list']>[2],
    ) => ids(tx((t) => t.walletAccounts.list(org, walletId, page)));
    const id = (i: number) => all[i]!.walletAccountId;

    expect(await list(undefined, { limit: 3 })).toEqual([0, 1, 2]);
    expect(await list(undefined, { limit: 3, after: id(2) })).toEqual([3, 4, 5]);
    expect(await list(undefined, { limit: 3, after: id(5) })).toEqual([6]);
    expect(await list(undefined, { limit: 3, before: id(5) })).toEqual([2, 3, 4]);
    expect(await list(undefined, { limit: 10, before: id(2) })).toEqual([0, 1]);
    expect(await list(undefined, { limit: 10, after: id(1), before: id(5) })).toEqual([2, 3, 4]);
    expect(await list(undefined, { limit: 2, after: id(1), before: id(5) })).toEqual([2, 3]);
    expect(await list(undefined, { limit: 10, after: id(5), before: id(1) })).toEqual([]);
    expect(await list(undefined, { limit: 0 })).toEqual([]);
    expect(await list(undefined, { limit: 10, after: 'unknown' })).toEqual([]);
    expect(await list(undefined, { limit: 10, before: 'unknown' })).toEqual([]);
    // Within one wallet: a cursor from another wallet is unknown there.
    expect(await list(wa, { limit: 2 })).toEqual([0, 1]);
    expect(await list(wa, { limit: 2, after: id(1) })).toEqual([3, 4]);
    expect(await list(wa, { limit: 2, after: id(2) })).toEqual([]);
    expect(await list(wb, { limit: 5, before: id(5) })).toEqual([2]);
  });

  check(
    'wallet accounts: markExported sets exported and updatedAt of one account only',
    async () => {
      const org = fresh('org');
      const [wa, wb] = [fresh('wallet'), fresh('wallet')];
      const a0 = account(org, wa, { createdAt: 20, updatedAt: 20 });
      const a1 = account(org, wa, { createdAt: 10, updatedAt: 10 });
      // Same id in another organization: untouched.
      const elsewhere = account(fresh('org'), wa, { walletAccountId: a0.walletAccountId });
      // Inserted as exported: the flag round-trips.
      const b0 = account(org, wb, { exported: true });
      await tx(async (t) => {
        for (const a of [a0, a1, elsewhere, b0]) await t.walletAccounts.insert(a);
      });
      expect(await tx((t) => t.walletAccounts.list(org))).toEqual([a0, a1, b0]);

      // Rolled back: nothing changes.
      const boom = new Error('boom');
      await expect(
        tx(async (t) => {
          await t.walletAccounts.markExported(org, a0.walletAccountId, 99);
          throw boom;
        }),
      ).rejects.toBe(boom);
      expect(await tx((t) => t.walletAccounts.list(org))).toEqual([a0, a1, b0]);

      await tx((t) => t.walletAccounts.markExported(org, a0.walletAccountId, 99));
      const marked = { ...a0, exported: true, updatedAt: 99 };
      // Same place in the listing; every lookup answers the marked record.
      expect(await tx((t) => t.walletAccounts.list(org))).toEqual([marked, a1, b0]);
      expect(await tx((t) => t.walletAccounts.list(org, wa))).toEqual([marked, a1]);
      expect(await tx((t) => t.walletAccounts.findByAddress(org, a0.address))).toEqual(marked);
      expect(await tx((t) => t.walletAccounts.findByPublicKey(org, a0.publicKey))).toEqual(marked);
      expect(await tx((t) => t.walletAccounts.findByPath(org, wa, a0.path))).toEqual(marked);
      expect(await tx((t) => t.walletAccounts.list(elsewhere.organizationId))).toEqual([elsewhere]);

      // Again: still exported, the newer time. An absent account is a no-op.
      await tx(async (t) => {
        await t.walletAccounts.markExported(org, a0.walletAccountId, 100);
        await t.walletAccounts.markExported(org, fresh('account'), 100);
        await t.walletAccounts.markExported(fresh('org'), a1.walletAccountId, 100);
      });
      expect(await tx((t) => t.walletAccounts.list(org))).toEqual([
        { ...a0, exported: true, updatedAt: 100 },
        a1,
        b0,
      ]);
    },
  );

  check('private keys: lookups by any address and by public key, first match, update', async () => {
    const org = fresh('org');
    const shared = '0x00000000000000000000000000000000000000Ff';
    const p1 = privateKey(org, {
      createdAt: 50,
      addresses: [
        { format: 'ADDRESS_FORMAT_ETHEREUM', address: shared },
        { format: 'ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH', address: 'bc1qCaseSensitive' },
      ],
      privateKeyTags: ['tag-1', 'tag,2'],
    });
    const p2 = privateKey(org, {
      createdAt: 40,
      publicKey: p1.publicKey,
      addresses: [{ format: 'ADDRESS_FORMAT_ETHEREUM', address: shared.toLowerCase() }],
    });
    const p3 = privateKey(org, { createdAt: 40, addresses: [], curve: 'CURVE_ED25519' });
    await tx(async (t) => {
      for (const p of [p1, p2, p3]) await t.privateKeys.insert(p);
    });
    expect(await tx((t) => t.privateKeys.list(org))).toEqual([p2, p3, p1]);
    expect(await tx((t) => t.privateKeys.get(org, p3.privateKeyId))).toEqual(p3);
    expect(await tx((t) => t.privateKeys.get(fresh('org'), p3.privateKeyId))).toBeUndefined();
    expect(
      await tx((t) => t.privateKeys.findByAddress(org, shared.toUpperCase().replace('0X', '0x'))),
    ).toEqual(p1);
    expect(await tx((t) => t.privateKeys.findByAddress(org, 'bc1qCaseSensitive'))).toEqual(p1);
    expect(await tx((t) => t.privateKeys.findByAddress(org, 'bc1qcasesensitive'))).toBeUndefined();
    expect(await tx((t) => t.privateKeys.findByAddress(fresh('org'), shared))).toBeUndefined();
    expect(await tx((t) => t.privateKeys.findByPublicKey(org, p1.publicKey))).toEqual(p1);
    expect(await tx((t) => t.privateKeys.findByPublicKey(org, 'nope'))).toBeUndefined();
    expect(await conflict(tx((t) => t.privateKeys.insert({ ...p3 })))).toBe('private_key_pkey');

    const disabled = { ...p1, disabled: true, exported: true, privateKeyTags: [], updatedAt: 77 };
    await tx((t) => t.privateKeys.update(disabled));
    expect(await tx((t) => t.privateKeys.get(org, p1.privateKeyId))).toEqual(disabled);
    expect(await tx((t) => t.privateKeys.findByAddress(org, shared))).toEqual(disabled);
  });

  check(
    'deletes: wallets, accounts (one, per wallet), private keys; lookups fall through; rollback restores',
    async () => {
      const org = fresh('org');
      const [w1, w2] = [wallet(org, { createdAt: 1 }), wallet(org, { createdAt: 1 })];
      const a1 = account(org, w1.walletId);
      const a2 = account(org, w1.walletId);
      // Shares a1's address and public key from another wallet: lookups fall to it.
      const b1 = account(org, w2.walletId, { address: a1.address, publicKey: a1.publicKey });
      const p1 = privateKey(org, { createdAt: 5 });
      const p2 = privateKey(org, {
        createdAt: 5,
        publicKey: p1.publicKey,
        addresses: p1.addresses,
      });
      await tx(async (t) => {
        for (const w of [w1, w2]) await t.wallets.insert(w);
        for (const a of [a1, a2, b1]) await t.walletAccounts.insert(a);
        for (const p of [p1, p2]) await t.privateKeys.insert(p);
      });
      const snapshot = () =>
        tx(async (t) => ({
          wallets: await t.wallets.list(org),
          accounts: await t.walletAccounts.list(org),
          byAddress: await t.walletAccounts.findByAddress(org, a1.address),
          byPublicKey: await t.walletAccounts.findByPublicKey(org, a1.publicKey),
          byPath: await t.walletAccounts.findByPath(org, w1.walletId, a1.path),
          keys: await t.privateKeys.list(org),
          keyByAddress: await t.privateKeys.findByAddress(org, p1.addresses[0]!.address),
          keyByPublicKey: await t.privateKeys.findByPublicKey(org, p1.publicKey),
        }));
      const before = await snapshot();
      expect(before.accounts).toEqual([a1, a2, b1]);
      expect(before.byAddress).toEqual(a1);

      // Rolled back: everything is where it was, in the same order.
      const boom = new Error('boom');
      await expect(
        tx(async (t) => {
          await t.walletAccounts.delete(org, a1.walletAccountId);
          await t.walletAccounts.deleteByWallet(org, w1.walletId);
          await t.wallets.delete(org, w1.walletId);
          await t.privateKeys.delete(org, p1.privateKeyId);
          throw boom;
        }),
      ).rejects.toBe(boom);
      expect(await snapshot()).toEqual(before);

      await tx((t) => t.walletAccounts.delete(org, a1.walletAccountId));
      let now = await snapshot();
      expect(now.accounts).toEqual([a2, b1]);
      expect(now.byAddress).toEqual(b1);
      expect(now.byPublicKey).toEqual(b1);
      expect(now.byPath).toBeUndefined();
      // The path is free again.
      await tx((t) => t.walletAccounts.insert(account(org, w1.walletId, { path: a1.path })));

      await tx(async (t) => {
        await t.walletAccounts.deleteByWallet(org, w1.walletId);
        await t.wallets.delete(org, w1.walletId);
        await t.privateKeys.delete(org, p1.privateKeyId);
        // Deleting what is absent is a no-op.
        await t.wallets.delete(org, fresh('wallet'));
        await t.privateKeys.delete(org, p1.privateKeyId);
        await t.walletAccounts.delete(fresh('org'), b1.walletAccountId);
      });
      now = await snapshot();
      expect(now.wallets).toEqual([w2]);
      expect(now.accounts).toEqual([b1]);
      expect(now.keys).toEqual([p2]);
      expect(now.keyByAddress).toEqual(p2);
      expect(now.keyByPublicKey).toEqual(p2);
      expect(await tx((t) => t.wallets.get(org, w1.walletId))).toBeUndefined();
      expect(await tx((t) => t.privateKeys.get(org, p1.privateKeyId))).toBeUndefined();
    },
  );

  check('activities: get within the organization, by fingerprint, update, conflicts', async () => {
    const org = fresh('org');
    const a = activity(org, {
      status: 'ACTIVITY_STATUS_CONSENSUS_NEEDED',
      parameters: {
        nested: { list: [1, 2.5, -3e-7, 1e21, null, true, 'ünïcödé ✓ 𝄞'], empty: {} },
        quote: 'he said "hi"\\',
        zero: 0,
      },
    });
    await tx((t) => t.activities.insert(a));
    const got = await tx((t) => t.activities.get(org, a.id));
    expect(got).toEqual(a);
    expect(got).not.toHaveProperty('result');
    expect(got).not.toHaveProperty('failure');
    expect(await tx((t) => t.activities.get(fresh('org'), a.id))).toBeUndefined();
    expect(await tx((t) => t.activities.get(org, activityId()))).toBeUndefined();
    expect(await tx((t) => t.activities.findByFingerprint(a.fingerprint))).toEqual(a);
    expect(await tx((t) => t.activities.findByFingerprint('sha256:none'))).toBeUndefined();

    const done: ActivityRecord = {
      ...a,
      status: 'ACTIVITY_STATUS_COMPLETED',
      result: { walletId: 'w', addresses: ['0x1'] },
      votes: [vote(a.id)],
      updatedAt: 1_700_000_000_500,
    };
    await tx((t) => t.activities.update(done));
    expect(await tx((t) => t.activities.get(org, a.id))).toEqual(done);
    const failed: ActivityRecord = {
      ...a,
      status: 'ACTIVITY_STATUS_FAILED',
      failure: { code: 3, message: 'bad', details: [{ '@type': 'x', field: 'y' }] },
    };
    await tx((t) => t.activities.update(failed));
    expect(await tx((t) => t.activities.get(org, a.id))).toEqual(failed);

    expect(await conflict(tx((t) => t.activities.insert({ ...a })))).toBe('activity_pkey');
    // One activity per fingerprint, across organizations.
    expect(
      await conflict(
        tx((t) => t.activities.insert(activity(fresh('org'), { fingerprint: a.fingerprint }))),
      ),
    ).toBe('activity_fingerprint');
  });

  check(
    'policies: get, list by createdAt then insertion, findByName, update, delete, conflicts',
    async () => {
      const org = fresh('org');
      const other = fresh('org');
      const late = policy(org, { createdAt: 30, policyName: 'late' });
      const tieA = policy(org, {
        createdAt: 10,
        policyName: 'tie A',
        effect: 'EFFECT_DENY',
        condition: "private_key.tags.contains('hot') && activity.params['hash_function'] == 'x'",
      });
      const tieB = policy(org, {
        createdAt: 10,
        policyName: 'tie B',
        condition: undefined,
        consensus: undefined,
        time: "CronSpan('0 9 * * 1-5', '8h', 'Europe/Paris')",
        notes: 'ünï "q" \\',
      });
      // Names are unique per organization only.
      const elsewhere = policy(other, { policyName: 'late' });
      await tx(async (t) => {
        for (const p of [late, tieA, tieB, elsewhere]) await t.policies.insert(p);
      });
      expect(await tx((t) => t.policies.list(org))).toEqual([tieA, tieB, late]);
      expect(await tx((t) => t.policies.list(other))).toEqual([elsewhere]);
      const got = await tx((t) => t.policies.get(org, tieB.policyId));
      expect(got).toEqual(tieB);
      expect(got?.condition).toBeUndefined();
      expect(got?.consensus).toBeUndefined();
      expect(await tx((t) => t.policies.get(other, tieB.policyId))).toBeUndefined();
      expect(await tx((t) => t.policies.findByName(org, 'tie A'))).toEqual(tieA);
      expect(await tx((t) => t.policies.findByName(org, 'TIE A'))).toBeUndefined();
      expect(await tx((t) => t.policies.findByName(other, 'tie A'))).toBeUndefined();

      expect(await conflict(tx((t) => t.policies.insert({ ...tieA, policyName: 'new' })))).toBe(
        'policy_pkey',
      );
      expect(
        await conflict(tx((t) => t.policies.insert(policy(org, { policyName: 'late' })))),
      ).toBe('policy_name');
      // Renaming onto another policy's name is a conflict and changes nothing.
      expect(await conflict(tx((t) => t.policies.update({ ...tieB, policyName: 'tie A' })))).toBe(
        'policy_name',
      );
      expect(await tx((t) => t.policies.get(org, tieB.policyId))).toEqual(tieB);

      const renamed = {
        ...tieA,
        policyName: 'renamed',
        effect: 'EFFECT_ALLOW' as const,
        condition: undefined,
        updatedAt: 99,
      };
      await tx((t) => t.policies.update(renamed));
      const back = await tx((t) => t.policies.get(org, tieA.policyId));
      expect(back).toEqual(renamed);
      expect(back?.condition).toBeUndefined();
      // The old name is free again, the new one taken; the place in the listing is kept.
      expect(await tx((t) => t.policies.findByName(org, 'tie A'))).toBeUndefined();
      expect(await tx((t) => t.policies.findByName(org, 'renamed'))).toEqual(renamed);
      expect((await tx((t) => t.policies.list(org))).map((p) => p.policyName)).toEqual([
        'renamed',
        'tie B',
        'late',
      ]);

      await tx((t) => t.policies.delete(org, late.policyId));
      await tx((t) => t.policies.delete(org, fresh('missing')));
      expect(await tx((t) => t.policies.get(org, late.policyId))).toBeUndefined();
      expect(await tx((t) => t.policies.findByName(org, 'late'))).toBeUndefined();
      const again = policy(org, { policyName: 'late', createdAt: 10 });
      await tx((t) => t.policies.insert(again));
      expect((await tx((t) => t.policies.list(org))).map((p) => p.policyName)).toEqual([
        'renamed',
        'tie B',
        'late',
      ]);
    },
  );

  const tagRepositories: [string, (t: StoreTransaction) => NamedRecordRepository<TagRecord>][] = [
    ['user_tag', (t) => t.userTags],
    ['private_key_tag', (t) => t.privateKeyTags],
  ];
  for (const [name, repository] of tagRepositories) {
    check(`${name}: the named-record contract`, async () => {
      const org = fresh('org');
      const b = tag(org, { createdAt: 20, tagName: 'b' });
      const a1 = tag(org, { createdAt: 10, tagName: 'a1' });
      const a2 = tag(org, { createdAt: 10, tagName: 'ünï "2"' });
      await tx(async (t) => {
        for (const x of [b, a1, a2]) await repository(t).insert(x);
      });
      expect(await tx((t) => repository(t).list(org))).toEqual([a1, a2, b]);
      expect(await tx((t) => repository(t).get(org, a2.tagId))).toEqual(a2);
      expect(await tx((t) => repository(t).findByName(org, 'ünï "2"'))).toEqual(a2);
      expect(await conflict(tx((t) => repository(t).insert({ ...b, tagName: 'c' })))).toBe(
        `${name}_pkey`,
      );
      expect(await conflict(tx((t) => repository(t).insert(tag(org, { tagName: 'b' }))))).toBe(
        `${name}_name`,
      );
      expect(await conflict(tx((t) => repository(t).update({ ...a1, tagName: 'b' })))).toBe(
        `${name}_name`,
      );
      const renamed = { ...a1, tagName: 'renamed', updatedAt: 5 };
      await tx((t) => repository(t).update(renamed));
      expect(await tx((t) => repository(t).findByName(org, 'a1'))).toBeUndefined();
      expect(await tx((t) => repository(t).list(org))).toEqual([renamed, a2, b]);
      await tx((t) => repository(t).delete(org, a2.tagId));
      expect(await tx((t) => repository(t).list(org))).toEqual([renamed, b]);
      // User tags and private-key tags are separate namespaces.
      const [otherName, other] = tagRepositories.find(([n]) => n !== name)!;
      expect(otherName).not.toBe(name);
      expect(await tx((t) => other(t).findByName(org, 'b'))).toBeUndefined();
    });
  }

  check('policy evaluations: per activity, oldest first, ties in insertion order', async () => {
    const org = fresh('org');
    const act = activityId();
    const second = policyEvaluation(org, act, { createdAt: 20 });
    const firstA = policyEvaluation(org, act, {
      createdAt: 10,
      policyEvaluations: [
        { policyId: 'p1', outcome: 'OUTCOME_REQUIRES_CONSENSUS' },
        { policyId: 'p2', outcome: 'OUTCOME_ERROR' },
      ],
    });
    const firstB = policyEvaluation(org, act, { createdAt: 10, policyEvaluations: [] });
    const noVote = policyEvaluation(org, act, { createdAt: 30, voteId: undefined });
    const elsewhere = policyEvaluation(fresh('org'), act);
    const otherActivity = policyEvaluation(org, activityId());
    await tx(async (t) => {
      for (const e of [second, firstA, firstB, noVote, elsewhere, otherActivity]) {
        await t.policyEvaluations.insert(e);
      }
    });
    const listed = await tx((t) => t.policyEvaluations.listByActivity(org, act));
    expect(listed).toEqual([firstA, firstB, second, noVote]);
    expect(listed[3]?.voteId).toBeUndefined();
    expect(await tx((t) => t.policyEvaluations.listByActivity(org, activityId()))).toEqual([]);
    expect(await conflict(tx((t) => t.policyEvaluations.insert({ ...second })))).toBe(
      'policy_evaluation_pkey',
    );
  });

  check('activities: getForUpdate reads like get and serializes read-modify-write', async () => {
    const org = fresh('org');
    const a = activity(org, { status: 'ACTIVITY_STATUS_CONSENSUS_NEEDED' });
    await tx((t) => t.activities.insert(a));
    expect(await tx((t) => t.activities.getForUpdate(org, a.id))).toEqual(a);
    expect(await tx((t) => t.activities.getForUpdate(fresh('org'), a.id))).toBeUndefined();
    expect(await tx((t) => t.activities.getForUpdate(org, activityId()))).toBeUndefined();

    // Concurrent votes: each transaction reads, waits, appends, writes. With a plain read
    // under READ COMMITTED some would be lost; getForUpdate keeps every one.
    const voteBy = (n: number): VoteRecord =>
      vote(a.id, {
        id: `vote-${n}`,
        userId: `user-${n}`,
        user: { ...vote(a.id).user, userId: `user-${n}`, userName: 'voter' },
        message: '{}',
        createdAt: n,
      });
    await Promise.all(
      [1, 2, 3, 4].map((n) =>
        tx(async (t) => {
          const current = (await t.activities.getForUpdate(org, a.id))!;
          await new Promise((resolve) => setTimeout(resolve, 15));
          current.votes.push(voteBy(n));
          await t.activities.update(current);
        }),
      ),
    );
    const after = await tx((t) => t.activities.get(org, a.id));
    expect(after?.votes.map((v) => v.id).sort()).toEqual(['vote-1', 'vote-2', 'vote-3', 'vote-4']);
  });

  check(
    'activities: countInTree counts the organization and its sub-organizations, by filter and time',
    async () => {
      const root = organization({ parentOrganizationId: undefined });
      const child = organization({ parentOrganizationId: root.organizationId });
      const stranger = organization({ parentOrganizationId: undefined });
      const sign = 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2' as const;
      const at = (organizationId: string, createdAt: number, o: Partial<ActivityRecord> = {}) =>
        activity(organizationId, { type: sign, createdAt, updatedAt: createdAt, ...o });
      await tx(async (t) => {
        for (const o of [root, child, stranger]) await t.organizations.insert(o);
        for (const a of [
          at(root.organizationId, 100),
          at(root.organizationId, 200),
          at(child.organizationId, 300),
          at(root.organizationId, 50), // before the window
          at(root.organizationId, 400, { status: 'ACTIVITY_STATUS_FAILED' }),
          at(child.organizationId, 500, { type: 'ACTIVITY_TYPE_CREATE_WALLET' }),
          at(stranger.organizationId, 600),
        ]) {
          await t.activities.insert(a);
        }
      });
      const filter = { statuses: ['ACTIVITY_STATUS_COMPLETED' as const], types: [sign] };
      expect(await tx((t) => t.activities.countInTree(root.organizationId, filter, 100))).toBe(3);
      expect(await tx((t) => t.activities.countInTree(root.organizationId, filter, 0))).toBe(4);
      expect(await tx((t) => t.activities.countInTree(root.organizationId, {}, 100))).toBe(5);
      expect(await tx((t) => t.activities.countInTree(child.organizationId, filter, 0))).toBe(1);
      expect(await tx((t) => t.activities.countInTree(fresh('org'), filter, 0))).toBe(0);
    },
  );

  check('activities: newest first by id, filters, cursors', async () => {
    const org = fresh('org');
    const other = fresh('org');
    const kinds = [
      ['ACTIVITY_TYPE_CREATE_WALLET', 'ACTIVITY_STATUS_COMPLETED'],
      ['ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2', 'ACTIVITY_STATUS_FAILED'],
      ['ACTIVITY_TYPE_CREATE_WALLET', 'ACTIVITY_STATUS_CONSENSUS_NEEDED'],
      ['ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2', 'ACTIVITY_STATUS_COMPLETED'],
      ['ACTIVITY_TYPE_CREATE_USERS_V3', 'ACTIVITY_STATUS_COMPLETED'],
      ['ACTIVITY_TYPE_CREATE_WALLET', 'ACTIVITY_STATUS_COMPLETED'],
    ] as const;
    // Ascending ids, inserted out of order, createdAt unrelated to id.
    const ids = kinds.map(() => activityId());
    const all = kinds.map(([type, status], i) =>
      activity(org, { id: ids[i]!, type, status, createdAt: 1000 - i }),
    );
    await tx(async (t) => {
      for (const i of [3, 0, 5, 1, 4, 2]) await t.activities.insert(all[i]!);
      await t.activities.insert(activity(other));
    });
    const idx = (rows: ActivityRecord[]) => rows.map((r) => ids.indexOf(r.id));
    const list = (
      filter: Parameters<StoreTransaction['activities']['list']>[1],
      page: Parameters<StoreTransaction['activities']['list']>[2],
    ) => tx((t) => t.activities.list(org, filter, page)).then(idx);

    expect(await list({}, { limit: 10 })).toEqual([5, 4, 3, 2, 1, 0]);
    expect(await list({ statuses: [], types: [] }, { limit: 10 })).toEqual([5, 4, 3, 2, 1, 0]);
    expect(await list({}, { limit: 2 })).toEqual([5, 4]);
    expect(await list({}, { limit: 2, after: ids[4] })).toEqual([3, 2]);
    expect(await list({}, { limit: 2, before: ids[1] })).toEqual([3, 2]);
    expect(await list({}, { limit: 10, before: ids[3] })).toEqual([5, 4]);
    expect(await list({}, { limit: 10, after: ids[4], before: ids[1] })).toEqual([3, 2]);
    expect(await list({}, { limit: 10, after: ids[0] })).toEqual([]);
    expect(await list({}, { limit: 10, after: activityId() })).toEqual([]);
    expect(await list({}, { limit: 10, before: activityId() })).toEqual([]);
    expect(await list({ statuses: ['ACTIVITY_STATUS_COMPLETED'] }, { limit: 10 })).toEqual([
      5, 4, 3, 0,
    ]);
    expect(await list({ types: ['ACTIVITY_TYPE_CREATE_WALLET'] }, { limit: 10 })).toEqual([
      5, 2, 0,
    ]);
    expect(
      await list(
        {
          types: ['ACTIVITY_TYPE_CREATE_WALLET'],
          statuses: ['ACTIVITY_STATUS_COMPLETED', 'ACTIVITY_STATUS_FAILED'],
        },
        { limit: 10 },
      ),
    ).toEqual([5, 0]);
    expect(
      await list({ statuses: ['ACTIVITY_STATUS_COMPLETED'] }, { limit: 1, after: ids[4] }),
    ).toEqual([3]);
    // A cursor the filter excludes is unknown in that listing.
    expect(
      await list({ statuses: ['ACTIVITY_STATUS_COMPLETED'] }, { limit: 10, after: ids[2] }),
    ).toEqual([]);
    // A cursor from another organization too.
    const foreign = (await tx((t) => t.activities.list(other, {}, { limit: 1 })))[0]!;
    expect(await list({}, { limit: 10, after: foreign.id })).toEqual([]);
  });

  check('activities: odd limits page exactly as the memory store does', async () => {
    const org = fresh('org');
    const ids = Array.from({ length: 5 }, () => activityId());
    await tx(async (t) => {
      for (const id of ids) await t.activities.insert(activity(org, { id }));
    });
    const count = (limit: number, cursor?: 'before') =>
      tx((t) => t.activities.list(org, {}, { limit, ...(cursor ? { before: ids[0]! } : {}) })).then(
        (rows) => rows.length,
      );
    expect(await count(2.5)).toBe(2);
    expect(await count(-1)).toBe(4);
    expect(await count(Number.NaN)).toBe(0);
    expect(await count(Number.POSITIVE_INFINITY)).toBe(5);
    expect(await count(2.5, 'before')).toBe(3);
    expect(await count(-1, 'before')).toBe(0);
    expect(await count(Number.NaN, 'before')).toBe(4);
  });
  check(
    'auditLog: appends chain by seq from 1, concurrent appends serialize, heads and pages',
    async () => {
      const org = fresh('org');
      const other = fresh('org');
      await tx(async (t) => {
        await t.auditLog.append(org, JSON.stringify({ organizationId: org, n: 1 }), 1000);
        await t.auditLog.append(other, JSON.stringify({ organizationId: other, n: 1 }), 1000);
      });
      // Five transactions append to one chain at once: each gets its own seq, none is lost.
      await Promise.all(
        [2, 3, 4, 5, 6].map((n) =>
          tx((t) => t.auditLog.append(org, JSON.stringify({ organizationId: org, n }), 1000 + n)),
        ),
      );
      // An append whose transaction fails leaves no trace.
      await expect(
        tx(async (t) => {
          await t.auditLog.append(org, JSON.stringify({ organizationId: org, n: 'lost' }), 2000);
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      const entries = await tx((t) => t.auditLog.list(org, 1, 100));
      expect(entries.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
      expect(entries.map((e) => JSON.parse(e.body).n).sort()).toEqual([1, 2, 3, 4, 5, 6]);
      const head = (await tx((t) => t.auditLog.heads())).find((h) => h.organizationId === org);
      expect(verifyAuditChain(entries, head)).toBeUndefined();
      expect(head?.seq).toBe(6);
      // Pages from a seq, at most a limit; the other chain is apart.
      expect((await tx((t) => t.auditLog.list(org, 5, 1))).map((e) => e.seq)).toEqual([5]);
      expect(await tx((t) => t.auditLog.list(org, 7, 10))).toEqual([]);
      expect((await tx((t) => t.auditLog.list(other, 1, 10))).map((e) => e.seq)).toEqual([1]);
      // Hashes the store computed are the domain's: entry 1 commits to the genesis hash.
      expect(entries[0]!.hash).toBe(auditEntryHash(AUDIT_GENESIS_HASH, entries[0]!.body));
    },
  );

  check('organizations: getWithActivity is get and findByFingerprint in one read', async () => {
    const org = organization();
    const stored = activity(fresh('org'), { id: activityId() });
    await tx(async (t) => {
      await t.organizations.insert(org);
      await t.activities.insert(stored);
    });
    const missing = `sha256:${fresh('none')}`;
    expect(
      await tx((t) => t.organizations.getWithActivity(org.organizationId, stored.fingerprint)),
    ).toEqual({ organization: org, activity: stored });
    expect(await tx((t) => t.organizations.getWithActivity(org.organizationId, missing))).toEqual({
      organization: org,
    });
    expect(
      await tx((t) => t.organizations.getWithActivity(fresh('missing'), stored.fingerprint)),
    ).toEqual({ activity: stored });
    expect(await tx((t) => t.organizations.getWithActivity(fresh('missing'), missing))).toEqual({});
  });

  check(
    'activities: insertDecided writes the activity, its evaluation and its audit entry, or nothing on a conflict',
    async () => {
      const org = fresh('org');
      const first = activity(org, { id: activityId() });
      const decided = policyEvaluation(org, first.id);
      const body = (n: number) => JSON.stringify({ organizationId: org, n });
      await tx((t) => t.auditLog.append(org, body(1), 1000));
      await tx((t) => t.activities.insertDecided(first, decided, { body: body(2), now: 2000 }));
      expect(await tx((t) => t.activities.get(org, first.id))).toEqual(first);
      expect(await tx((t) => t.policyEvaluations.listByActivity(org, first.id))).toEqual([decided]);
      // The same fingerprint again: refused as insert refuses it, nothing of it written, and the
      // transaction goes on.
      const again = activity(org, { id: activityId(), fingerprint: first.fingerprint });
      const after = await tx(async (t) => {
        const refused = await conflict(
          t.activities.insertDecided(again, policyEvaluation(org, again.id), {
            body: body(3),
            now: 3000,
          }),
        );
        await t.auditLog.append(org, body(4), 4000);
        return refused;
      });
      expect(after).toBe('activity_fingerprint');
      expect(await tx((t) => t.activities.get(org, again.id))).toBeUndefined();
      expect(await tx((t) => t.policyEvaluations.listByActivity(org, again.id))).toEqual([]);
      const entries = await tx((t) => t.auditLog.list(org, 1, 10));
      expect(entries.map((e) => JSON.parse(e.body).n)).toEqual([1, 2, 4]);
      const head = (await tx((t) => t.auditLog.heads())).find((h) => h.organizationId === org);
      expect(verifyAuditChain(entries, head)).toBeUndefined();
      expect(entries[1]).toEqual({
        organizationId: org,
        seq: 2,
        body: body(2),
        hash: auditEntryHash(entries[0]!.hash, body(2)),
        createdAt: 2000,
      });
    },
  );

  check(
    "activities: updateDecided writes the activity's new state, its evaluation and its audit entry",
    async () => {
      const org = fresh('org');
      const waiting = activity(org, { status: 'ACTIVITY_STATUS_CONSENSUS_NEEDED' });
      const body = (n: number) => JSON.stringify({ organizationId: org, n });
      await tx(async (t) => {
        await t.activities.insert(waiting);
        await t.auditLog.append(org, body(1), 1000);
      });
      const approved: ActivityRecord = {
        ...waiting,
        status: 'ACTIVITY_STATUS_COMPLETED',
        votes: [
          vote(waiting.id, {
            message: '{"type":"ACTIVITY_TYPE_APPROVE_ACTIVITY"}',
            createdAt: 2000,
          }),
        ],
        updatedAt: 2000,
      };
      const decided = policyEvaluation(org, waiting.id, { createdAt: 2000 });
      await tx((t) => t.activities.updateDecided(approved, decided, { body: body(2), now: 2000 }));
      expect(await tx((t) => t.activities.get(org, waiting.id))).toEqual(approved);
      expect(await tx((t) => t.policyEvaluations.listByActivity(org, waiting.id))).toEqual([
        decided,
      ]);
      const entries = await tx((t) => t.auditLog.list(org, 1, 10));
      expect(entries.map((e) => JSON.parse(e.body).n)).toEqual([1, 2]);
      const head = (await tx((t) => t.auditLog.heads())).find((h) => h.organizationId === org);
      expect(verifyAuditChain(entries, head)).toBeUndefined();
      // After another write, it is undone with its transaction: nothing of either stays. (With
      // nothing written before it, a store may commit with it, as with insertDecided.)
      const rejected: ActivityRecord = { ...approved, status: 'ACTIVITY_STATUS_REJECTED' };
      await expect(
        tx(async (t) => {
          await t.auditLog.append(org, body(3), 3000);
          await t.activities.updateDecided(rejected, policyEvaluation(org, waiting.id), {
            body: body(4),
            now: 3001,
          });
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      expect(await tx((t) => t.activities.get(org, waiting.id))).toEqual(approved);
      expect((await tx((t) => t.policyEvaluations.listByActivity(org, waiting.id))).length).toBe(1);
      expect((await tx((t) => t.auditLog.list(org, 1, 10))).length).toBe(2);
    },
  );

  check('payments: get, list, by authorization, by status, both conflicts', async () => {
    const org = fresh('org');
    const payment = (paymentId: string, status: PaymentRecord['status']): PaymentRecord => ({
      organizationId: org,
      paymentId,
      network: 'base-sepolia',
      x402Version: 2,
      status,
      source: 'settle',
      payer: '0x1111111111111111111111111111111111111111',
      payTo: '0x2222222222222222222222222222222222222222',
      asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
      amount: '10000',
      authorizationKey: fresh('84532:auth'),
      payloadHash: 'sha256:00',
      validBefore: 1_900_000_000,
      createdAt: 1_000,
      updatedAt: 1_000,
    });
    const verified = payment(fresh('pay'), 'verified');
    const unknown = payment(fresh('pay'), 'unknown');
    await tx(async (t) => {
      await t.payments.insert(verified);
      await t.payments.insert(unknown);
    });
    expect(await tx((t) => t.payments.get(org, verified.paymentId))).toEqual(verified);
    expect(await tx((t) => t.payments.list(org))).toEqual([verified, unknown]);
    expect(await tx((t) => t.payments.findByAuthorization(unknown.authorizationKey))).toEqual(
      unknown,
    );
    expect(await tx((t) => t.payments.findByAuthorization(fresh('none')))).toBeUndefined();
    const mine = (rows: PaymentRecord[]) => rows.filter((r) => r.organizationId === org);
    expect(mine(await tx((t) => t.payments.listByStatus('unknown')))).toEqual([unknown]);
    expect(
      await conflict(tx((t) => t.payments.insert({ ...verified, authorizationKey: fresh('k') }))),
    ).toBe('payment_pkey');
    expect(
      await conflict(
        tx((t) =>
          t.payments.insert({
            ...payment(fresh('pay'), 'verified'),
            authorizationKey: verified.authorizationKey,
          }),
        ),
      ),
    ).toBe('payment_authorization');
    const settled: PaymentRecord = {
      ...unknown,
      status: 'settled',
      transaction: `0x${'ab'.repeat(32)}`,
      rawTransaction: '0x02f8',
      updatedAt: 2_000,
    };
    await tx((t) => t.payments.update(settled));
    expect(await tx((t) => t.payments.getForUpdate(org, unknown.paymentId))).toEqual(settled);
    expect(mine(await tx((t) => t.payments.listByStatus('unknown')))).toEqual([]);
  });

  check(
    'oauth providers: get, list by createdAt, one identity per organization, delete; deleting an organization removes them',
    async () => {
      const org = organization();
      await tx((t) => t.organizations.insert(org));
      const o = org.organizationId;
      const [u1, u2] = [fresh('user'), fresh('user')];
      const p1 = oauthProvider(o, u1, { createdAt: 20 });
      const p2 = oauthProvider(o, u2, { createdAt: 10 });
      await tx(async (t) => {
        await t.oauthProviders.insert(p1);
        await t.oauthProviders.insert(p2);
      });
      expect(await tx((t) => t.oauthProviders.get(o, p1.providerId))).toEqual(p1);
      expect(await tx((t) => t.oauthProviders.getForUpdate(o, p2.providerId))).toEqual(p2);
      expect(await tx((t) => t.oauthProviders.get(o, fresh('missing')))).toBeUndefined();
      expect(await tx((t) => t.oauthProviders.list(o))).toEqual([p2, p1]);
      expect(await conflict(tx((t) => t.oauthProviders.insert({ ...p1 })))).toBe(
        'oauth_provider_pkey',
      );
      // The same issuer, audience and subject, for another user: refused.
      const { issuer, audience, subject } = p1;
      expect(
        await tx((t) => t.oauthProviders.findByIdentity(o, issuer, audience, subject)),
      ).toEqual(p1);
      expect(
        await tx((t) => t.oauthProviders.findByIdentity(o, issuer, fresh('client'), subject)),
      ).toBeUndefined();
      expect(
        await tx((t) =>
          t.oauthProviders.findByIdentity(o, issuer, audience, subject.toUpperCase()),
        ),
      ).toBeUndefined();
      expect(
        await conflict(
          tx((t) => t.oauthProviders.insert(oauthProvider(o, u2, { issuer, audience, subject }))),
        ),
      ).toBe('oauth_provider_identity');
      // Another organization may hold the same identity; another audience is another identity.
      const other = organization();
      await tx((t) => t.organizations.insert(other));
      await tx((t) =>
        t.oauthProviders.insert(
          oauthProvider(other.organizationId, u1, { issuer, audience, subject }),
        ),
      );
      await tx((t) =>
        t.oauthProviders.insert(
          oauthProvider(o, u1, { issuer, audience: fresh('client'), subject }),
        ),
      );
      await tx((t) => t.oauthProviders.delete(o, p1.providerId));
      expect(await tx((t) => t.oauthProviders.get(o, p1.providerId))).toBeUndefined();
      // Deleting frees the identity.
      await tx((t) => t.oauthProviders.insert(oauthProvider(o, u2, { issuer, audience, subject })));
      await tx((t) => t.organizations.delete(o));
      expect(await tx((t) => t.oauthProviders.list(o))).toEqual([]);
      expect((await tx((t) => t.oauthProviders.list(other.organizationId))).length).toBe(1);
    },
  );
  return checks;
}

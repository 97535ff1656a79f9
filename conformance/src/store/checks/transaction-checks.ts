/**
 * Store contract, copies and transactions: records go in and come out as copies; a
 * transaction that throws leaves nothing behind; a conflict caught inside a transaction does
 * not spoil it; a savepoint that throws undoes only its own writes; a transaction returns its
 * work's value and later ones see what it committed.
 * @module
 */
import type { StoreConflictError } from '@keyhold/activities';
import { type CheckList, checkList } from '../check-list.js';
import { expect } from '../expectation.js';
import {
  account,
  activity,
  apiKey,
  fresh,
  organization,
  policy,
  policyEvaluation,
  privateKey,
  tag,
  user,
  wallet,
} from '../records.js';
import type { StoreCheck } from '../store-check.js';
import type { StoreContractOptions } from '../store-contract-options.js';

/**
 * The checks of copies and transactions.
 * @example
 * for (const check of transactionChecks({ store })) it(check.name, check.run);
 */
export function transactionChecks(options: StoreContractOptions): StoreCheck[] {
  const { checks, check, tx }: CheckList = checkList(options);

  check('returns copies: mutating what went in or came out changes nothing stored', async () => {
    const org = fresh('org');
    const u = user(org, { userTags: ['a'] });
    const p = privateKey(org);
    const a = activity(org, { parameters: { deep: { value: 1 } } });
    const snapshot = structuredClone({ u, p, a });
    await tx(async (t) => {
      await t.users.insert(u);
      await t.privateKeys.insert(p);
      await t.activities.insert(a);
    });
    u.userTags.push('mutated');
    p.addresses[0]!.address = 'mutated';
    (a.parameters.deep as { value: number }).value = 2;
    const first = await tx(async (t) => ({
      u: (await t.users.get(org, u.userId))!,
      p: (await t.privateKeys.get(org, p.privateKeyId))!,
      a: (await t.activities.get(org, a.id))!,
    }));
    expect(first).toEqual(snapshot);
    first.u.userTags.push('x');
    first.p.addresses.pop();
    (first.a.parameters.deep as { value: number }).value = 3;
    const second = await tx(async (t) => ({
      u: await t.users.get(org, u.userId),
      p: await t.privateKeys.get(org, p.privateKeyId),
      a: await t.activities.get(org, a.id),
    }));
    expect(second).toEqual(snapshot);
    const lists = await tx(async (t) => [await t.users.list(org), await t.users.list(org)]);
    expect(lists[0]).not.toBe(lists[1]);
    expect(lists[0]![0]).not.toBe(lists[1]![0]);
  });

  check('a transaction that throws leaves nothing behind', async () => {
    const org = organization();
    const o = org.organizationId;
    const u = user(o);
    const k = apiKey(o, u.userId);
    const w = wallet(o);
    const acc = account(o, w.walletId);
    const p = privateKey(o);
    const act = activity(o);
    const existing = user(o, { userName: 'before' });
    const pol = policy(o);
    const userTag = tag(o);
    const keyTag = tag(o);
    const evaluation = policyEvaluation(o, act.id);
    const existingPolicy = policy(o, { policyName: 'before' });
    await tx(async (t) => {
      await t.users.insert(existing);
      await t.policies.insert(existingPolicy);
    });
    const boom = new Error('boom');
    await expect(
      tx(async (t) => {
        await t.organizations.insert(org);
        await t.users.insert(u);
        await t.apiKeys.insert(k);
        await t.wallets.insert(w);
        await t.walletAccounts.insert(acc);
        await t.privateKeys.insert(p);
        await t.activities.insert(act);
        await t.policies.insert(pol);
        await t.userTags.insert(userTag);
        await t.privateKeyTags.insert(keyTag);
        await t.policyEvaluations.insert(evaluation);
        await t.policies.update({ ...existingPolicy, policyName: 'after' });
        await t.users.update({ ...existing, userName: 'after' });
        await t.users.delete(o, existing.userId);
        // Reads inside the transaction see its own writes.
        expect(await t.activities.findByFingerprint(act.fingerprint)).toEqual(act);
        throw boom;
      }),
    ).rejects.toBe(boom);
    const after = await tx(async (t) => ({
      org: await t.organizations.get(o),
      users: await t.users.list(o),
      keys: await t.apiKeys.listByOrganization(o),
      key: await t.apiKeys.findByPublicKey(o, k.publicKey),
      wallets: await t.wallets.list(o),
      accounts: await t.walletAccounts.list(o),
      account: await t.walletAccounts.findByAddress(o, acc.address),
      path: await t.walletAccounts.findByPath(o, w.walletId, acc.path),
      privateKeys: await t.privateKeys.list(o),
      byAddress: await t.privateKeys.findByAddress(o, p.addresses[0]!.address),
      activity: await t.activities.get(o, act.id),
      activities: await t.activities.list(o, {}, { limit: 10 }),
      fingerprint: await t.activities.findByFingerprint(act.fingerprint),
      policies: await t.policies.list(o),
      policyByName: await t.policies.findByName(o, 'after'),
      userTags: await t.userTags.list(o),
      privateKeyTags: await t.privateKeyTags.list(o),
      evaluations: await t.policyEvaluations.listByActivity(o, act.id),
    }));
    expect(after).toEqual({
      org: undefined,
      users: [existing],
      keys: [],
      key: undefined,
      wallets: [],
      accounts: [],
      account: undefined,
      path: undefined,
      privateKeys: [],
      byAddress: undefined,
      activity: undefined,
      activities: [],
      fingerprint: undefined,
      policies: [existingPolicy],
      policyByName: undefined,
      userTags: [],
      privateKeyTags: [],
      evaluations: [],
    });
    // And everything can be written again.
    await tx(async (t) => {
      await t.organizations.insert(org);
      await t.activities.insert(act);
      await t.walletAccounts.insert(acc);
    });
  });

  check('a conflict caught inside a transaction does not spoil it', async () => {
    const o = fresh('org');
    const first = activity(o);
    await tx((t) => t.activities.insert(first));
    const second = activity(o);
    const result = await tx(async (t) => {
      const duplicate = activity(o, { fingerprint: first.fingerprint });
      const constraint = await t.activities.insert(duplicate).then(
        () => 'none',
        (e: StoreConflictError) => e.constraint,
      );
      await t.activities.insert(second);
      return constraint;
    });
    expect(result).toBe('activity_fingerprint');
    expect(await tx((t) => t.activities.get(o, second.id))).toEqual(second);
  });

  check('a savepoint that throws undoes its writes; the transaction goes on', async () => {
    const o = fresh('org');
    const kept = activity(o);
    const undone = wallet(o);
    const undoneToo = activity(o);
    const after = wallet(o);
    const failure = new Error('the handler failed');
    const outcome = await tx(async (t) => {
      await t.activities.insert(kept);
      const thrown = await t
        .savepoint(async () => {
          await t.wallets.insert(undone);
          await t.activities.insert(undoneToo);
          // A conflict inside the savepoint, as a handler's duplicate name would raise.
          await t.activities.insert(activity(o, { fingerprint: kept.fingerprint })).catch(() => {});
          throw failure;
        })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      // What the savepoint read stays readable; what it wrote is gone, inside the transaction.
      expect(await t.wallets.get(o, undone.walletId)).toBeUndefined();
      expect(await t.activities.get(o, undoneToo.id)).toBeUndefined();
      await t.wallets.insert(after);
      return thrown;
    });
    expect(outcome).toBe(failure);
    expect(await tx((t) => t.activities.get(o, kept.id))).toEqual(kept);
    expect(await tx((t) => t.wallets.get(o, after.walletId))).toEqual(after);
    expect(await tx((t) => t.wallets.get(o, undone.walletId))).toBeUndefined();
    expect(await tx((t) => t.activities.get(o, undoneToo.id))).toBeUndefined();
  });

  check('a savepoint that succeeds keeps its writes; savepoints nest', async () => {
    const o = fresh('org');
    const outer = wallet(o);
    const inner = wallet(o);
    const value = await tx(async (t) =>
      t.savepoint(async () => {
        await t.wallets.insert(outer);
        await t
          .savepoint(async () => {
            await t.wallets.insert(inner);
            throw new Error('inner fails');
          })
          .catch(() => {});
        return 'outer kept';
      }),
    );
    expect(value).toBe('outer kept');
    expect(await tx((t) => t.wallets.get(o, outer.walletId))).toEqual(outer);
    expect(await tx((t) => t.wallets.get(o, inner.walletId))).toBeUndefined();
  });

  check('returns the value of the work; a later transaction sees committed writes', async () => {
    const w = wallet(fresh('org'));
    expect(
      await tx(async (t) => {
        await t.wallets.insert(w);
        return 'done';
      }),
    ).toBe('done');
    expect(await tx((t) => t.wallets.get(w.organizationId, w.walletId))).toEqual(w);
  });
  return checks;
}

/**
 * Store contract, webhook endpoints and the outbox: the endpoint repository, deliveries
 * enqueued in transactions, and the Outbox port every store also implements — claims in
 * order, leases, marks, reschedules, failure counting and disabling an endpoint.
 * @module
 */
import { type CheckList, checkList } from '../check-list.js';
import { conflict } from '../conflict.js';
import { expect } from '../expectation.js';
import {
  account,
  activity,
  apiKey,
  fresh,
  organization,
  policy,
  privateKey,
  tag,
  user,
  wallet,
  webhookDelivery,
  webhookEndpoint,
} from '../records.js';
import type { StoreCheck } from '../store-check.js';
import type { StoreContractOptions } from '../store-contract-options.js';

/**
 * The checks of webhook endpoints and of the Outbox port.
 * @example
 * for (const check of outboxChecks({ store })) it(check.name, check.run);
 */
export function outboxChecks(options: StoreContractOptions): StoreCheck[] {
  const { checks, check, store, tx }: CheckList = checkList(options);

  /** A time far beyond every test's: claims everything still pending, once. */
  const END = 2 ** 50;
  /** Finishes every pending delivery left by earlier tests, so each test starts clean. */
  async function drain(): Promise<void> {
    for (const d of await store().claimDue(END, 100_000, 1)) {
      await store().markDelivered(d.deliveryId, d.attempts, END);
    }
  }
  const ids = (list: readonly { deliveryId: string }[]) => list.map((d) => d.deliveryId);

  check(
    'webhook endpoints: get, getForUpdate, list by createdAt then insertion, update, delete, conflict',
    async () => {
      const org = fresh('org');
      const other = fresh('org');
      const late = webhookEndpoint(org, { createdAt: 30 });
      const earlyA = webhookEndpoint(org, {
        createdAt: 10,
        subscriptions: [
          { eventType: 'ACTIVITY_UPDATES', filtersJson: '{"status":["x"]}', isActive: false },
          { eventType: 'ACTIVITY_UPDATES', isActive: true },
        ],
      });
      const earlyB = webhookEndpoint(org, { createdAt: 10, subscriptions: [], isActive: false });
      const elsewhere = webhookEndpoint(other, { endpointId: late.endpointId });
      await tx(async (t) => {
        for (const e of [late, earlyA, earlyB, elsewhere]) await t.webhookEndpoints.insert(e);
      });
      expect(await tx((t) => t.webhookEndpoints.list(org))).toEqual([earlyA, earlyB, late]);
      expect(await tx((t) => t.webhookEndpoints.list(other))).toEqual([elsewhere]);
      const got = await tx((t) => t.webhookEndpoints.get(org, earlyA.endpointId));
      expect(got).toEqual(earlyA);
      expect(got?.subscriptions[1]).not.toHaveProperty('filtersJson');
      expect(await tx((t) => t.webhookEndpoints.get(other, earlyA.endpointId))).toBeUndefined();
      expect(await tx((t) => t.webhookEndpoints.getForUpdate(org, earlyA.endpointId))).toEqual(
        earlyA,
      );
      expect(
        await tx((t) => t.webhookEndpoints.getForUpdate(other, earlyA.endpointId)),
      ).toBeUndefined();
      expect(
        await conflict(tx((t) => t.webhookEndpoints.insert({ ...earlyA, name: 'again' }))),
      ).toBe('webhook_endpoint_pkey');

      const updated = {
        ...earlyA,
        url: 'https://other.example.com/',
        name: 'renamed',
        updatedAt: 99,
      };
      await tx((t) => t.webhookEndpoints.update(updated));
      expect(await tx((t) => t.webhookEndpoints.list(org))).toEqual([updated, earlyB, late]);

      await tx((t) => t.webhookEndpoints.delete(org, earlyB.endpointId));
      await tx((t) => t.webhookEndpoints.delete(org, fresh('missing')));
      expect(await tx((t) => t.webhookEndpoints.list(org))).toEqual([updated, late]);
      expect(await tx((t) => t.webhookEndpoints.list(other))).toEqual([elsewhere]);
    },
  );

  check(
    'organizations: listChildren by createdAt then id; delete removes everything in one organization only',
    async () => {
      await drain();
      const parent = organization();
      const [late, tiedA, tiedB] = [
        organization({ parentOrganizationId: parent.organizationId, createdAt: 30 }),
        organization({ parentOrganizationId: parent.organizationId, createdAt: 10 }),
        organization({ parentOrganizationId: parent.organizationId, createdAt: 10 }),
      ];
      const keep = organization({ parentOrganizationId: parent.organizationId, createdAt: 20 });
      const tied = [tiedA, tiedB].sort((a, b) => (a.organizationId < b.organizationId ? -1 : 1));
      const all = [parent, late, tiedA, tiedB, keep];
      const sub = late.organizationId;
      const u = user(sub);
      const w = wallet(sub);
      const endpoint = webhookEndpoint(sub);
      const pending = webhookDelivery(sub, endpoint.endpointId);
      const act = activity(sub);
      // The same ids in another organization stay.
      const ku = user(keep.organizationId, { userId: u.userId });
      const kk = apiKey(keep.organizationId, u.userId);
      await tx(async (t) => {
        for (const o of all) await t.organizations.insert(o);
        await t.users.insert(u);
        await t.apiKeys.insert(apiKey(sub, u.userId, { publicKey: kk.publicKey }));
        await t.wallets.insert(w);
        await t.walletAccounts.insert(account(sub, w.walletId));
        await t.privateKeys.insert(privateKey(sub));
        await t.policies.insert(policy(sub));
        await t.userTags.insert(tag(sub));
        await t.privateKeyTags.insert(tag(sub));
        await t.webhookEndpoints.insert(endpoint);
        await t.webhookDeliveries.insert(pending);
        await t.activities.insert(act);
        await t.users.insert(ku);
        await t.apiKeys.insert(kk);
      });
      expect(await tx((t) => t.organizations.listChildren(parent.organizationId))).toEqual([
        ...tied,
        keep,
        late,
      ]);
      expect(await tx((t) => t.organizations.listChildren(sub))).toEqual([]);

      const contents = (org: string) =>
        tx(async (t) => ({
          organization: await t.organizations.get(org),
          users: await t.users.list(org),
          apiKeys: await t.apiKeys.listByOrganization(org),
          byPublicKey: await t.apiKeys.findByPublicKey(org, kk.publicKey),
          wallets: await t.wallets.list(org),
          accounts: await t.walletAccounts.list(org),
          privateKeys: await t.privateKeys.list(org),
          policies: await t.policies.list(org),
          userTags: await t.userTags.list(org),
          privateKeyTags: await t.privateKeyTags.list(org),
          endpoints: await t.webhookEndpoints.list(org),
        }));
      const before = await contents(sub);
      const kept = await contents(keep.organizationId);
      // A rolled-back delete changes nothing.
      await expect(
        tx(async (t) => {
          await t.organizations.delete(sub);
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      expect(await contents(sub)).toEqual(before);

      await tx((t) => t.organizations.delete(sub));
      expect(await contents(sub)).toEqual({
        organization: undefined,
        users: [],
        apiKeys: [],
        byPublicKey: undefined,
        wallets: [],
        accounts: [],
        privateKeys: [],
        policies: [],
        userTags: [],
        privateKeyTags: [],
        endpoints: [],
      });
      expect(await contents(keep.organizationId)).toEqual(kept);
      // Its pending delivery is gone; its activity stays (the audit trail).
      expect(await store().claimDue(2 ** 50, 100_000, 1)).toEqual([]);
      expect(await tx((t) => t.activities.get(sub, act.id))).toEqual(act);
      expect(
        (await tx((t) => t.organizations.listChildren(parent.organizationId))).map(
          (o) => o.organizationId,
        ),
      ).toEqual([...tied, keep].map((o) => o.organizationId));
      // Deleting an absent organization is a no-op.
      await tx((t) => t.organizations.delete(sub));
    },
  );

  check(
    'outbox: claimDue returns due deliveries oldest first, up to the limit; not-yet-due ones wait',
    async () => {
      await drain();
      const org = fresh('org');
      const endpoint = fresh('endpoint');
      const T = 5_000_000;
      const second = webhookDelivery(org, endpoint, { createdAt: T + 2, nextAttemptAt: T + 2 });
      const firstA = webhookDelivery(org, endpoint, { createdAt: T + 1, nextAttemptAt: T + 1 });
      const firstB = webhookDelivery(org, endpoint, { createdAt: T + 1, nextAttemptAt: T });
      const later = webhookDelivery(org, endpoint, { createdAt: T, nextAttemptAt: T + 500 });
      await tx(async (t) => {
        for (const d of [second, firstA, firstB, later]) await t.webhookDeliveries.insert(d);
      });
      expect(await store().claimDue(T - 1, 10, 1000)).toEqual([]);
      const two = await store().claimDue(T + 10, 2, 1000);
      expect(two).toEqual([firstA, firstB]);
      expect(await store().claimDue(T + 10, 10, 1000)).toEqual([second]);
      // Everything due is leased now; `later` is not due yet.
      expect(await store().claimDue(T + 20, 10, 1000)).toEqual([]);
      expect(ids(await store().claimDue(T + 500, 10, 1000))).toEqual([later.deliveryId]);
      expect(
        await conflict(tx((t) => t.webhookDeliveries.insert({ ...second, eventId: 'x' }))),
      ).toBe('webhook_delivery_pkey');
    },
  );

  check(
    'outbox: a lease hides a delivery until it runs out; then it is claimed again',
    async () => {
      await drain();
      const org = fresh('org');
      const T = 6_000_000;
      const d = webhookDelivery(org, fresh('endpoint'), { createdAt: T, nextAttemptAt: T });
      await tx((t) => t.webhookDeliveries.insert(d));
      expect(await store().claimDue(T, 10, 1000)).toEqual([d]);
      expect(await store().claimDue(T + 999, 10, 1000)).toEqual([]);
      expect(await store().claimDue(T + 1000, 10, 50)).toEqual([d]);
      expect(await store().claimDue(T + 1049, 10, 50)).toEqual([]);
      expect(await store().claimDue(T + 1050, 10, 50)).toEqual([d]);
    },
  );

  check('outbox: reschedule, markDelivered, markFailed', async () => {
    await drain();
    const org = fresh('org');
    const endpoint = fresh('endpoint');
    const T = 7_000_000;
    const retried = webhookDelivery(org, endpoint, { createdAt: T, nextAttemptAt: T });
    const delivered = webhookDelivery(org, endpoint, { createdAt: T + 1, nextAttemptAt: T });
    const failed = webhookDelivery(org, endpoint, { createdAt: T + 2, nextAttemptAt: T });
    await tx(async (t) => {
      for (const d of [retried, delivered, failed]) await t.webhookDeliveries.insert(d);
    });
    expect(ids(await store().claimDue(T, 10, 60_000))).toEqual(ids([retried, delivered, failed]));
    // The queue depth, where the store counts it: leased deliveries are still pending.
    const pending = () => store().countPending?.() ?? Promise.resolve(undefined);
    const before = await pending();

    // Rescheduling releases the lease: due again at nextAttemptAt, with the attempts made.
    await store().reschedule(retried.deliveryId, 1, T + 100, 'HTTP 503');
    await store().markDelivered(delivered.deliveryId, 1, T + 5);
    await store().markFailed(failed.deliveryId, 1, T + 5, 'HTTP 410');
    if (before !== undefined) expect(await pending()).toBe(before - 2);
    expect(await store().claimDue(T + 99, 10, 60_000)).toEqual([]);
    expect(await store().claimDue(T + 100, 10, 60_000)).toEqual([
      { ...retried, attempts: 1, nextAttemptAt: T + 100 },
    ]);
    await store().markDelivered(retried.deliveryId, 2, T + 101);
    // Finished deliveries are never claimed again, however late.
    expect(await store().claimDue(END, 10, 1)).toEqual([]);
    // Marking an unknown delivery changes nothing.
    await store().markDelivered(fresh('delivery'), 1, T);
    await store().reschedule(fresh('delivery'), 1, T, 'x');
    await store().markFailed(fresh('delivery'), 1, T, 'x');
  });

  check(
    'outbox: endpoint health — failures count per endpoint, a delivery resets them, disabling turns the endpoint off once and fails its pending deliveries',
    async () => {
      await drain();
      const org = fresh('org');
      const other = fresh('org');
      const T = 9_000_000;
      const failing = webhookEndpoint(org, { createdAt: 1 });
      const healthy = webhookEndpoint(org, { createdAt: 2 });
      const namesake = webhookEndpoint(other, { endpointId: failing.endpointId });
      const d = (o: string, e: string, n: number) =>
        webhookDelivery(o, e, { createdAt: T + n, nextAttemptAt: T });
      const leased = d(org, failing.endpointId, 0);
      const pending = d(org, failing.endpointId, 1);
      const toHealthy = d(org, healthy.endpointId, 2);
      const toNamesake = d(other, namesake.endpointId, 3);
      await tx(async (t) => {
        for (const e of [failing, healthy, namesake]) await t.webhookEndpoints.insert(e);
        for (const x of [leased, pending, toHealthy, toNamesake]) {
          await t.webhookDeliveries.insert(x);
        }
      });
      expect(ids(await store().claimDue(T, 1, 60_000))).toEqual([leased.deliveryId]);

      expect(await store().endpointFailed(org, failing.endpointId)).toBe(1);
      expect(await store().endpointFailed(org, failing.endpointId)).toBe(2);
      expect(await store().endpointFailed(other, namesake.endpointId)).toBe(1); // its own count
      expect(await store().endpointFailed(org, fresh('missing'))).toBe(0);
      await store().endpointDelivered(org, failing.endpointId);
      await store().endpointDelivered(org, fresh('missing'));
      expect(await store().endpointFailed(org, failing.endpointId)).toBe(1);
      expect(await store().endpointFailed(org, failing.endpointId)).toBe(2);

      expect(
        await store().disableEndpoint(org, failing.endpointId, 'answered HTTP 410', T + 5),
      ).toBe(true);
      expect(await store().disableEndpoint(org, failing.endpointId, 'again', T + 6)).toBe(false);
      expect(await store().disableEndpoint(org, fresh('missing'), 'x', T)).toBe(false);
      const disabled = {
        ...failing,
        isActive: false,
        disabledReason: 'answered HTTP 410',
        updatedAt: T + 5,
      };
      expect(await tx((t) => t.webhookEndpoints.get(org, failing.endpointId))).toEqual(disabled);
      expect(await tx((t) => t.webhookEndpoints.get(other, namesake.endpointId))).toEqual(namesake);
      // Its deliveries ended, the leased one too: a retry recorded late does not revive it.
      await store().reschedule(leased.deliveryId, 1, T, 'HTTP 503');
      expect(ids(await store().claimDue(END, 100, 60_000))).toEqual(ids([toHealthy, toNamesake]));
      // Disabling started the count afresh.
      expect(await store().endpointFailed(org, failing.endpointId)).toBe(1);

      // Made active again by an update (the activity writes the record without the reason).
      const enabled = { ...failing, updatedAt: T + 7 };
      await tx((t) => t.webhookEndpoints.update(enabled));
      const back = await tx((t) => t.webhookEndpoints.get(org, failing.endpointId));
      expect(back).toEqual(enabled);
      expect(back).not.toHaveProperty('disabledReason');
      // An update keeps the count it does not know about.
      expect(await store().endpointFailed(org, failing.endpointId)).toBe(2);

      // An endpoint its owner paused is left as it is, deliveries and all.
      const paused = { ...healthy, isActive: false, updatedAt: T + 8 };
      const queued = d(org, healthy.endpointId, 4);
      await tx(async (t) => {
        await t.webhookEndpoints.update(paused);
        await t.webhookDeliveries.insert(queued);
      });
      expect(await store().disableEndpoint(org, healthy.endpointId, 'x', T + 9)).toBe(false);
      expect(await tx((t) => t.webhookEndpoints.get(org, healthy.endpointId))).toEqual(paused);
      expect(ids(await store().claimDue(END, 100, 60_000))).toEqual([queued.deliveryId]);

      // A stored reason round-trips; a deleted endpoint has no count.
      await tx((t) => t.webhookEndpoints.update(disabled));
      expect(await tx((t) => t.webhookEndpoints.list(org))).toEqual([disabled, paused]);
      await tx((t) => t.webhookEndpoints.delete(org, failing.endpointId));
      expect(await store().endpointFailed(org, failing.endpointId)).toBe(0);
      expect(await store().disableEndpoint(org, failing.endpointId, 'x', T)).toBe(false);
    },
  );

  check(
    'outbox: deletePending removes the pending deliveries of one endpoint only; rollback keeps none',
    async () => {
      await drain();
      const org = fresh('org');
      const gone = fresh('endpoint');
      const kept = fresh('endpoint');
      const T = 8_000_000;
      const pending = webhookDelivery(org, gone, { createdAt: T, nextAttemptAt: T });
      const leased = webhookDelivery(org, gone, { createdAt: T + 1, nextAttemptAt: T });
      const otherEndpoint = webhookDelivery(org, kept, { createdAt: T + 2, nextAttemptAt: T });
      const otherOrg = webhookDelivery(fresh('org'), gone, { createdAt: T + 3, nextAttemptAt: T });
      await tx(async (t) => {
        for (const d of [pending, leased, otherEndpoint, otherOrg]) {
          await t.webhookDeliveries.insert(d);
        }
      });
      expect(ids(await store().claimDue(T, 1, 60_000))).toEqual([pending.deliveryId]);
      await store().reschedule(pending.deliveryId, 1, T, 'HTTP 500');
      expect(ids(await store().claimDue(T, 1, 60_000))).toEqual([pending.deliveryId]);
      await store().markDelivered(pending.deliveryId, 2, T);

      await tx((t) => t.webhookDeliveries.deletePending(org, gone));
      const left = await store().claimDue(T, 10, 60_000);
      expect(ids(left)).toEqual(ids([otherEndpoint, otherOrg]));
      for (const d of left) await store().markDelivered(d.deliveryId, 1, T);

      // Deliveries of a transaction that throws never become claimable.
      const rolledBack = webhookDelivery(org, kept, { createdAt: T + 4, nextAttemptAt: T });
      await expect(
        tx(async (t) => {
          await t.webhookDeliveries.insert(rolledBack);
          throw new Error('rollback');
        }),
      ).rejects.toThrow('rollback');
      expect(await store().claimDue(END, 10, 1)).toEqual([]);
    },
  );
  return checks;
}

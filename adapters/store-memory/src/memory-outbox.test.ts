/**
 * The memory store's outbox keeps its PENDING deliveries apart from every delivery ever made,
 * so claims and counts read the backlog only. This model test checks that the backlog stays
 * exactly the PENDING deliveries through enqueues and endpoint clean-ups (committed or rolled
 * back), claims, retries, deliveries, failures and disabled endpoints.
 */
import { webhookEndpoint } from '@keyhold/conformance/store';
import type { WebhookDelivery } from '@keyhold/webhooks';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryStore } from './memory-store.js';

const ORGS = ['o1', 'o2'] as const;
const ENDPOINTS = ['e1', 'e2'] as const;

const target = { org: fc.constantFrom(...ORGS), endpoint: fc.constantFrom(...ENDPOINTS) };
const operation = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant('enqueue' as const),
      ...target,
      createdAt: fc.integer({ min: 0, max: 3 }),
      nextAttemptAt: fc.integer({ min: 0, max: 5 }),
      commit: fc.boolean(),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('claim' as const),
      now: fc.integer({ min: 0, max: 8 }),
      limit: fc.integer({ min: 1, max: 4 }),
      lease: fc.integer({ min: 1, max: 3 }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constantFrom('deliver' as const, 'reschedule' as const, 'fail' as const),
      pick: fc.nat(),
      at: fc.integer({ min: 0, max: 8 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('deletePending' as const),
      ...target,
      commit: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('disable' as const), ...target }) },
);

/** What the store must behave like: every delivery with its state, in insertion order. */
interface ModelRow {
  delivery: WebhookDelivery;
  status: 'PENDING' | 'DELIVERED' | 'FAILED';
  leaseUntil?: number;
}

describe('MemoryStore outbox backlog', () => {
  it('claims and counts what a walk of every delivery would, through commits and rollbacks', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { maxLength: 30 }), async (operations) => {
        const store = new MemoryStore();
        const endpoints = ORGS.flatMap((org) =>
          ENDPOINTS.map((endpointId) => webhookEndpoint(org, { endpointId })),
        );
        await store.transaction(async (tx) => {
          for (const e of endpoints) await tx.webhookEndpoints.insert(e);
        });
        const active = new Set(endpoints.map((e) => `${e.organizationId}/${e.endpointId}`));
        const model: ModelRow[] = [];
        let n = 0;
        const rollback = new Error('roll back');
        const inTransaction = async (
          commit: boolean,
          work: Parameters<MemoryStore['transaction']>[0],
        ) => {
          try {
            await store.transaction(async (tx) => {
              await work(tx);
              if (!commit) throw rollback;
            });
          } catch (error) {
            if (error !== rollback) throw error;
          }
        };

        for (const o of operations) {
          if (o.op === 'enqueue') {
            const delivery: WebhookDelivery = {
              deliveryId: `d${++n}`,
              eventId: `ev${n}`,
              organizationId: o.org,
              endpointId: o.endpoint,
              url: 'https://hooks.example.com/keyhold',
              eventType: 'ACTIVITY_UPDATES',
              body: '{}',
              attempts: 0,
              nextAttemptAt: o.nextAttemptAt,
              createdAt: o.createdAt,
            };
            await inTransaction(o.commit, (tx) => tx.webhookDeliveries.insert(delivery));
            if (o.commit) model.push({ delivery, status: 'PENDING' });
          } else if (o.op === 'claim') {
            const due = model
              .filter(
                (r) =>
                  r.status === 'PENDING' &&
                  r.delivery.nextAttemptAt <= o.now &&
                  (r.leaseUntil === undefined || r.leaseUntil <= o.now),
              )
              .sort((a, b) => a.delivery.createdAt - b.delivery.createdAt) // stable: insertion order
              .slice(0, o.limit);
            for (const r of due) r.leaseUntil = o.now + o.lease;
            const claimed = await store.claimDue(o.now, o.limit, o.lease);
            expect(claimed).toEqual(due.map((r) => r.delivery));
          } else if (o.op === 'deletePending') {
            await inTransaction(o.commit, (tx) =>
              tx.webhookDeliveries.deletePending(o.org, o.endpoint),
            );
            if (o.commit) {
              for (let i = model.length - 1; i >= 0; i--) {
                const r = model[i]!;
                if (
                  r.status === 'PENDING' &&
                  r.delivery.organizationId === o.org &&
                  r.delivery.endpointId === o.endpoint
                ) {
                  model.splice(i, 1);
                }
              }
            }
          } else if (o.op === 'disable') {
            const key = `${o.org}/${o.endpoint}`;
            const disabled = await store.disableEndpoint(o.org, o.endpoint, 'too many failures', 1);
            expect(disabled).toBe(active.delete(key));
            if (disabled) {
              for (const r of model) {
                if (r.status !== 'PENDING' || r.delivery.organizationId !== o.org) continue;
                if (r.delivery.endpointId !== o.endpoint) continue;
                r.status = 'FAILED';
                delete r.leaseUntil;
              }
            }
          } else if (model.length > 0) {
            const r = model[o.pick % model.length]!;
            const id = r.delivery.deliveryId;
            const attempts = r.delivery.attempts + 1;
            if (o.op === 'deliver') await store.markDelivered(id, attempts, o.at);
            if (o.op === 'fail') await store.markFailed(id, attempts, o.at, 'HTTP 500');
            if (o.op === 'reschedule') await store.reschedule(id, attempts, o.at, 'HTTP 503');
            // A retry never brings back a delivery that has finished.
            if (o.op !== 'reschedule' || r.status === 'PENDING') {
              r.status = o.op === 'deliver' ? 'DELIVERED' : o.op === 'fail' ? 'FAILED' : 'PENDING';
              r.delivery = {
                ...r.delivery,
                attempts,
                nextAttemptAt: o.op === 'reschedule' ? o.at : r.delivery.nextAttemptAt,
              };
              delete r.leaseUntil;
            }
          }
          expect(await store.countPending()).toBe(
            model.filter((r) => r.status === 'PENDING').length,
          );
        }
        // Whatever is still pending is claimed, in order, once every lease has run out.
        const rest = model
          .filter((r) => r.status === 'PENDING')
          .sort((a, b) => a.delivery.createdAt - b.delivery.createdAt);
        expect(await store.claimDue(100, 1_000, 1)).toEqual(rest.map((r) => r.delivery));
      }),
      { numRuns: 300 },
    );
  });
});

/**
 * A test-only Outbox held in memory, with a journal of every call so tests can check what the
 * dispatcher did. Follows the port's contract: claims are leases, oldest first.
 * @module
 */
import type { Outbox, WebhookDelivery, WebhookDeliveryStatus } from '../ports/outbox.js';

/** One stored delivery and its bookkeeping. */
export interface StoredDelivery {
  delivery: WebhookDelivery;
  status: WebhookDeliveryStatus;
  leaseUntil: number;
  lastError?: string;
  finishedAt?: number;
}

/** One recorded Outbox mutation. */
export type OutboxCall =
  | { kind: 'delivered'; deliveryId: string; attempts: number; at: number }
  | {
      kind: 'rescheduled';
      deliveryId: string;
      attempts: number;
      nextAttemptAt: number;
      lastError: string;
    }
  | { kind: 'failed'; deliveryId: string; attempts: number; at: number; lastError: string };

/**
 * In-memory Outbox.
 * @example
 * const outbox = new InMemoryOutbox();
 * outbox.enqueue(makeDelivery({ deliveryId: 'd1' }));
 */
export class InMemoryOutbox implements Outbox {
  readonly rows = new Map<string, StoredDelivery>();
  readonly calls: OutboxCall[] = [];
  /** Set to make the next mutations throw (to test error reporting). */
  failWrites = false;

  enqueue(delivery: WebhookDelivery): void {
    this.rows.set(delivery.deliveryId, { delivery, status: 'PENDING', leaseUntil: 0 });
  }

  async claimDue(now: number, limit: number, leaseMs: number): Promise<WebhookDelivery[]> {
    const due = [...this.rows.values()]
      .filter(
        (r) => r.status === 'PENDING' && r.delivery.nextAttemptAt <= now && r.leaseUntil <= now,
      )
      .sort((a, b) => a.delivery.createdAt - b.delivery.createdAt)
      .slice(0, limit);
    for (const r of due) r.leaseUntil = now + leaseMs;
    return due.map((r) => r.delivery);
  }

  async markDelivered(deliveryId: string, attempts: number, at: number): Promise<void> {
    const row = this.#row(deliveryId);
    this.calls.push({ kind: 'delivered', deliveryId, attempts, at });
    row.status = 'DELIVERED';
    row.leaseUntil = 0;
    row.finishedAt = at;
    row.delivery = { ...row.delivery, attempts };
  }

  async reschedule(
    deliveryId: string,
    attempts: number,
    nextAttemptAt: number,
    lastError: string,
  ): Promise<void> {
    const row = this.#row(deliveryId);
    this.calls.push({ kind: 'rescheduled', deliveryId, attempts, nextAttemptAt, lastError });
    row.leaseUntil = 0;
    row.lastError = lastError;
    row.delivery = { ...row.delivery, attempts, nextAttemptAt };
  }

  async markFailed(
    deliveryId: string,
    attempts: number,
    at: number,
    lastError: string,
  ): Promise<void> {
    const row = this.#row(deliveryId);
    this.calls.push({ kind: 'failed', deliveryId, attempts, at, lastError });
    row.status = 'FAILED';
    row.leaseUntil = 0;
    row.lastError = lastError;
    row.finishedAt = at;
    row.delivery = { ...row.delivery, attempts };
  }

  #row(deliveryId: string): StoredDelivery {
    if (this.failWrites) throw new Error('outbox unavailable');
    const row = this.rows.get(deliveryId);
    if (!row) throw new Error(`no delivery ${deliveryId}`);
    if (row.status !== 'PENDING') throw new Error(`delivery ${deliveryId} already ${row.status}`);
    return row;
  }
}

/**
 * A delivery with test defaults.
 * @example
 * makeDelivery({ deliveryId: 'd1', attempts: 2 });
 */
export function makeDelivery(overrides: Partial<WebhookDelivery> = {}): WebhookDelivery {
  const deliveryId = overrides.deliveryId ?? 'dlv_1';
  return {
    deliveryId,
    eventId: `evt_${deliveryId}`,
    organizationId: 'org_1',
    endpointId: 'wh_1',
    url: `https://hooks.example.com/${deliveryId}`,
    eventType: 'ACTIVITY_UPDATES',
    body: JSON.stringify({ deliveryId, type: 'activity.completed' }),
    attempts: 0,
    nextAttemptAt: 0,
    createdAt: 0,
    ...overrides,
  };
}

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
  /** FAILED by `disableEndpoint` while a dispatcher may still hold it. */
  failedByDisable?: true;
}

/** One endpoint's health, as the Outbox keeps it. */
export interface EndpointHealth {
  consecutiveFailures: number;
  isActive: boolean;
  disabledReason?: string;
}

/** One recorded endpoint-health call. */
export type EndpointCall =
  | { kind: 'endpointDelivered'; endpointId: string }
  | { kind: 'endpointFailed'; endpointId: string; count: number }
  | { kind: 'disableEndpoint'; endpointId: string; reason: string; at: number };

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
  /** Every endpoint known is active until disabled (created on first mention). */
  readonly endpoints = new Map<string, EndpointHealth>();
  readonly endpointCalls: EndpointCall[] = [];
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
    if (row.status !== 'PENDING') return; // failed by disableEndpoint meanwhile: stays FAILED
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

  async endpointDelivered(organizationId: string, endpointId: string): Promise<void> {
    if (this.failWrites) throw new Error('outbox unavailable');
    this.endpointCalls.push({ kind: 'endpointDelivered', endpointId });
    this.#endpoint(organizationId, endpointId).consecutiveFailures = 0;
  }

  async endpointFailed(organizationId: string, endpointId: string): Promise<number> {
    if (this.failWrites) throw new Error('outbox unavailable');
    const endpoint = this.#endpoint(organizationId, endpointId);
    const count = ++endpoint.consecutiveFailures;
    this.endpointCalls.push({ kind: 'endpointFailed', endpointId, count });
    return count;
  }

  async disableEndpoint(
    organizationId: string,
    endpointId: string,
    reason: string,
    at: number,
  ): Promise<boolean> {
    if (this.failWrites) throw new Error('outbox unavailable');
    this.endpointCalls.push({ kind: 'disableEndpoint', endpointId, reason, at });
    const endpoint = this.#endpoint(organizationId, endpointId);
    if (!endpoint.isActive) return false;
    Object.assign(endpoint, { isActive: false, disabledReason: reason, consecutiveFailures: 0 });
    for (const row of this.rows.values()) {
      const d = row.delivery;
      if (row.status !== 'PENDING' || d.organizationId !== organizationId) continue;
      if (d.endpointId !== endpointId) continue;
      Object.assign(row, { status: 'FAILED', failedByDisable: true, finishedAt: at });
      row.lastError = `endpoint disabled: ${reason}`;
    }
    return true;
  }

  #endpoint(organizationId: string, endpointId: string): EndpointHealth {
    const key = `${organizationId}/${endpointId}`;
    let endpoint = this.endpoints.get(key);
    if (!endpoint) {
      endpoint = { consecutiveFailures: 0, isActive: true };
      this.endpoints.set(key, endpoint);
    }
    return endpoint;
  }

  #row(deliveryId: string): StoredDelivery {
    if (this.failWrites) throw new Error('outbox unavailable');
    const row = this.rows.get(deliveryId);
    if (!row) throw new Error(`no delivery ${deliveryId}`);
    if (row.status !== 'PENDING' && !row.failedByDisable) {
      throw new Error(`delivery ${deliveryId} already ${row.status}`);
    }
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

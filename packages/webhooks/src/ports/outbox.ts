/**
 * The Outbox port: webhook deliveries written in the same Store transaction as the activity
 * they announce (so an event exists exactly when its activity committed), and claimed by
 * dispatchers on any instance. A claim is a lease: a delivery claimed by a dispatcher that
 * dies is claimed again once the lease runs out, so delivery is at least once and receivers
 * deduplicate by event id.
 * @module
 */

/** One attempt-tracked delivery of one event to one endpoint. */
export interface WebhookDelivery {
  readonly deliveryId: string;
  /** The same across retries and across endpoints of one event (the `X-…-Event-Id` header). */
  readonly eventId: string;
  readonly organizationId: string;
  readonly endpointId: string;
  /** The endpoint URL at the time the event was enqueued. */
  readonly url: string;
  /** `ACTIVITY_UPDATES`. */
  readonly eventType: string;
  /** The exact JSON body to POST (signed as bytes; never re-serialized). */
  readonly body: string;
  /** Attempts made so far. */
  readonly attempts: number;
  /** Epoch ms at which the next attempt is due. */
  readonly nextAttemptAt: number;
  readonly createdAt: number;
}

/** What became of a delivery. */
export type WebhookDeliveryStatus = 'PENDING' | 'DELIVERED' | 'FAILED';

export interface Outbox {
  /**
   * Up to `limit` PENDING deliveries with `nextAttemptAt <= now` and no live lease, oldest
   * first, each leased until `now + leaseMs` so no other dispatcher claims it meanwhile.
   */
  claimDue(now: number, limit: number, leaseMs: number): Promise<WebhookDelivery[]>;
  /**
   * Optional: how many deliveries are PENDING (due or not, leased or not) — the queue depth an
   * operator's metrics show. One count, never a listing.
   */
  countPending?(): Promise<number>;
  /** The attempt succeeded: DELIVERED, lease released. */
  markDelivered(deliveryId: string, attempts: number, at: number): Promise<void>;
  /** The attempt failed and will be retried at `nextAttemptAt`; lease released. */
  reschedule(
    deliveryId: string,
    attempts: number,
    nextAttemptAt: number,
    lastError: string,
  ): Promise<void>;
  /** The attempt failed for good (terminal status, or no attempts left): FAILED. */
  markFailed(deliveryId: string, attempts: number, at: number, lastError: string): Promise<void>;

  // Endpoint health: the dispatcher turns off an endpoint that keeps failing, so it does not
  // collect deliveries that can never arrive. Absent endpoints make these no-ops.

  /** A delivery to the endpoint arrived: its count of consecutive failed deliveries is 0 again. */
  endpointDelivered(organizationId: string, endpointId: string): Promise<void>;
  /**
   * A delivery to the endpoint ended FAILED: adds one to its count of consecutive failed
   * deliveries and returns the new count (0 for an absent endpoint).
   */
  endpointFailed(organizationId: string, endpointId: string): Promise<number>;
  /**
   * Turns an active endpoint off: `isActive` false, `disabledReason` set, its failure count
   * back to 0 (so re-enabling starts afresh), and its PENDING deliveries FAILED with
   * `endpoint disabled: <reason>`. An inactive or absent endpoint is left as it is.
   * Returns whether it disabled the endpoint.
   */
  disableEndpoint(
    organizationId: string,
    endpointId: string,
    reason: string,
    at: number,
  ): Promise<boolean>;
}

/** The inversify service identifier of the Outbox port. */
export const Outbox: unique symbol = Symbol.for('keyhold.Outbox');

/**
 * The outbox worker: claims due deliveries, signs each attempt with a fresh timestamp, POSTs
 * them through the WebhookTransport a few at a time, classifies the outcome and records it
 * (delivered, rescheduled per the retry schedule, or failed). Delivery is at least once: a
 * dispatcher that dies mid-run leaves its claims to expire and be claimed again, so receivers
 * deduplicate by event id.
 *
 * Endpoint health (see `endpoint-health.ts`): a delivery that arrives resets its endpoint's
 * count of consecutive failed deliveries; one that ends FAILED adds to it, and the endpoint
 * is disabled when the count reaches `disableAfterFailures`, or at once on 410 Gone or a URL
 * the transport marks permanently undeliverable.
 *
 * Lease: a claim must outlive the run that holds it, so choose `leaseMs` above
 * `ceil(batchSize / concurrency) × transport timeout` plus the Outbox's write time (defaults:
 * 20 / 5 × 10 s = 40 s ≪ 120 s).
 * @module
 */
import { classifyResponse, describeResponse } from './classify-response.js';
import {
  consecutiveFailuresReason,
  DEFAULT_DISABLE_AFTER_FAILURES,
  immediateDisableReason,
} from './endpoint-health.js';
import type { Outbox, WebhookDelivery } from './ports/outbox.js';
import type { WebhookResponse, WebhookTransport } from './ports/webhook-transport.js';
import { DEFAULT_RETRY_SCHEDULE, nextRetryDelayMs, type RetrySchedule } from './retry-schedule.js';
import { DEFAULT_WEBHOOK_BRAND, webhookHeaderNames } from './webhook-headers.js';
import { signWebhookDelivery } from './webhook-signature.js';

/** How a {@link WebhookDispatcher} is built. */
export interface WebhookDispatcherOptions {
  readonly outbox: Outbox;
  readonly transport: WebhookTransport;
  /** Epoch milliseconds; read for the claim and again for every attempt's timestamp. */
  readonly clock: () => number;
  /** The current signing key (its kid is the one published first in the JWKS). */
  readonly signingKey: { readonly keyId: string; readonly privateKey: Uint8Array };
  /** The word in `X-<Brand>-*`; default `Keyhold`. */
  readonly brand?: string;
  /** Deliveries claimed per run; default 20. */
  readonly batchSize?: number;
  /** How long a claim holds; default 120 000 ms. */
  readonly leaseMs?: number;
  /** Default {@link DEFAULT_RETRY_SCHEDULE}. */
  readonly schedule?: RetrySchedule;
  /** Requests in flight at once within a run; default 5. */
  readonly concurrency?: number;
  /** The jitter's [0, 1) source; default `Math.random`. */
  readonly random?: () => number;
  /** Told of every error the dispatcher swallowed (an Outbox failure, a failed run). */
  readonly onError?: (error: unknown) => void;
  /** Consecutive FAILED deliveries after which an endpoint is disabled; default 10. */
  readonly disableAfterFailures?: number;
  /** Told of every endpoint this dispatcher disabled (for the operator's log). */
  readonly onEndpointDisabled?: (endpoint: DisabledEndpoint) => void;
  /** Told what every run did (for the operator's metrics). */
  readonly onRun?: (summary: DispatchSummary) => void;
}

/** An endpoint the dispatcher turned off, and why. */
export interface DisabledEndpoint {
  readonly organizationId: string;
  readonly endpointId: string;
  readonly reason: string;
}

/** What one run did. `claimed = delivered + retried + failed + errors`. */
export interface DispatchSummary {
  readonly claimed: number;
  readonly delivered: number;
  /** Rescheduled for another attempt. */
  readonly retried: number;
  /** Marked FAILED (terminal response, or no attempts left). */
  readonly failed: number;
  /** Attempts whose outcome could not be recorded (the Outbox threw); their claims expire. */
  readonly errors: number;
}

/**
 * Delivers the outbox: `runOnce()` for one pass, or `start(intervalMs)` / `stop()` for a
 * timer loop that never overlaps runs, starts the next run at once after a full batch, and
 * never lets an error escape (they go to `onError`).
 * @example
 * const dispatcher = new WebhookDispatcher({
 *   outbox, transport: new HttpWebhookTransport(), clock: Date.now,
 *   signingKey: webhookSigningKey(seed), brand: 'Keyhold',
 *   onError: (e) => log.error(e),
 * });
 * dispatcher.start(1000);
 * // … on shutdown:
 * await dispatcher.stop();
 */
export class WebhookDispatcher {
  readonly #outbox: Outbox;
  readonly #transport: WebhookTransport;
  readonly #clock: () => number;
  readonly #signingKey: { readonly keyId: string; readonly privateKey: Uint8Array };
  readonly #brand: string;
  readonly #batchSize: number;
  readonly #leaseMs: number;
  readonly #schedule: RetrySchedule;
  readonly #concurrency: number;
  readonly #random: () => number;
  readonly #onError: (error: unknown) => void;
  readonly #disableAfter: number;
  readonly #onEndpointDisabled: (endpoint: DisabledEndpoint) => void;
  readonly #onRun: (summary: DispatchSummary) => void;
  #running = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #inFlight: Promise<unknown> | undefined;

  constructor(options: WebhookDispatcherOptions) {
    this.#outbox = options.outbox;
    this.#transport = options.transport;
    this.#clock = options.clock;
    this.#signingKey = options.signingKey;
    this.#brand = options.brand ?? DEFAULT_WEBHOOK_BRAND;
    webhookHeaderNames(this.#brand); // validates the brand now, not on the first delivery
    this.#batchSize = positiveInteger('batchSize', options.batchSize ?? 20);
    this.#leaseMs = positiveInteger('leaseMs', options.leaseMs ?? 120_000);
    this.#concurrency = positiveInteger('concurrency', options.concurrency ?? 5);
    this.#schedule = options.schedule ?? DEFAULT_RETRY_SCHEDULE;
    this.#random = options.random ?? Math.random;
    this.#onError = options.onError ?? (() => {});
    this.#disableAfter = positiveInteger(
      'disableAfterFailures',
      options.disableAfterFailures ?? DEFAULT_DISABLE_AFTER_FAILURES,
    );
    this.#onEndpointDisabled = options.onEndpointDisabled ?? (() => {});
    this.#onRun = options.onRun ?? (() => {});
  }

  /**
   * One pass: claim up to `batchSize` due deliveries and attempt each once. Rejects only if the
   * claim itself fails; per-delivery Outbox failures are reported to `onError` and counted.
   * @example
   * const { delivered, retried, failed } = await dispatcher.runOnce();
   */
  async runOnce(): Promise<DispatchSummary> {
    const claimed = await this.#outbox.claimDue(
      Math.floor(this.#clock()),
      this.#batchSize,
      this.#leaseMs,
    );
    const counts = { claimed: claimed.length, delivered: 0, retried: 0, failed: 0, errors: 0 };
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < claimed.length) {
        const delivery = claimed[next++]!;
        try {
          counts[await this.#attempt(delivery)]++;
        } catch (error) {
          counts.errors++;
          this.#report(error);
        }
      }
    };
    await Promise.all(
      Array.from({ length: Math.min(this.#concurrency, claimed.length) }, () => worker()),
    );
    try {
      this.#onRun(counts);
    } catch (error) {
      this.#report(error);
    }
    return counts;
  }

  /**
   * Starts the loop: a run now, then one `intervalMs` after each run ends (at once after a
   * full batch). Calling it while started does nothing.
   * @example
   * dispatcher.start(1000);
   */
  start(intervalMs: number): void {
    if (this.#running) return;
    if (!(Number.isFinite(intervalMs) && intervalMs >= 0)) {
      throw new RangeError('intervalMs must be a non-negative number');
    }
    this.#running = true;
    const tick = (): void => {
      this.#timer = undefined;
      const run = this.runOnce().then(
        (summary) => summary.claimed >= this.#batchSize,
        (error: unknown) => {
          this.#report(error);
          return false;
        },
      );
      this.#inFlight = run;
      void run.then((full) => {
        this.#inFlight = undefined;
        if (this.#running) this.#arm(tick, full ? 0 : intervalMs);
      });
    };
    this.#arm(tick, 0);
  }

  /**
   * Stops the loop and resolves once the run in flight (if any) has finished. Never rejects.
   * @example
   * await dispatcher.stop();
   */
  async stop(): Promise<void> {
    this.#running = false;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#inFlight;
  }

  #arm(tick: () => void, delayMs: number): void {
    const timer = setTimeout(tick, delayMs);
    (timer as { unref?: () => void }).unref?.();
    this.#timer = timer;
  }

  #report(error: unknown): void {
    try {
      this.#onError(error);
    } catch {
      // An onError that throws must not turn into an unhandled rejection.
    }
  }

  async #attempt(delivery: WebhookDelivery): Promise<'delivered' | 'retried' | 'failed'> {
    const attempts = delivery.attempts + 1;
    let headers: Record<string, string>;
    try {
      headers = signWebhookDelivery({
        keyId: this.#signingKey.keyId,
        privateKey: this.#signingKey.privateKey,
        brand: this.#brand,
        timestampMs: Math.floor(this.#clock()),
        eventId: delivery.eventId,
        organizationId: delivery.organizationId,
        eventType: delivery.eventType,
        body: delivery.body,
      });
    } catch (error) {
      // A delivery that cannot be signed never will be: fail it rather than retry forever.
      const reason = error instanceof Error ? error.message : 'signing failed';
      await this.#outbox.markFailed(
        delivery.deliveryId,
        attempts,
        Math.floor(this.#clock()),
        `cannot sign: ${reason}`,
      );
      return 'failed';
    }
    let response: WebhookResponse;
    try {
      response = await this.#transport.send({ url: delivery.url, headers, body: delivery.body });
    } catch {
      response = { error: 'transport failed' }; // the port promises not to reject; be safe
    }
    const now = Math.floor(this.#clock());
    const outcome = classifyResponse(response);
    const { organizationId, endpointId } = delivery;
    if (outcome === 'delivered') {
      await this.#outbox.markDelivered(delivery.deliveryId, attempts, now);
      await this.#bookkeeping(() => this.#outbox.endpointDelivered(organizationId, endpointId));
      return 'delivered';
    }
    const lastError = describeResponse(response);
    if (outcome === 'retry') {
      const delay = nextRetryDelayMs(this.#schedule, attempts, {
        random: this.#random,
        retryAfterMs: 'status' in response ? response.retryAfterMs : undefined,
      });
      if (delay !== undefined) {
        await this.#outbox.reschedule(delivery.deliveryId, attempts, now + delay, lastError);
        return 'retried';
      }
    }
    const reason =
      outcome === 'retry' ? `${lastError} (gave up after ${attempts} attempts)` : lastError;
    await this.#outbox.markFailed(delivery.deliveryId, attempts, now, reason);
    await this.#bookkeeping(async () => {
      const immediate = immediateDisableReason(response);
      const count = immediate ? 0 : await this.#outbox.endpointFailed(organizationId, endpointId);
      const why =
        immediate ?? (count >= this.#disableAfter && consecutiveFailuresReason(count, reason));
      if (why && (await this.#outbox.disableEndpoint(organizationId, endpointId, why, now))) {
        this.#onEndpointDisabled({ organizationId, endpointId, reason: why });
      }
    });
    return 'failed';
  }

  /**
   * Endpoint health bookkeeping after the delivery's own outcome is recorded: a failure here
   * is reported, never counted against the delivery (which is already DELIVERED or FAILED).
   */
  async #bookkeeping(work: () => Promise<unknown>): Promise<void> {
    try {
      await work();
    } catch (error) {
      this.#report(error);
    }
  }
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`${name} must be a positive integer`);
  }
  return value;
}

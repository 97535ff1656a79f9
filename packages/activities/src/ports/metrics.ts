/**
 * The Metrics port: what Keyhold counts and times, for an operator's dashboards. The domain
 * names the measurements; an adapter (`@keyhold/metrics-prometheus`) keeps and exposes them.
 * Labels are bounded sets (routes Keyhold serves, activity types, statuses, curves): never an
 * organization id, a user, a key or a body.
 * @module
 */

/** One answered HTTP request. */
export interface RequestSample {
  /** A served path (`/public/v1/submit/create_wallet`) or `other` for anything else. */
  readonly route: string;
  readonly method: string;
  readonly status: number;
  readonly seconds: number;
}

/** How a webhook delivery attempt ended: sent, rescheduled, given up, or not recordable. */
export type WebhookOutcome = 'delivered' | 'retried' | 'failed' | 'error';

/** How a request path went wrong in a port. */
export type PortFailure = 'store' | 'rate_limiter';

/**
 * What Keyhold reports as it works. Every method is cheap and never throws.
 * @example
 * const metrics: Metrics = new PrometheusMetrics();
 * metrics.activityFinished('ACTIVITY_TYPE_CREATE_WALLET', 'ACTIVITY_STATUS_COMPLETED');
 */
export interface Metrics {
  requestHandled(sample: RequestSample): void;
  /** An activity answered with this status (a vote answers its target's). */
  activityFinished(type: string, status: string): void;
  /** One policy decision (`decide`), by its outcome. */
  policyDecided(outcome: string, seconds: number): void;
  /** One signature by the KeyVault, by the vault's kind and the curve. */
  vaultSigned(vault: string, curve: string, seconds: number): void;
  /** Webhook delivery attempts of one dispatch run, by outcome (`count` of them). */
  webhookAttempted(outcome: WebhookOutcome, count: number): void;
  /** Webhook deliveries PENDING after a dispatch run, when the outbox counts them. */
  webhookQueueDepth(depth: number): void;
  /** A port that failed under a request (the store unreachable, the limiter down). */
  portFailed(port: PortFailure): void;
}

/**
 * The container token of the Metrics port.
 * @example
 * container.get<Metrics>(Metrics).portFailed('store');
 */
export const Metrics: unique symbol = Symbol.for('keyhold.Metrics');

/**
 * Metrics that keep nothing: the default where no adapter is configured.
 * @example
 * createKeyhold({ metrics: noMetrics });
 */
export const noMetrics: Metrics = {
  requestHandled() {},
  activityFinished() {},
  policyDecided() {},
  vaultSigned() {},
  webhookAttempted() {},
  webhookQueueDepth() {},
  portFailed() {},
};

/**
 * Metrics an operator can read: the text a `GET /metrics` answers, and its content type.
 * @example
 * const { contentType, body } = await exposition.render();
 */
export interface MetricsExposition {
  render(): Promise<{ contentType: string; body: string }>;
}

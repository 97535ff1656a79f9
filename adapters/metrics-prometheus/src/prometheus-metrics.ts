/**
 * `PrometheusMetrics`: the Metrics port on prom-client, in a registry of its own (so two
 * instances in one process, or a host's own metrics, never collide), exposed in the Prometheus
 * text format for `GET /metrics`.
 * @module
 */
import type {
  Metrics,
  MetricsExposition,
  PortFailure,
  RequestSample,
  WebhookOutcome,
} from '@keyhold/activities';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** What `PrometheusMetrics` takes. */
export interface PrometheusMetricsOptions {
  /** Every metric's name starts with it. Default `keyhold_`. */
  prefix?: string;
  /** Also collect Node's process metrics (CPU, memory, event-loop lag). Default true. */
  processMetrics?: boolean;
}

/** Request durations: a fast query is ~1 ms; a wallet of many accounts seconds. */
const REQUEST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Policy decisions and signatures are sub-millisecond to tens of milliseconds (an HSM). */
const FAST_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5];

/**
 * Keyhold's metrics as Prometheus counters and histograms.
 * @example
 * import { PrometheusMetrics } from '@keyhold/metrics-prometheus';
 * const metrics = new PrometheusMetrics();
 * const keyhold = createKeyhold({ metrics }); // GET /metrics now answers
 * const { body } = await metrics.render(); // '# HELP keyhold_http_request_duration_seconds …'
 */
export class PrometheusMetrics implements Metrics, MetricsExposition {
  /** The registry holding Keyhold's metrics (and Node's, with `processMetrics`). */
  readonly registry = new Registry();
  readonly #requests: Histogram<'route' | 'method' | 'status'>;
  readonly #activities: Counter<'type' | 'status'>;
  readonly #decisions: Histogram<'outcome'>;
  readonly #signatures: Histogram<'vault' | 'curve'>;
  readonly #webhookAttempts: Counter<'outcome'>;
  readonly #portFailures: Counter<'port'>;
  readonly #webhookQueue: Gauge;

  constructor(options: PrometheusMetricsOptions = {}) {
    const prefix = options.prefix ?? 'keyhold_';
    const registers = [this.registry];
    this.#requests = new Histogram({
      name: `${prefix}http_request_duration_seconds`,
      help: 'Time to answer an HTTP request, by route, method and status.',
      labelNames: ['route', 'method', 'status'],
      buckets: REQUEST_BUCKETS,
      registers,
    });
    this.#activities = new Counter({
      name: `${prefix}activities_total`,
      help: 'Activities answered, by type and status.',
      labelNames: ['type', 'status'],
      registers,
    });
    this.#decisions = new Histogram({
      name: `${prefix}policy_decision_duration_seconds`,
      help: 'Time to decide an activity by policy, by outcome.',
      labelNames: ['outcome'],
      buckets: FAST_BUCKETS,
      registers,
    });
    this.#signatures = new Histogram({
      name: `${prefix}vault_sign_duration_seconds`,
      help: 'Time the key vault takes to sign, by vault and curve.',
      labelNames: ['vault', 'curve'],
      buckets: FAST_BUCKETS,
      registers,
    });
    this.#webhookAttempts = new Counter({
      name: `${prefix}webhook_attempts_total`,
      help: 'Webhook delivery attempts, by outcome (delivered, retried, failed, error).',
      labelNames: ['outcome'],
      registers,
    });
    this.#webhookQueue = new Gauge({
      name: `${prefix}webhook_queue_depth`,
      help: 'Webhook deliveries pending (due or waiting to retry), after the last dispatch run.',
      registers,
    });
    this.#portFailures = new Counter({
      name: `${prefix}port_failures_total`,
      help: 'Requests a port failed under (store unreachable, rate limiter down), by port.',
      labelNames: ['port'],
      registers,
    });
    if (options.processMetrics ?? true) collectDefaultMetrics({ register: this.registry, prefix });
  }

  requestHandled({ route, method, status, seconds }: RequestSample): void {
    this.#requests.observe({ route, method, status: String(status) }, seconds);
  }

  activityFinished(type: string, status: string): void {
    this.#activities.inc({ type, status });
  }

  policyDecided(outcome: string, seconds: number): void {
    this.#decisions.observe({ outcome }, seconds);
  }

  vaultSigned(vault: string, curve: string, seconds: number): void {
    this.#signatures.observe({ vault, curve }, seconds);
  }

  webhookAttempted(outcome: WebhookOutcome, count: number): void {
    if (count > 0) this.#webhookAttempts.inc({ outcome }, count);
  }

  webhookQueueDepth(depth: number): void {
    this.#webhookQueue.set(depth);
  }

  portFailed(port: PortFailure): void {
    this.#portFailures.inc({ port });
  }

  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

/**
 * `@keyhold/metrics-prometheus`: Keyhold's Metrics port on prom-client.
 * @module
 */
export { PrometheusMetrics, type PrometheusMetricsOptions } from './prometheus-metrics.js';

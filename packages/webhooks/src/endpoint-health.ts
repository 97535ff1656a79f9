/**
 * When the dispatcher turns an endpoint off. An endpoint that keeps failing would otherwise
 * collect a delivery per activity, each retried for about 27 hours, for ever: after
 * `disableAfterFailures` consecutive deliveries that ended FAILED (retries exhausted, or a
 * final refusal such as 404) — or at once on `410 Gone` or a URL the transport can never
 * deliver to — the endpoint is disabled with a reason the owner sees in
 * `list_webhook_endpoints`, until UPDATE_WEBHOOK_ENDPOINT turns it back on.
 * @module
 */
import type { WebhookResponse } from './ports/webhook-transport.js';

/** Consecutive FAILED deliveries after which an endpoint is disabled. */
export const DEFAULT_DISABLE_AFTER_FAILURES = 10;

/**
 * Why one failed delivery disables its endpoint at once, or `undefined` when it only counts.
 * @example
 * immediateDisableReason({ status: 410 }); // 'the endpoint answered HTTP 410 Gone'
 * immediateDisableReason({ status: 500 }); // undefined
 */
export function immediateDisableReason(response: WebhookResponse): string | undefined {
  if ('status' in response) {
    return response.status === 410 ? 'the endpoint answered HTTP 410 Gone' : undefined;
  }
  return response.permanent
    ? `the endpoint URL can never be delivered to (${response.error})`
    : undefined;
}

/**
 * The reason recorded when `count` consecutive deliveries failed.
 * @example
 * consecutiveFailuresReason(10, 'HTTP 500 (gave up after 8 attempts)');
 * // '10 consecutive deliveries failed (last: HTTP 500 (gave up after 8 attempts))'
 */
export function consecutiveFailuresReason(count: number, lastError: string): string {
  return `${count} consecutive deliveries failed (last: ${lastError})`;
}

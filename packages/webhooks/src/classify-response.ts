/**
 * What a transport outcome means for a delivery (wire-compat §8): any 2xx is delivered;
 * network errors (no response, timeout) and 5xx are retried, unless the transport marked the
 * error `permanent`; 3xx (redirects are never followed), 4xx and 429 are terminal. Anything else (1xx, a status outside 100–599) is
 * terminal too: the endpoint is not speaking HTTP as expected.
 * @module
 */
import type { WebhookResponse } from './ports/webhook-transport.js';

/** The three fates of one attempt. */
export type WebhookOutcome = 'delivered' | 'retry' | 'terminal';

/**
 * Classifies one attempt's response.
 * @example
 * classifyResponse({ status: 204 }); // 'delivered'
 * classifyResponse({ status: 503 }); // 'retry'
 * classifyResponse({ status: 429, retryAfterMs: 1000 }); // 'terminal'
 * classifyResponse({ error: 'timeout' }); // 'retry'
 * classifyResponse({ error: 'endpoint URL must use https', permanent: true }); // 'terminal'
 */
export function classifyResponse(response: WebhookResponse): WebhookOutcome {
  if ('error' in response) return response.permanent ? 'terminal' : 'retry';
  const { status } = response;
  if (status >= 200 && status <= 299) return 'delivered';
  if (status >= 500 && status <= 599) return 'retry';
  return 'terminal';
}

/**
 * A short, secret-free description of a response for the outbox's `lastError`.
 * @example
 * describeResponse({ status: 500 }); // 'HTTP 500'
 * describeResponse({ error: 'timeout after 10000 ms' }); // 'timeout after 10000 ms'
 */
export function describeResponse(response: WebhookResponse): string {
  return 'error' in response ? response.error : `HTTP ${response.status}`;
}

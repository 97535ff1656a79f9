/**
 * The WebhookTransport port: one HTTP POST of a signed delivery. Adapters decide how (fetch,
 * a proxy, a queue); the dispatcher decides what an outcome means (retry or not).
 * @module
 */

export interface WebhookRequest {
  readonly url: string;
  /** Every header to send, `content-type` and the signature headers included. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/**
 * What came back: an HTTP status, or no response at all (`error` says why, never a secret).
 * `permanent` marks an error no retry can cure (the URL itself cannot be delivered to, e.g.
 * it names a private IP literal): the delivery fails at once and its endpoint is disabled.
 */
export type WebhookResponse =
  | { readonly status: number; readonly retryAfterMs?: number }
  | { readonly error: string; readonly permanent?: boolean };

export interface WebhookTransport {
  /** POSTs `request`; never follows redirects; resolves (never rejects) within its timeout. */
  send(request: WebhookRequest): Promise<WebhookResponse>;
}

/** The inversify service identifier of the WebhookTransport port. */
export const WebhookTransport: unique symbol = Symbol.for('keyhold.WebhookTransport');

/**
 * A test-only WebhookTransport: answers from a function and records every request.
 * @module
 */
import type {
  WebhookRequest,
  WebhookResponse,
  WebhookTransport,
} from '../ports/webhook-transport.js';

/**
 * Fake transport.
 * @example
 * const transport = new FakeTransport(() => ({ status: 200 }));
 */
export class FakeTransport implements WebhookTransport {
  readonly requests: WebhookRequest[] = [];
  inFlight = 0;
  maxInFlight = 0;

  constructor(
    private readonly respond: (
      request: WebhookRequest,
    ) => WebhookResponse | Promise<WebhookResponse> = () => ({ status: 200 }),
  ) {}

  async send(request: WebhookRequest): Promise<WebhookResponse> {
    this.requests.push(request);
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      await Promise.resolve();
      return await this.respond(request);
    } finally {
      this.inFlight--;
    }
  }
}

/**
 * @keyhold/webhook-transport-http — the HTTP WebhookTransport (POST, no redirects, bounded
 * time, public addresses only) and the webhook URL check for the endpoint activities.
 * @module
 */
// The address classifier and the URL check live in @keyhold/webhooks (the endpoint activities
// use them too); re-exported here, where they were first published.
export {
  type CheckWebhookUrlOptions,
  checkWebhookUrl,
  isPublicAddress,
  MAX_WEBHOOK_URL_LENGTH,
  neverADestination,
  nonPublicRange,
} from '@keyhold/webhooks';
export {
  HttpWebhookTransport,
  type HttpWebhookTransportOptions,
  PRIVATE_ADDRESS_ERROR,
  type WebhookHostLookup,
} from './http-webhook-transport.js';
export { parseRetryAfter } from './retry-after.js';

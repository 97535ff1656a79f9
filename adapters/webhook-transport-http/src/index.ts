/**
 * @keyhold/webhook-transport-http — the HTTP WebhookTransport (POST, no redirects, bounded
 * time, public addresses only) and the webhook URL check for the endpoint activities.
 * @module
 */
export * from './address-classifier.js';
export * from './check-webhook-url.js';
export * from './http-webhook-transport.js';
export * from './retry-after.js';

/**
 * @keyhold/webhooks — signed webhook events: the v1 Ed25519 signature, the JWKS document, the
 * retry schedule, the dispatcher and a receiver-side verifier; ports Outbox and
 * WebhookTransport.
 * @module
 */
export * from './address-classifier.js';
export * from './check-webhook-url.js';
export * from './classify-response.js';
export * from './endpoint-health.js';
export * from './ports/outbox.js';
export * from './ports/webhook-transport.js';
export * from './retry-schedule.js';
export * from './webhook-dispatcher.js';
export * from './webhook-headers.js';
export * from './webhook-jwks.js';
export * from './webhook-signature.js';
export * from './webhook-verifier.js';

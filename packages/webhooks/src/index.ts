/**
 * @keyhold/webhooks — signed webhook events: the v1 Ed25519 signature, the JWKS document, the
 * retry schedule, the dispatcher and a receiver-side verifier; ports Outbox and
 * WebhookTransport.
 * @module
 */
export * from './ports/outbox.js';
export * from './ports/webhook-transport.js';

/**
 * @keyhold/webhooks — signed webhook events: the v1 Ed25519 signature, the JWKS document, the
 * retry schedule, the dispatcher and a receiver-side verifier; ports Outbox and
 * WebhookTransport.
 * @module
 */
export { isPublicAddress, neverADestination, nonPublicRange } from './address-classifier.js';
export {
  type CheckWebhookUrlOptions,
  checkWebhookUrl,
  MAX_WEBHOOK_URL_LENGTH,
} from './check-webhook-url.js';
export { classifyResponse, describeResponse, type WebhookOutcome } from './classify-response.js';
export {
  consecutiveFailuresReason,
  DEFAULT_DISABLE_AFTER_FAILURES,
  immediateDisableReason,
} from './endpoint-health.js';
export { Outbox, type WebhookDelivery, type WebhookDeliveryStatus } from './ports/outbox.js';
export {
  type WebhookRequest,
  type WebhookResponse,
  WebhookTransport,
} from './ports/webhook-transport.js';
export {
  DEFAULT_RETRY_SCHEDULE,
  maxAttempts,
  nextRetryDelayMs,
  type RetrySchedule,
  retrySchedule,
  seededRandom,
} from './retry-schedule.js';
export {
  type DisabledEndpoint,
  type DispatchSummary,
  WebhookDispatcher,
  type WebhookDispatcherOptions,
} from './webhook-dispatcher.js';
export {
  assertWebhookBrand,
  DEFAULT_WEBHOOK_BRAND,
  WEBHOOK_SIGNATURE_ALGORITHM,
  WEBHOOK_SIGNATURE_VERSION,
  WEBHOOK_VERSION,
  type WebhookHeaderNames,
  webhookHeaderNames,
} from './webhook-headers.js';
export {
  type WebhookJwk,
  type WebhookJwks,
  type WebhookSigningKey,
  webhookJwk,
  webhookJwks,
  webhookKeyId,
  webhookSigningKey,
  webhookVerificationKeys,
} from './webhook-jwks.js';
export {
  type SignWebhookDeliveryInput,
  signWebhookDelivery,
  webhookSignedInput,
} from './webhook-signature.js';
export {
  DEFAULT_MAX_TIMESTAMP_AGE_MS,
  type VerifyWebhookSignatureInput,
  verifyWebhookSignature,
  type WebhookHeadersInput,
  type WebhookVerificationFailureReason,
  WebhookVerificationFailureReasons,
  type WebhookVerificationKey,
  type WebhookVerificationResult,
} from './webhook-verifier.js';

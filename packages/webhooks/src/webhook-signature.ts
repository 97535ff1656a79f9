/**
 * The v1 webhook signature (wire-compat §8): Ed25519 over the UTF-8 bytes of
 * `v1.ed25519.<keyId>.<timestampMs>.<eventId>.` followed by the raw body bytes, sent as
 * lowercase hex in `X-<Brand>-Signature` next to the headers that name its inputs. Every
 * attempt is signed afresh with its own timestamp; the event id stays the same across retries.
 * @module
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import {
  DEFAULT_WEBHOOK_BRAND,
  WEBHOOK_SIGNATURE_ALGORITHM,
  WEBHOOK_SIGNATURE_VERSION,
  WEBHOOK_VERSION,
  webhookHeaderNames,
} from './webhook-headers.js';

/** What {@link signWebhookDelivery} signs and announces. */
export interface SignWebhookDeliveryInput {
  /** The signing key's `kid` (as published in the JWKS; see `webhookKeyId`). */
  readonly keyId: string;
  /** The 32-byte Ed25519 private key (seed). */
  readonly privateKey: Uint8Array;
  /** The word in `X-<Brand>-*`; default `Keyhold`. */
  readonly brand?: string;
  /** This attempt's time, epoch milliseconds (a non-negative safe integer). */
  readonly timestampMs: number;
  readonly eventId: string;
  readonly organizationId: string;
  readonly eventType: string;
  /** The exact body to POST: a string (UTF-8 encoded) or its bytes. */
  readonly body: string | Uint8Array;
}

const encoder = new TextEncoder();

function assertHeaderValue(name: string, value: string): void {
  // Visible ASCII only: no CR/LF header injection, no whitespace a proxy might trim.
  if (!/^[\x21-\x7e]+$/.test(value)) {
    throw new TypeError(`invalid webhook ${name}: want non-empty visible ASCII`);
  }
}

/**
 * The exact bytes a v1 signature covers: UTF-8 `v1.ed25519.<keyId>.<timestampMs>.<eventId>.`
 * followed by the body bytes (never a re-serialized JSON).
 * @example
 * const bytes = webhookSignedInput({ keyId: 'k1', timestampMs: 1700000000000, eventId: 'e1', body: '{}' });
 * new TextDecoder().decode(bytes); // 'v1.ed25519.k1.1700000000000.e1.{}'
 */
export function webhookSignedInput(input: {
  readonly keyId: string;
  readonly timestampMs: number | string;
  readonly eventId: string;
  readonly body: string | Uint8Array;
}): Uint8Array {
  const prefix = encoder.encode(
    `${WEBHOOK_SIGNATURE_VERSION}.${WEBHOOK_SIGNATURE_ALGORITHM}.${input.keyId}.${input.timestampMs}.${input.eventId}.`,
  );
  const body = typeof input.body === 'string' ? encoder.encode(input.body) : input.body;
  const out = new Uint8Array(prefix.length + body.length);
  out.set(prefix, 0);
  out.set(body, prefix.length);
  return out;
}

/**
 * Signs one delivery attempt and returns every header to send with it: `Content-Type:
 * application/json`, organization id, event type, timestamp, webhook version `1`, event id,
 * signature key id, algorithm `ed25519`, version `v1` and the hex signature — named
 * `X-<Brand>-…` in Turnkey's casing. Throws a TypeError on a bad brand, key, timestamp or a
 * header value that is empty or not visible ASCII.
 * @example
 * const headers = signWebhookDelivery({
 *   keyId, privateKey, brand: 'Turnkey', timestampMs: Date.now(),
 *   eventId: 'evt_1', organizationId: 'org_1', eventType: 'ACTIVITY_UPDATES', body,
 * });
 * headers['X-Turnkey-Signature']; // 128 lowercase hex characters
 */
export function signWebhookDelivery(input: SignWebhookDeliveryInput): Record<string, string> {
  const names = webhookHeaderNames(input.brand ?? DEFAULT_WEBHOOK_BRAND);
  if (!(input.privateKey instanceof Uint8Array) || input.privateKey.length !== 32) {
    throw new TypeError('webhook signing key must be a 32-byte Ed25519 private key');
  }
  if (!Number.isSafeInteger(input.timestampMs) || input.timestampMs < 0) {
    throw new TypeError('webhook timestampMs must be a non-negative safe integer');
  }
  assertHeaderValue('keyId', input.keyId);
  assertHeaderValue('eventId', input.eventId);
  assertHeaderValue('organizationId', input.organizationId);
  assertHeaderValue('eventType', input.eventType);
  const signature = ed25519.sign(webhookSignedInput(input), input.privateKey);
  return {
    'Content-Type': 'application/json',
    [names.organizationId]: input.organizationId,
    [names.eventType]: input.eventType,
    [names.timestamp]: String(input.timestampMs),
    [names.webhookVersion]: WEBHOOK_VERSION,
    [names.eventId]: input.eventId,
    [names.signatureKeyId]: input.keyId,
    [names.signatureAlgorithm]: WEBHOOK_SIGNATURE_ALGORITHM,
    [names.signatureVersion]: WEBHOOK_SIGNATURE_VERSION,
    [names.signature]: bytesToHex(signature),
  };
}

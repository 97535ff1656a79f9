/**
 * The receiver side: verifies a v1 webhook signature the way Turnkey's reference verifier
 * (`@turnkey/crypto` `verifyTurnkeyWebhookSignature`) does — same checks, same order, same
 * failure reasons — but for any brand (`X-<Brand>-…` headers). It never throws on bad input;
 * it returns `{ok: false, reason}` (only a malformed `brand`, a configuration error, throws).
 *
 * Checks, in order: `maxTimestampAgeMs` finite and ≥ 0; `nowMs` finite; the six headers
 * (timestamp, event id, key id, algorithm, version, signature) present and non-empty, looked
 * up case-insensitively; timestamp all digits and a safe integer; `|now − ts| ≤
 * maxTimestampAgeMs`; version `v1`; algorithm `ed25519`; a key with that `kid`; the key's
 * algorithm (if given) `ed25519` and its public key 32-byte hex; the signature 64-byte hex
 * and valid over the raw body.
 * @module
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import { hexToBytes } from '@noble/hashes/utils.js';
import {
  DEFAULT_WEBHOOK_BRAND,
  WEBHOOK_SIGNATURE_ALGORITHM,
  WEBHOOK_SIGNATURE_VERSION,
  webhookHeaderNames,
} from './webhook-headers.js';
import { webhookSignedInput } from './webhook-signature.js';

/** The failure reasons, identical to `@turnkey/crypto`'s `TurnkeyWebhookVerificationFailureReasons`. */
export const WebhookVerificationFailureReasons = {
  InvalidMaxTimestampAge: 'invalid_max_timestamp_age',
  InvalidNow: 'invalid_now',
  MissingHeader: 'missing_header',
  InvalidTimestamp: 'invalid_timestamp',
  StaleTimestamp: 'stale_timestamp',
  UnsupportedSignatureVersion: 'unsupported_signature_version',
  UnsupportedSignatureAlgorithm: 'unsupported_signature_algorithm',
  MissingKey: 'missing_key',
  InvalidVerificationKeyAlgorithm: 'invalid_verification_key_algorithm',
  InvalidVerificationKey: 'invalid_verification_key',
  InvalidSignature: 'invalid_signature',
} as const;

/** One of {@link WebhookVerificationFailureReasons}. */
export type WebhookVerificationFailureReason =
  (typeof WebhookVerificationFailureReasons)[keyof typeof WebhookVerificationFailureReasons];

/** A key the receiver trusts (e.g. from the JWKS via `webhookVerificationKeys`). */
export interface WebhookVerificationKey {
  readonly keyId: string;
  /** The 32-byte Ed25519 public key, hex (either case). */
  readonly publicKey: string;
  /** If present, must be `ed25519`. */
  readonly algorithm?: string;
}

/** Request headers: a fetch `Headers`, or a plain record (Node's `IncomingHttpHeaders` fits). */
export type WebhookHeadersInput =
  | Headers
  | Readonly<Record<string, string | readonly string[] | undefined>>;

/** What {@link verifyWebhookSignature} checks. */
export interface VerifyWebhookSignatureInput {
  readonly headers: WebhookHeadersInput;
  /** The exact raw body received (string as UTF-8, or bytes). */
  readonly body: string | Uint8Array | ArrayBuffer;
  readonly verificationKeys: readonly WebhookVerificationKey[];
  /** The replay window; default 300 000 ms (the reference example's value). */
  readonly maxTimestampAgeMs?: number;
  /** Default `Date.now()`. */
  readonly nowMs?: number;
  /** The word in `X-<Brand>-*`; default `Keyhold`. */
  readonly brand?: string;
}

/** The outcome: the verified event id, key id and timestamp, or why not. */
export type WebhookVerificationResult =
  | {
      readonly ok: true;
      readonly eventId: string;
      readonly keyId: string;
      readonly timestampMs: number;
    }
  | {
      readonly ok: false;
      readonly reason: WebhookVerificationFailureReason;
      /** For `missing_header`: the lowercase header name. */
      readonly headerName?: string;
    };

/** The replay window of the reference verifier example: 5 minutes. */
export const DEFAULT_MAX_TIMESTAMP_AGE_MS = 300_000;

const R = WebhookVerificationFailureReasons;

function fail(
  reason: WebhookVerificationFailureReason,
  headerName?: string,
): WebhookVerificationResult {
  return headerName === undefined ? { ok: false, reason } : { ok: false, reason, headerName };
}

function getHeader(headers: WebhookHeadersInput, name: string): string | undefined {
  if (typeof Headers !== 'undefined' && headers instanceof Headers) {
    return headers.get(name) ?? undefined;
  }
  for (const [key, value] of Object.entries(headers as Record<string, unknown>)) {
    if (key.toLowerCase() !== name) continue;
    if (Array.isArray(value)) return value[0] as string | undefined;
    return value as string | undefined;
  }
  return undefined;
}

function hexOfLength(input: string, bytes: number): Uint8Array | undefined {
  if (typeof input !== 'string' || input.length !== bytes * 2 || !/^[0-9A-Fa-f]+$/.test(input)) {
    return undefined;
  }
  return hexToBytes(input.toLowerCase());
}

/**
 * Verifies one received delivery. Returns `{ok: true, eventId, keyId, timestampMs}` or
 * `{ok: false, reason}` with `@turnkey/crypto`'s reason strings. Parse the JSON body only
 * after `ok`; deduplicate on `eventId`.
 * @example
 * const result = verifyWebhookSignature({
 *   headers: req.headers, body: rawBody, brand: 'Keyhold',
 *   verificationKeys: webhookVerificationKeys(jwks),
 * });
 * if (!result.ok) return reply(401, result.reason);
 */
export function verifyWebhookSignature(
  input: VerifyWebhookSignatureInput,
): WebhookVerificationResult {
  const maxAge = input.maxTimestampAgeMs ?? DEFAULT_MAX_TIMESTAMP_AGE_MS;
  const nowMs = input.nowMs ?? Date.now();
  const names = webhookHeaderNames(input.brand ?? DEFAULT_WEBHOOK_BRAND);
  if (!Number.isFinite(maxAge) || maxAge < 0) return fail(R.InvalidMaxTimestampAge);
  if (!Number.isFinite(nowMs)) return fail(R.InvalidNow);
  const required = [
    names.timestamp,
    names.eventId,
    names.signatureKeyId,
    names.signatureAlgorithm,
    names.signatureVersion,
    names.signature,
  ].map((n) => n.toLowerCase());
  const values: string[] = [];
  for (const name of required) {
    const value = getHeader(input.headers, name);
    if (value === undefined || value === '') return fail(R.MissingHeader, name);
    values.push(value);
  }
  const [timestamp, eventId, keyId, algorithm, version, signatureHex] = values as [
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  if (!/^[0-9]+$/.test(timestamp)) return fail(R.InvalidTimestamp);
  const timestampMs = Number(timestamp);
  if (!Number.isSafeInteger(timestampMs)) return fail(R.InvalidTimestamp);
  if (Math.abs(nowMs - timestampMs) > maxAge) return fail(R.StaleTimestamp);
  if (version !== WEBHOOK_SIGNATURE_VERSION) return fail(R.UnsupportedSignatureVersion);
  if (algorithm !== WEBHOOK_SIGNATURE_ALGORITHM) return fail(R.UnsupportedSignatureAlgorithm);
  const key = input.verificationKeys.find((k) => k.keyId === keyId);
  if (!key) return fail(R.MissingKey);
  if (key.algorithm !== undefined && key.algorithm !== WEBHOOK_SIGNATURE_ALGORITHM) {
    return fail(R.InvalidVerificationKeyAlgorithm);
  }
  const publicKey = hexOfLength(key.publicKey, 32);
  if (!publicKey) return fail(R.InvalidVerificationKey);
  const signature = hexOfLength(signatureHex, 64);
  if (!signature) return fail(R.InvalidSignature);
  const body = input.body instanceof ArrayBuffer ? new Uint8Array(input.body) : input.body;
  // The timestamp goes into the signed bytes as the raw header string, as the reference does.
  const signed = webhookSignedInput({ keyId, timestampMs: timestamp, eventId, body });
  let verified = false;
  try {
    verified = ed25519.verify(signature, signed, publicKey);
  } catch {
    return fail(R.InvalidSignature);
  }
  if (!verified) return fail(R.InvalidSignature);
  return { ok: true, eventId, keyId, timestampMs };
}

/**
 * The names of the webhook delivery headers. Turnkey sends `X-Turnkey-…`; Keyhold puts its
 * brand word (`--brand`, default `Keyhold`) in the same place, so with brand `Turnkey` the
 * headers are byte-for-byte Turnkey's and `@turnkey/crypto`'s `verifyTurnkeyWebhookSignature`
 * accepts them. HTTP header names are case-insensitive; the casing here is Turnkey's.
 * @module
 */

/** The brand used when none is configured (the server's `--brand` default). */
export const DEFAULT_WEBHOOK_BRAND = 'Keyhold';

/** The one signature scheme version: `v1` (`X-…-Signature-Version`). */
export const WEBHOOK_SIGNATURE_VERSION = 'v1';

/** The one signature algorithm: `ed25519` (`X-…-Signature-Algorithm`). */
export const WEBHOOK_SIGNATURE_ALGORITHM = 'ed25519';

/** The envelope version sent in `X-…-Webhook-Version`. */
export const WEBHOOK_VERSION = '1';

/** The header names of one brand, in Turnkey's casing. */
export interface WebhookHeaderNames {
  readonly organizationId: string;
  readonly eventType: string;
  readonly timestamp: string;
  readonly webhookVersion: string;
  readonly eventId: string;
  readonly signatureKeyId: string;
  readonly signatureAlgorithm: string;
  readonly signatureVersion: string;
  readonly signature: string;
}

const BRAND = /^[A-Za-z][A-Za-z0-9]{0,31}$/;

/**
 * Throws a TypeError unless `brand` is a usable header word: a letter, then letters or digits,
 * at most 32 characters (so `X-<Brand>-…` is always a valid, unambiguous header name).
 * @example
 * assertWebhookBrand('Keyhold'); // ok
 * assertWebhookBrand('Key-hold'); // throws TypeError
 */
export function assertWebhookBrand(brand: string): void {
  if (!BRAND.test(brand)) {
    throw new TypeError(
      `invalid webhook brand ${JSON.stringify(brand)}: want [A-Za-z][A-Za-z0-9]*`,
    );
  }
}

/**
 * The delivery header names for `brand`.
 * @example
 * webhookHeaderNames('Turnkey').signature; // 'X-Turnkey-Signature'
 * webhookHeaderNames('Acme').organizationId; // 'X-Acme-Organization-Id'
 */
export function webhookHeaderNames(brand: string = DEFAULT_WEBHOOK_BRAND): WebhookHeaderNames {
  assertWebhookBrand(brand);
  const p = `X-${brand}-`;
  return {
    organizationId: `${p}Organization-Id`,
    eventType: `${p}Event-Type`,
    timestamp: `${p}Timestamp`,
    webhookVersion: `${p}Webhook-Version`,
    eventId: `${p}Event-Id`,
    signatureKeyId: `${p}Signature-Key-Id`,
    signatureAlgorithm: `${p}Signature-Algorithm`,
    signatureVersion: `${p}Signature-Version`,
    signature: `${p}Signature`,
  };
}

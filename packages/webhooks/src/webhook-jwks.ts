/**
 * The webhook JWKS document (`GET /public/v1/discovery/webhooks/jwks`, wire-compat §8) and the
 * key ids in it.
 *
 * Key id: the RFC 7638 JWK thumbprint of the public key — base64url(SHA-256 of
 * `{"crv":"Ed25519","kty":"OKP","x":"<b64url>"}`), 43 characters. It is stable (a function of
 * the key alone, so every instance and every restart publishes the same kid), needs no
 * registry, never contains `.`, and anyone can recompute it with a standard JOSE library
 * (e.g. `jose`'s `calculateJwkThumbprint`).
 *
 * Brand: the two `turnkey_signature_algorithm` / `turnkey_signature_version` members keep
 * their names whatever `--brand` says. They are part of the document shape Turnkey clients
 * parse, they name the signature scheme (not the sender), and renaming them per brand would
 * break exactly the clients wire compatibility is for.
 * @module
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { WEBHOOK_SIGNATURE_ALGORITHM, WEBHOOK_SIGNATURE_VERSION } from './webhook-headers.js';
import type { WebhookVerificationKey } from './webhook-verifier.js';

/** One Ed25519 key of the webhook JWKS. */
export interface WebhookJwk {
  readonly kid: string;
  readonly kty: 'OKP';
  readonly crv: 'Ed25519';
  readonly alg: 'EdDSA';
  readonly use: 'sig';
  /** The 32-byte public key, base64url without padding. */
  readonly x: string;
  readonly turnkey_signature_algorithm: 'ed25519';
  readonly turnkey_signature_version: 'v1';
}

/** The JWKS document: `{"keys": [...]}`. */
export interface WebhookJwks {
  readonly keys: readonly WebhookJwk[];
}

/** A webhook signing key: what the dispatcher signs with and the JWKS publishes. */
export interface WebhookSigningKey {
  readonly keyId: string;
  /** 32-byte Ed25519 private key (seed). */
  readonly privateKey: Uint8Array;
  /** 32-byte Ed25519 public key. */
  readonly publicKey: Uint8Array;
}

function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64url(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return undefined;
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

function assertPublicKey(publicKey: Uint8Array): void {
  if (!(publicKey instanceof Uint8Array) || publicKey.length !== 32) {
    throw new TypeError('webhook public key must be 32 bytes');
  }
}

/**
 * The key id of a webhook public key: its RFC 7638 JWK thumbprint (base64url SHA-256, 43
 * characters).
 * @example
 * webhookKeyId(publicKey); // e.g. 'kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k'
 */
export function webhookKeyId(publicKey: Uint8Array): string {
  assertPublicKey(publicKey);
  const canonical = `{"crv":"Ed25519","kty":"OKP","x":"${base64url(publicKey)}"}`;
  return base64url(sha256(new TextEncoder().encode(canonical)));
}

/**
 * A signing key from its 32-byte private key: the public key and the derived kid.
 * @example
 * const key = webhookSigningKey(ed25519.utils.randomSecretKey());
 * key.keyId === webhookKeyId(key.publicKey); // true
 */
export function webhookSigningKey(privateKey: Uint8Array): WebhookSigningKey {
  if (!(privateKey instanceof Uint8Array) || privateKey.length !== 32) {
    throw new TypeError('webhook signing key must be a 32-byte Ed25519 private key');
  }
  const publicKey = ed25519.getPublicKey(privateKey);
  return { keyId: webhookKeyId(publicKey), privateKey, publicKey };
}

/**
 * The JWK of one public key; `keyId` defaults to {@link webhookKeyId}.
 * @example
 * webhookJwk(publicKey).x; // base64url of the 32 bytes
 */
export function webhookJwk(
  publicKey: Uint8Array,
  keyId: string = webhookKeyId(publicKey),
): WebhookJwk {
  assertPublicKey(publicKey);
  return {
    kid: keyId,
    kty: 'OKP',
    crv: 'Ed25519',
    alg: 'EdDSA',
    use: 'sig',
    x: base64url(publicKey),
    turnkey_signature_algorithm: WEBHOOK_SIGNATURE_ALGORITHM,
    turnkey_signature_version: WEBHOOK_SIGNATURE_VERSION,
  };
}

/**
 * The JWKS document for a set of keys (the current key first; during a rotation publish the old
 * and new keys together so receivers holding either kid verify).
 * @example
 * JSON.stringify(webhookJwks([signingKey])); // '{"keys":[{"kid":"…","kty":"OKP",…}]}'
 */
export function webhookJwks(
  keys: readonly (Uint8Array | { readonly publicKey: Uint8Array; readonly keyId?: string })[],
): WebhookJwks {
  return {
    keys: keys.map((k) =>
      k instanceof Uint8Array ? webhookJwk(k) : webhookJwk(k.publicKey, k.keyId),
    ),
  };
}

/**
 * The verifier's keys from a fetched JWKS document (receiver side). Lenient: entries that are
 * not Ed25519 OKP keys with a 32-byte `x` and a string `kid` are skipped, never thrown on.
 * @example
 * const keys = webhookVerificationKeys(await (await fetch(jwksUrl)).json());
 * verifyWebhookSignature({ headers, body, verificationKeys: keys });
 */
export function webhookVerificationKeys(jwks: unknown): WebhookVerificationKey[] {
  const keys = (jwks as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys)) return [];
  const out: WebhookVerificationKey[] = [];
  for (const k of keys as unknown[]) {
    if (typeof k !== 'object' || k === null) continue;
    const { kid, kty, crv, x } = k as Record<string, unknown>;
    if (typeof kid !== 'string' || kty !== 'OKP' || crv !== 'Ed25519' || typeof x !== 'string') {
      continue;
    }
    const bytes = fromBase64url(x);
    if (bytes?.length !== 32) continue;
    out.push({ keyId: kid, publicKey: bytesToHex(bytes), algorithm: WEBHOOK_SIGNATURE_ALGORITHM });
  }
  return out;
}

/**
 * The server's signer key: the P-256 key that signs export and import bundles (the
 * `enclaveQuorumPublic` clients pin). Its public half is printed by `keyhold serve`.
 * @module
 */

import { type SessionNotarizer, softwareNotarizer } from '@keyhold/keys';
import { type WebhookSigningKey, webhookSigningKey } from '@keyhold/webhooks';
import { p256 } from '@noble/curves/nist.js';
import { hkdf } from '@noble/hashes/hkdf.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';

export interface SignerKey {
  readonly privateKey: Uint8Array;
  /** Uncompressed SEC1 hex (`04…`, 130 characters). */
  readonly publicKey: string;
}

export const SignerKey: unique symbol = Symbol.for('keyhold.SignerKey');

export function signerKeyFrom(privateKey: Uint8Array = p256.utils.randomSecretKey()): SignerKey {
  return { privateKey, publicKey: bytesToHex(p256.getPublicKey(privateKey, false)) };
}

/**
 * The signer key derived from the vault's master key (HKDF-SHA256), so every instance that
 * shares a master key signs bundles with the same key, across restarts, with one secret to
 * manage. 48 bytes of output are reduced to a scalar without bias.
 */
const utf8 = (text: string) => new TextEncoder().encode(text);

export function deriveSignerKey(masterKey: Uint8Array): SignerKey {
  const seed = hkdf(sha256, masterKey, utf8('keyhold'), utf8('keyhold/signer-key/p256/v1'), 48);
  return signerKeyFrom(p256.utils.randomSecretKey(seed));
}

/**
 * The Ed25519 key that signs webhook deliveries, derived from the master key like the signer
 * key (its own HKDF label), so every instance signs with the same key and publishes the same
 * JWKS across restarts.
 * @example
 * deriveWebhookKey(masterKey).keyId; // the RFC 7638 thumbprint, stable for one master key
 */
export function deriveWebhookKey(masterKey: Uint8Array): WebhookSigningKey {
  return webhookSigningKey(
    hkdf(sha256, masterKey, utf8('keyhold'), utf8('keyhold/webhook-key/ed25519/v1'), 32),
  );
}

export const WebhookKey: unique symbol = Symbol.for('keyhold.WebhookKey');

/**
 * The notarizer that signs session JWTs, derived from the master key like the signer key (its
 * own HKDF label), so every instance sharing a master key issues sessions that verify with the
 * same `notarizerPublicKey`, across restarts. With `--vault pkcs11` the notarizer is a key in
 * the token instead (`Pkcs11KeyVault.notarizer()`).
 * @example
 * deriveNotarizer(masterKey).publicKey; // '04…', stable for one master key
 */
export function deriveNotarizer(masterKey: Uint8Array): SessionNotarizer {
  const seed = hkdf(sha256, masterKey, utf8('keyhold'), utf8('keyhold/notarizer-key/p256/v1'), 48);
  return softwareNotarizer(p256.utils.randomSecretKey(seed));
}

/** A notarizer with a random key: sessions it signs die with the process. */
export function randomNotarizer(): SessionNotarizer {
  return softwareNotarizer(p256.utils.randomSecretKey());
}

/** The inversify service identifier of the SessionNotarizer. */
export const Notarizer: unique symbol = Symbol.for('keyhold.Notarizer');

/**
 * The TLS-fetcher signing key: signs OTP target bundles (`otpEncryptionTargetBundle`) and OTP
 * verification tokens, as Turnkey's TLS fetcher does (wire-compat §3.5, §4). Derived from the
 * master key like the signer key (its own HKDF label); its public half is
 * `tlsFetcherSignPublicKey`, the override `encryptOtpCodeToBundle` and
 * `verifyOtpVerificationToken` of `@turnkey/crypto` take.
 * @example
 * deriveTlsFetcherKey(masterKey).publicKey; // '04…', stable for one master key
 */
export function deriveTlsFetcherKey(masterKey: Uint8Array): SignerKey {
  const seed = hkdf(
    sha256,
    masterKey,
    utf8('keyhold'),
    utf8('keyhold/tls-fetcher-sign/p256/v1'),
    48,
  );
  return signerKeyFrom(p256.utils.randomSecretKey(seed));
}

/** The inversify service identifier of the TLS-fetcher signing key (a SignerKey). */
export const TlsFetcherKey: unique symbol = Symbol.for('keyhold.TlsFetcherKey');

/**
 * The TLS-fetcher encryption key: OAuth 2 client secrets arrive encrypted to it
 * (`encryptOauth2ClientSecret` of `@turnkey/crypto` with `tlsFetcherEncryptPublicKey` as its
 * override), and are sealed for storage under a key derived from it. Derived from the master
 * key like the signing key (its own HKDF label), so every instance opens what any one stored.
 * @example
 * deriveTlsFetcherEncryptKey(masterKey).publicKey; // '04…', stable for one master key
 */
export function deriveTlsFetcherEncryptKey(masterKey: Uint8Array): SignerKey {
  const seed = hkdf(
    sha256,
    masterKey,
    utf8('keyhold'),
    utf8('keyhold/tls-fetcher-encrypt/p256/v1'),
    48,
  );
  return signerKeyFrom(p256.utils.randomSecretKey(seed));
}

/** The inversify service identifier of the TLS-fetcher encryption key (a SignerKey). */
export const TlsFetcherEncryptKey: unique symbol = Symbol.for('keyhold.TlsFetcherEncryptKey');

/**
 * The on-ramp encryption key: fiat on-ramp provider secrets arrive encrypted to it
 * (`encryptOnRampSecret` of `@turnkey/crypto` with `onRampEncryptionPublicKey` as its override),
 * and are sealed for storage under a key derived from it. Derived from the master key like the
 * others (its own HKDF label), so every instance opens what any one stored.
 * @example
 * onRampEncryptionPublicKeyOf(deriveOnRampEncryptKey(masterKey)); // '02…' or '03…'
 */
export function deriveOnRampEncryptKey(masterKey: Uint8Array): SignerKey {
  const seed = hkdf(
    sha256,
    masterKey,
    utf8('keyhold'),
    utf8('keyhold/on-ramp-encrypt/p256/v1'),
    48,
  );
  return signerKeyFrom(p256.utils.randomSecretKey(seed));
}

/**
 * The public half of the on-ramp encryption key as `encryptOnRampSecret` takes it: compressed
 * SEC1 hex (66 characters; the helper uncompresses it itself and refuses any other length).
 */
export function onRampEncryptionPublicKeyOf(key: SignerKey): string {
  return bytesToHex(p256.getPublicKey(key.privateKey, true));
}

/** The inversify service identifier of the on-ramp encryption key (a SignerKey). */
export const OnRampEncryptKey: unique symbol = Symbol.for('keyhold.OnRampEncryptKey');

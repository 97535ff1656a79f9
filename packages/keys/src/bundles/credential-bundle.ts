/**
 * The `credentialBundle` of email/OTP auth, read-write sessions and recovery (wire-compat
 * §3.4): base58check (4-byte double-SHA256 checksum) of the compressed ephemeral key (33
 * bytes) ‖ the HPKE ciphertext, with no signature and no organization. `@turnkey/crypto`'s
 * `decryptCredentialBundle(bundle, embeddedKey)` opens it and returns the plaintext as hex.
 * @module
 */
import { p256 } from '@noble/curves/nist.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { concatBytes } from '@noble/hashes/utils.js';
import { createBase58check } from '@scure/base';
import { decodeHex, invalidPublicKey, uncompressedP256 } from './encoding.js';
import { hpkeSeal } from './hpke.js';

const base58check = createBase58check(sha256);

/** Input of `createCredentialBundle`. */
export interface CreateCredentialBundleInput {
  /** What the client receives; for sessions and API keys the new key's 32-byte private key. */
  readonly plaintext: Uint8Array;
  /** The request's `targetPublicKey`: a P-256 key as hex, compressed or uncompressed. */
  readonly targetPublicKey: string;
}

/**
 * The base58check `credentialBundle` of `plaintext` for `targetPublicKey`. A malformed target
 * key is refused with INVALID_PUBLIC_KEY (`field: 'targetPublicKey'`).
 * @example
 * const credentialBundle = await createCredentialBundle({ plaintext: sessionPrivateKey, targetPublicKey });
 */
export async function createCredentialBundle(input: CreateCredentialBundleInput): Promise<string> {
  const { plaintext, targetPublicKey } = input;
  if (!(plaintext instanceof Uint8Array)) throw new TypeError('plaintext must be a Uint8Array');
  const receiver = uncompressedP256(
    decodeHex(targetPublicKey, 'targetPublicKey', invalidPublicKey),
    'targetPublicKey',
    invalidPublicKey,
  );
  const sealed = await hpkeSeal(plaintext, receiver);
  const compressedEncapped = p256.Point.fromBytes(sealed.encappedPublic).toBytes(true);
  return base58check.encode(concatBytes(compressedEncapped, sealed.ciphertext));
}

/**
 * The client signature of wire-compat §1.4, as `@turnkey/core`'s `signWithApiKey` makes it: a
 * raw r ‖ s P-256 signature over sha256(message), by an API key.
 * @module
 */
import { p256 } from '@noble/curves/nist.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';

/**
 * The `clientSignature` member of a login or sign-up intent.
 * @example
 * const clientSignature = clientSignatureFor(sessionKey, loginMessage(sessionKey.publicKey, tokenId));
 */
export function clientSignatureFor(
  key: { readonly privateKey: string; readonly publicKey: string },
  message: string,
) {
  const signature = p256.sign(sha256(utf8ToBytes(message)), hexToBytes(key.privateKey), {
    prehash: false,
  });
  return {
    publicKey: key.publicKey,
    scheme: 'CLIENT_SIGNATURE_SCHEME_API_P256' as const,
    message,
    signature: bytesToHex(signature),
  };
}

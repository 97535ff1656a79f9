/**
 * Stamps request bodies with a P-256 API key, exactly as the published `@turnkey/api-key-stamper`
 * does: ECDSA P-256 over SHA-256 of the body, DER hex, in base64url JSON. Used by the embedded
 * client, the CLI and the benchmarks; OpenSSL signs, so stamping is cheap.
 * @module
 */
import { createPrivateKey, type KeyObject, sign } from 'node:crypto';
import { p256 } from '@noble/curves/nist.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';

export interface ApiKeyPair {
  /** Compressed SEC1, hex. */
  publicKey: string;
  /** 32-byte scalar, hex. */
  privateKey: string;
}

/** A new P-256 API key pair. */
export function generateApiKeyPair(): ApiKeyPair {
  const secret = p256.utils.randomSecretKey();
  return { privateKey: bytesToHex(secret), publicKey: bytesToHex(p256.getPublicKey(secret, true)) };
}

export interface Stamper {
  readonly publicKey: string;
  /** The value of the `X-Stamp` header for `body`. */
  stamp(body: string | Uint8Array): string;
}

/**
 * @example
 * const stamper = createApiKeyStamper(privateKeyHex);
 * fetch(url, { method: 'POST', body, headers: { 'X-Stamp': stamper.stamp(body) } });
 */
export function createApiKeyStamper(privateKeyHex: string): Stamper {
  const secret = hexToBytes(privateKeyHex);
  const point = p256.getPublicKey(secret, false);
  const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');
  const key: KeyObject = createPrivateKey({
    key: {
      kty: 'EC',
      crv: 'P-256',
      d: b64(secret),
      x: b64(point.subarray(1, 33)),
      y: b64(point.subarray(33)),
    },
    format: 'jwk',
  });
  const publicKey = bytesToHex(p256.getPublicKey(secret, true));
  return {
    publicKey,
    stamp(body) {
      const signature = sign('sha256', typeof body === 'string' ? Buffer.from(body) : body, {
        key,
        dsaEncoding: 'der',
      }).toString('hex');
      return Buffer.from(
        JSON.stringify({ publicKey, scheme: 'SIGNATURE_SCHEME_TK_API_P256', signature }),
      ).toString('base64url');
    },
  };
}

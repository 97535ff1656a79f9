/**
 * The API-key stamp (`X-Stamp`): base64url of the JSON `{publicKey, scheme, signature}`.
 * Parsing never depends on key order. Verification runs over the raw body bytes the client
 * signed, never over a re-serialization.
 *
 * `@turnkey/wallet-stamper` sends the same header from a browser wallet: an Ethereum wallet
 * stamps with `SIGNATURE_SCHEME_TK_API_SECP256K1_EIP191` (`personal_sign` of the body, the
 * compressed secp256k1 key, DER with `v` dropped) for an API key of curve SECP256K1; a Solana
 * wallet stamps with `SIGNATURE_SCHEME_TK_API_ED25519` (Ed25519 over the body's UTF-8 bytes)
 * for an API key of curve ED25519.
 * @module
 */
import { type ApiKeyCurve, KeyholdError, type SignatureScheme } from '@keyhold/protocol';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { concatBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { type AttestedStamp, parseAttestedStamp } from './attested-stamp.js';
import type { SignatureVerifier, StampCurve } from './ports/signature-verifier.js';
import { parseWebauthnStamp, type WebauthnStamp } from './webauthn-stamp.js';

/** A parsed API-key stamp (`X-Stamp`). */
export interface ApiKeyStamp {
  kind: 'api-key';
  scheme: SignatureScheme;
  curve: StampCurve;
  apiKeyCurve: ApiKeyCurve;
  /** Lower-case hex. */
  publicKey: string;
  publicKeyBytes: Uint8Array;
  /** Lower-case hex, as the vote record keeps it. */
  signature: string;
  signatureBytes: Uint8Array;
}

const SCHEMES: Record<
  string,
  { curve: StampCurve; apiKeyCurve: ApiKeyCurve; keyHexLength: number }
> = {
  SIGNATURE_SCHEME_TK_API_P256: {
    curve: 'p256',
    apiKeyCurve: 'API_KEY_CURVE_P256',
    keyHexLength: 66,
  },
  SIGNATURE_SCHEME_TK_API_SECP256K1: {
    curve: 'secp256k1',
    apiKeyCurve: 'API_KEY_CURVE_SECP256K1',
    keyHexLength: 66,
  },
  SIGNATURE_SCHEME_TK_API_ED25519: {
    curve: 'ed25519',
    apiKeyCurve: 'API_KEY_CURVE_ED25519',
    keyHexLength: 64,
  },
  SIGNATURE_SCHEME_TK_API_SECP256K1_EIP191: {
    curve: 'secp256k1',
    apiKeyCurve: 'API_KEY_CURVE_SECP256K1',
    keyHexLength: 66,
  },
};

const HEX = /^[0-9a-fA-F]*$/;
const BASE64URL = /^[A-Za-z0-9_-]+={0,2}$/;
/** Real stamps are a few hundred bytes; refuse anything absurd before decoding it. */
const MAX_STAMP_LENGTH = 4096;

/** The stamp a request carries: an API key's, a passkey's, or an attested one (a login). */
export type Stamp = ApiKeyStamp | WebauthnStamp | AttestedStamp;

/**
 * Reads the stamp headers of a request. Header names are lower-case. `X-Stamp` wins when a
 * request carries both.
 * @throws KeyholdError SIGNATURE_MISSING, MALFORMED_STAMP, REQUEST_NOT_AUTHORIZED (a read-only
 *   session and no stamp)
 */
export function parseStamp(headers: Readonly<Record<string, string | undefined>>): Stamp {
  const header = headers['x-stamp'];
  if (header === undefined || header === '') {
    const webauthn = headers['x-stamp-webauthn'];
    if (webauthn !== undefined && webauthn !== '') return parseWebauthnStamp(webauthn);
    const attested = headers['x-stamp-attested'];
    if (attested !== undefined && attested !== '') return parseAttestedStamp(attested);
    if (headers['x-session'] !== undefined && headers['x-session'] !== '') {
      // A read-only session (X-Session) authenticates queries; activities need a stamp.
      throw new KeyholdError('REQUEST_NOT_AUTHORIZED', {
        reason: 'a read-only session (X-Session) may only read; activities need a stamp',
      });
    }
    throw new KeyholdError('SIGNATURE_MISSING');
  }
  if (header.length > MAX_STAMP_LENGTH || !BASE64URL.test(header)) {
    throw new KeyholdError('MALFORMED_STAMP', { reason: 'X-Stamp is not base64url' });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(header, 'base64url').toString('utf8'));
  } catch {
    throw new KeyholdError('MALFORMED_STAMP', { reason: 'X-Stamp is not base64url JSON' });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new KeyholdError('MALFORMED_STAMP', { reason: 'X-Stamp is not a JSON object' });
  }
  const { publicKey, scheme, signature } = parsed as Record<string, unknown>;
  const spec = typeof scheme === 'string' ? SCHEMES[scheme] : undefined;
  if (!spec) throw new KeyholdError('MALFORMED_STAMP', { reason: 'unknown signature scheme' });
  if (
    typeof publicKey !== 'string' ||
    publicKey.length !== spec.keyHexLength ||
    !HEX.test(publicKey)
  ) {
    throw new KeyholdError('MALFORMED_STAMP', {
      reason: 'publicKey is not a hex key of the scheme',
    });
  }
  if (
    typeof signature !== 'string' ||
    signature.length === 0 ||
    signature.length > 256 ||
    signature.length % 2 !== 0 ||
    !HEX.test(signature)
  ) {
    throw new KeyholdError('MALFORMED_STAMP', { reason: 'signature is not hex' });
  }
  return {
    kind: 'api-key',
    scheme: scheme as SignatureScheme,
    curve: spec.curve,
    apiKeyCurve: spec.apiKeyCurve,
    publicKey: publicKey.toLowerCase(),
    publicKeyBytes: Buffer.from(publicKey, 'hex'),
    signature: signature.toLowerCase(),
    signatureBytes: Buffer.from(signature, 'hex'),
  };
}

/**
 * The digest an Ethereum wallet signs for `personal_sign(body)` (EIP-191 version 0x45):
 * keccak-256 of `"\x19Ethereum Signed Message:\n" + byteLength(body) + body`.
 */
export function eip191Digest(rawBody: Uint8Array): Uint8Array {
  const prefix = utf8ToBytes(`\x19Ethereum Signed Message:\n${rawBody.length}`);
  return keccak_256(concatBytes(prefix, rawBody));
}

/**
 * The canonical DER of an ECDSA signature whose INTEGERs may carry superfluous leading zero
 * bytes. `@turnkey/wallet-stamper` converts r‖s to DER without trimming them (its
 * `toDerSignature`), so about one wallet stamp in 256 is not strict DER, which both verifiers
 * refuse. Anything else that is not `SEQUENCE { INTEGER, INTEGER }` answers undefined.
 */
export function canonicalDer(signature: Uint8Array): Uint8Array | undefined {
  if (signature.length < 8 || signature[0] !== 0x30 || signature[1] !== signature.length - 2) {
    return undefined;
  }
  const integers: bigint[] = [];
  let at = 2;
  for (let i = 0; i < 2; i++) {
    const length = signature[at + 1];
    if (signature[at] !== 0x02 || length === undefined || length === 0 || length > 33) {
      return undefined;
    }
    const bytes = signature.subarray(at + 2, at + 2 + length);
    if (bytes.length !== length || (bytes[0]! & 0x80) !== 0) return undefined;
    integers.push(BigInt(`0x${Buffer.from(bytes).toString('hex')}`));
    at += 2 + length;
  }
  if (at !== signature.length) return undefined;
  try {
    return new secp256k1.Signature(integers[0]!, integers[1]!).toBytes('der');
  } catch {
    return undefined;
  }
}

/**
 * Verifies a stamp over the raw body.
 * Ed25519 also accepts a signature over SHA-256(body), which older Go clients produced.
 * EIP-191 verifies the `personal_sign` digest of the body.
 * @throws KeyholdError SIGNATURE_INVALID
 */
export async function verifyStamp(
  verifier: SignatureVerifier,
  stamp: ApiKeyStamp,
  rawBody: Uint8Array,
): Promise<void> {
  const { curve, publicKeyBytes, signatureBytes } = stamp;
  if (stamp.scheme === 'SIGNATURE_SCHEME_TK_API_SECP256K1_EIP191') {
    const der = canonicalDer(signatureBytes);
    const digest = eip191Digest(rawBody);
    if (der && (await verifier.verifyDigest('secp256k1', publicKeyBytes, digest, der))) return;
    throw new KeyholdError('SIGNATURE_INVALID');
  }
  if (await verifier.verify(curve, publicKeyBytes, rawBody, signatureBytes)) return;
  if (curve === 'ed25519') {
    const digest = sha256(rawBody);
    if (await verifier.verify(curve, publicKeyBytes, digest, signatureBytes)) return;
  }
  throw new KeyholdError('SIGNATURE_INVALID');
}

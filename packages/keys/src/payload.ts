/**
 * From a signRawPayload request to the bytes a KeyVault signs. The request carries a payload
 * string, its encoding and a hash function (wire-compat §7.2); this is the single place that
 * decides what those mean, so every signing path (raw payloads, batches, policies that inspect
 * the digest) agrees:
 * - ECDSA curves (secp256k1, P-256) sign a 32-byte digest: SHA256 / KECCAK256 hash the decoded
 *   payload, NO_OP takes it as the digest and so it must be exactly 32 bytes. NOT_APPLICABLE
 *   is refused: ECDSA needs a digest.
 * - Ed25519 signs the message itself: only NOT_APPLICABLE is accepted.
 * - EIP712 (typed-data JSON) and EIP7702_AUTHORIZATION (`{address, chainId, nonce}` JSON): the
 *   server computes the digest (`typed-data.ts`, `eip7702.ts`); the hash function must be NO_OP
 *   (what `@turnkey/viem` sends) or NOT_APPLICABLE, the curve ECDSA (secp256k1 for EIP-7702).
 * @module
 */
import {
  type Curve,
  HASH_FUNCTIONS,
  type HashFunction,
  KeyholdError,
  PAYLOAD_ENCODINGS,
  type PayloadEncoding,
} from '@keyhold/protocol';
import { sha256 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { assertCurve, isEcdsaCurve } from './curves.js';
import { prepareEip7702Payload } from './eip7702.js';
import { prepareEip712Payload } from './typed-data.js';

/** The signing parameters of a raw-payload request. */
export interface PayloadRequest {
  readonly payload: string;
  readonly encoding: PayloadEncoding;
  readonly hashFunction: HashFunction;
  readonly curve: Curve;
}

const HEX_DIGITS = /^[0-9a-fA-F]*$/;

/**
 * The message to hand to `KeyVault.sign`: a 32-byte digest for ECDSA curves, the decoded
 * message for Ed25519. Refuses with INVALID_CURVE, INVALID_PAYLOAD_ENCODING,
 * INVALID_HASH_FUNCTION or INVALID_PAYLOAD (details say why; never the payload itself).
 * @example
 * preparePayload({
 *   payload: '0x68656c6c6f',
 *   encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
 *   hashFunction: 'HASH_FUNCTION_KECCAK256',
 *   curve: 'CURVE_SECP256K1',
 * }); // keccak256("hello"), 32 bytes
 */
export function preparePayload(request: PayloadRequest): Uint8Array {
  const { payload, encoding, hashFunction, curve } = request;
  assertCurve(curve);
  checkEncoding(encoding);
  if (encoding === 'PAYLOAD_ENCODING_EIP712') {
    return prepareEip712Payload({ payload, hashFunction, curve });
  }
  if (encoding === 'PAYLOAD_ENCODING_EIP7702_AUTHORIZATION') {
    return prepareEip7702Payload({ payload, hashFunction, curve });
  }
  checkHashFunction(hashFunction, curve);
  const message = decode(payload, encoding);
  if (message.length === 0) refusePayload('payload is empty');
  switch (hashFunction) {
    case 'HASH_FUNCTION_SHA256':
      return sha256(message);
    case 'HASH_FUNCTION_KECCAK256':
      return keccak_256(message);
    case 'HASH_FUNCTION_NO_OP':
      if (message.length !== 32) {
        refusePayload(
          `HASH_FUNCTION_NO_OP needs the payload to be a 32-byte digest; got ${message.length} bytes`,
        );
      }
      return message;
    default:
      return message;
  }
}

function checkEncoding(encoding: PayloadEncoding): void {
  if (!(PAYLOAD_ENCODINGS as readonly string[]).includes(encoding)) {
    throw new KeyholdError('INVALID_PAYLOAD_ENCODING', {
      encoding: String(encoding).slice(0, 64),
      reason: 'unknown payload encoding',
    });
  }
}

function checkHashFunction(hashFunction: HashFunction, curve: Curve): void {
  if (!(HASH_FUNCTIONS as readonly string[]).includes(hashFunction)) {
    throw new KeyholdError('INVALID_HASH_FUNCTION', {
      hashFunction: String(hashFunction).slice(0, 64),
      reason: 'unknown hash function',
    });
  }
  const notApplicable = hashFunction === 'HASH_FUNCTION_NOT_APPLICABLE';
  if (isEcdsaCurve(curve) && notApplicable) {
    throw new KeyholdError('INVALID_HASH_FUNCTION', {
      hashFunction,
      curve,
      reason: `${curve} signs a digest: use HASH_FUNCTION_NO_OP, SHA256 or KECCAK256`,
    });
  }
  if (!isEcdsaCurve(curve) && !notApplicable) {
    throw new KeyholdError('INVALID_HASH_FUNCTION', {
      hashFunction,
      curve,
      reason: 'CURVE_ED25519 signs the message itself: use HASH_FUNCTION_NOT_APPLICABLE',
    });
  }
}

function decode(payload: string, encoding: PayloadEncoding): Uint8Array {
  if (typeof payload !== 'string') refusePayload('payload must be a string');
  if (encoding === 'PAYLOAD_ENCODING_TEXT_UTF8') return utf8ToBytes(payload);
  const digits = /^0[xX]/.test(payload) ? payload.slice(2) : payload;
  if (!HEX_DIGITS.test(digits)) {
    refusePayload('hexadecimal payload has a character that is not a hex digit');
  }
  if (digits.length % 2 === 1) refusePayload('hexadecimal payload has an odd number of digits');
  return hexToBytes(digits);
}

function refusePayload(reason: string): never {
  throw new KeyholdError('INVALID_PAYLOAD', { reason });
}

/**
 * PAYLOAD_ENCODING_EIP7702_AUTHORIZATION: the payload is the JSON `{address, chainId, nonce}`
 * that `@turnkey/viem`'s `signAuthorization` sends (`JSON.stringify` of viem's parameters), and
 * the server signs the EIP-7702 authorization digest `keccak256(0x05 ‖ rlp([chainId, address,
 * nonce]))` (`ox` `Authorization.getSignPayload`, what viem's `hashAuthorization` computes).
 * The signature's `v` ("00"/"01") is the authorization's `yParity`.
 *
 * - `address`: `0x` + 40 hex digits; mixed case must be a valid EIP-55 checksum.
 * - `chainId`: 0 (any chain) or a chain id; `nonce`: the authority's account nonce, below 2^64.
 *   Either may be a JSON integer (≤ 2^53), a decimal string or a `0x` hex string.
 * - No other members (a member Keyhold does not read could change what the signer meant).
 *
 * Hash function: HASH_FUNCTION_NO_OP (what `@turnkey/viem` sends) or NOT_APPLICABLE; the key must
 * be secp256k1 (an authority is an Ethereum account).
 * @module
 */
import { type Curve, type HashFunction, KeyholdError } from '@keyhold/protocol';
import { hexToBytes } from '@noble/hashes/utils.js';
import * as Address from 'ox/Address';
import * as Authorization from 'ox/Authorization';
import { checkServerHashed } from './typed-data.js';

/** What policies see as `eth.eip_7702_authorization` (wire-compat §5). */
export interface Eip7702AuthorizationView {
  /** The delegate contract, lower-case. */
  readonly address: string;
  readonly chain_id: bigint;
  readonly nonce: bigint;
}

/** A parsed authorization, as `ox` takes it, and its policy view. */
export interface ParsedEip7702Authorization {
  readonly authorization: { address: Address.Address; chainId: number; nonce: bigint };
  readonly view: Eip7702AuthorizationView;
}

const MEMBERS = new Set(['address', 'chainId', 'nonce']);

function refuse(reason: string): never {
  throw new KeyholdError('INVALID_PAYLOAD', { reason });
}

function integer(value: unknown, name: string, max: bigint): bigint {
  let n: bigint | undefined;
  if (typeof value === 'number' && Number.isSafeInteger(value)) n = BigInt(value);
  else if (typeof value === 'string' && /^(0|[1-9][0-9]*|0x[0-9a-fA-F]+)$/.test(value)) {
    n = BigInt(value);
  }
  if (n === undefined || n < 0n) {
    refuse(`${name} must be a non-negative integer (a JSON integer up to 2^53, or a string)`);
  }
  if (n > max) refuse(`${name} is too large`);
  return n;
}

/**
 * Parses an EIP-7702 authorization payload. Refuses with INVALID_PAYLOAD.
 * @example
 * parseEip7702Authorization('{"address":"0x…","chainId":1,"nonce":0}').view.chain_id; // 1n
 */
export function parseEip7702Authorization(payload: string): ParsedEip7702Authorization {
  if (typeof payload !== 'string') refuse('an EIP7702_AUTHORIZATION payload is a JSON string');
  let json: unknown;
  try {
    json = JSON.parse(payload);
  } catch {
    refuse('an EIP7702_AUTHORIZATION payload must be JSON {address, chainId, nonce}');
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    refuse('an EIP7702_AUTHORIZATION payload must be a JSON object {address, chainId, nonce}');
  }
  const object = json as Record<string, unknown>;
  for (const key of Object.keys(object)) {
    if (!MEMBERS.has(key)) refuse(`unexpected member ${key.slice(0, 64)}`);
  }
  for (const key of MEMBERS) if (!(key in object)) refuse(`missing ${key}`);
  const { address } = object;
  if (typeof address !== 'string' || !Address.validate(address, { strict: true })) {
    refuse('address must be 0x and 40 hex digits, with a valid checksum when mixed-case');
  }
  // ox takes the chain id as a JS number.
  const chainId = integer(object.chainId, 'chainId', BigInt(Number.MAX_SAFE_INTEGER));
  const nonce = integer(object.nonce, 'nonce', (1n << 64n) - 1n);
  return {
    authorization: { address: address as Address.Address, chainId: Number(chainId), nonce },
    view: { address: address.toLowerCase(), chain_id: chainId, nonce },
  };
}

/**
 * The EIP-7702 authorization digest of a JSON payload (viem's `hashAuthorization`), 32 bytes.
 * @example
 * hashEip7702Authorization('{"address":"0x…","chainId":1,"nonce":0}').length; // 32
 */
export function hashEip7702Authorization(payload: string): Uint8Array {
  const { authorization } = parseEip7702Authorization(payload);
  return hexToBytes(Authorization.getSignPayload(authorization).slice(2));
}

/**
 * The digest to sign for an EIP7702_AUTHORIZATION raw-payload request, after the hash-function
 * and curve checks. Used by `preparePayload`.
 * @example
 * prepareEip7702Payload({ payload, hashFunction: 'HASH_FUNCTION_NO_OP', curve: 'CURVE_SECP256K1' });
 */
export function prepareEip7702Payload(request: {
  payload: string;
  hashFunction: HashFunction;
  curve: Curve;
}): Uint8Array {
  checkServerHashed(
    'PAYLOAD_ENCODING_EIP7702_AUTHORIZATION',
    request.hashFunction,
    request.curve,
    true,
  );
  return hashEip7702Authorization(request.payload);
}

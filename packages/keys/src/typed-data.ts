/**
 * PAYLOAD_ENCODING_EIP712: the payload is EIP-712 typed data as JSON — what `@turnkey/viem`'s
 * `signTypedData` sends, viem's `serializeTypedData` output `{domain, message, primaryType,
 * types}` with bigints as decimal strings — and the server computes the digest
 * `keccak256(0x1901 ‖ domainSeparator ‖ hashStruct(message))` with `ox` `TypedData`, the same
 * code path as viem's `hashTypedData`. When `types.EIP712Domain` is absent its fields are
 * inferred from the domain, as viem does.
 *
 * The hash function must say "the server hashes": HASH_FUNCTION_NO_OP (what `@turnkey/viem`
 * sends) or HASH_FUNCTION_NOT_APPLICABLE; SHA256 / KECCAK256 would hash the JSON text and are
 * refused (INVALID_HASH_FUNCTION). The digest is signed with an ECDSA key (secp256k1, or P-256
 * for P-256 smart accounts); Ed25519 is INVALID_CURVE.
 *
 * JSON numbers above 2^53 are refused: `JSON.parse` would silently round them, and the key
 * would sign a value nobody sent. Send large integers as decimal or hex strings.
 * @module
 */
import { type Curve, HASH_FUNCTIONS, type HashFunction, KeyholdError } from '@keyhold/protocol';
import { hexToBytes } from '@noble/hashes/utils.js';
import * as TypedData from 'ox/TypedData';
import { assertCurve, isEcdsaCurve } from './curves.js';

/** What policies see as `eth.eip_712` (wire-compat §5). */
export interface Eip712View {
  readonly primary_type: string;
  readonly domain: {
    readonly name?: string;
    readonly version?: string;
    readonly chain_id?: bigint;
    readonly verifying_contract?: string;
    readonly salt?: string;
  };
  /**
   * The message with the values its types declare, in the engine's forms: `uintN`/`intN` as
   * bigint (viem sends them as decimal strings), `address` and `bytes…` lower-case hex, structs
   * as objects and arrays as lists. Members the types do not declare are left out: the digest
   * does not cover them, so no policy may read them.
   */
  readonly message: Record<string, unknown>;
}

/** Parsed typed data: the definition `ox` hashes, and the policy view. */
export interface ParsedTypedData {
  readonly definition: TypedData.Definition<Record<string, unknown>, string>;
  readonly view: Eip712View;
}

function refuse(reason: string): never {
  throw new KeyholdError('INVALID_PAYLOAD', { reason });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Refuses integers JSON.parse cannot have kept exactly. */
function checkNumbers(value: unknown, path: string): void {
  if (typeof value === 'number') {
    if (Number.isInteger(value) && !Number.isSafeInteger(value)) {
      refuse(`${path} is a JSON number above 2^53; send it as a string`);
    }
  } else if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) checkNumbers(item, `${path}[${i}]`);
  } else if (isObject(value)) {
    for (const [key, item] of Object.entries(value)) checkNumbers(item, `${path}.${key}`);
  }
}

/**
 * Parses and validates an EIP-712 JSON payload. Refuses with INVALID_PAYLOAD (a `reason` says
 * what is wrong).
 * @example
 * parseTypedData(serializeTypedData(typedData)).view.primary_type; // 'Mail'
 */
export function parseTypedData(payload: string): ParsedTypedData {
  if (typeof payload !== 'string') refuse('an EIP712 payload is a JSON string');
  let json: unknown;
  try {
    json = JSON.parse(payload);
  } catch {
    refuse('an EIP712 payload must be JSON typed data');
  }
  if (!isObject(json)) refuse('EIP712 typed data must be a JSON object');
  const { types, primaryType, domain = {}, message } = json;
  if (!isObject(types)) refuse('EIP712 typed data needs a "types" object');
  for (const [name, fields] of Object.entries(types)) {
    const ok =
      Array.isArray(fields) &&
      fields.every((f) => isObject(f) && typeof f.name === 'string' && typeof f.type === 'string');
    if (!ok) refuse(`types.${name} must be a list of {name, type}`);
  }
  if (typeof primaryType !== 'string') refuse('EIP712 typed data needs a "primaryType" string');
  if (primaryType !== 'EIP712Domain' && !Object.hasOwn(types, primaryType)) {
    refuse(`primaryType ${primaryType.slice(0, 64)} is not one of the types`);
  }
  if (!isObject(domain)) refuse('"domain" must be an object');
  if (primaryType !== 'EIP712Domain' && !isObject(message)) {
    refuse('EIP712 typed data needs a "message" object');
  }
  checkNumbers(domain, 'domain');
  checkNumbers(message, 'message');
  const definition = {
    types,
    primaryType,
    domain,
    ...(message !== undefined ? { message } : {}),
  } as unknown as TypedData.Definition<Record<string, unknown>, string>;
  try {
    TypedData.assert(definition as never);
  } catch (error) {
    refuse(`invalid EIP712 typed data: ${firstLine(error)}`);
  }
  return {
    definition,
    view: viewOf(types as TypeTable, primaryType, domain, isObject(message) ? message : {}),
  };
}

/**
 * The EIP-712 digest of a JSON payload (viem's `hashTypedData`), 32 bytes.
 * @example
 * bytesToHex(hashTypedDataPayload(serializeTypedData(typedData))) === hashTypedData(typedData).slice(2);
 */
export function hashTypedDataPayload(payload: string): Uint8Array {
  const { definition } = parseTypedData(payload);
  let digest: string;
  try {
    digest = TypedData.getSignPayload(definition as never);
  } catch (error) {
    refuse(`invalid EIP712 typed data: ${firstLine(error)}`);
  }
  return hexToBytes(digest.slice(2));
}

/**
 * The digest to sign for an EIP712 raw-payload request, after the hash-function and curve checks
 * (see the module comment). Used by `preparePayload`.
 * @example
 * prepareEip712Payload({ payload, hashFunction: 'HASH_FUNCTION_NO_OP', curve: 'CURVE_SECP256K1' });
 */
export function prepareEip712Payload(request: {
  payload: string;
  hashFunction: HashFunction;
  curve: Curve;
}): Uint8Array {
  checkServerHashed('PAYLOAD_ENCODING_EIP712', request.hashFunction, request.curve, false);
  return hashTypedDataPayload(request.payload);
}

/**
 * The shared checks of the two encodings the server hashes: an ECDSA curve (secp256k1 only when
 * `secp256k1Only`), and NO_OP or NOT_APPLICABLE. Internal to this package.
 */
export function checkServerHashed(
  encoding: string,
  hashFunction: HashFunction,
  curve: Curve,
  secp256k1Only: boolean,
): void {
  assertCurve(curve);
  if (!isEcdsaCurve(curve) || (secp256k1Only && curve !== 'CURVE_SECP256K1')) {
    throw new KeyholdError('INVALID_CURVE', {
      curve,
      reason: `${encoding} is signed with ${secp256k1Only ? 'CURVE_SECP256K1' : 'an ECDSA curve'}`,
    });
  }
  if (!(HASH_FUNCTIONS as readonly string[]).includes(hashFunction)) {
    throw new KeyholdError('INVALID_HASH_FUNCTION', {
      hashFunction: String(hashFunction).slice(0, 64),
      reason: 'unknown hash function',
    });
  }
  if (hashFunction !== 'HASH_FUNCTION_NO_OP' && hashFunction !== 'HASH_FUNCTION_NOT_APPLICABLE') {
    throw new KeyholdError('INVALID_HASH_FUNCTION', {
      hashFunction,
      reason: `the server computes the digest of ${encoding}: use HASH_FUNCTION_NO_OP`,
    });
  }
}

type TypeTable = Readonly<Record<string, readonly { name: string; type: string }[]>>;

function viewOf(
  types: TypeTable,
  primaryType: string,
  domain: Record<string, unknown>,
  message: Record<string, unknown>,
): Eip712View {
  // A declared EIP712Domain says which domain fields the digest covers; without one, viem (and
  // so ox) infers it from the fields present.
  const declared = types.EIP712Domain;
  const covers = (field: string) =>
    domain[field] !== undefined && (!declared || declared.some((f) => f.name === field));
  const d: Record<string, unknown> = {};
  if (covers('name') && typeof domain.name === 'string') d.name = domain.name;
  if (covers('version') && typeof domain.version === 'string') d.version = domain.version;
  if (covers('chainId')) {
    try {
      d.chain_id = BigInt(domain.chainId as string | number);
    } catch {
      // validated by TypedData.assert; an odd form stays out of the view
    }
  }
  if (covers('verifyingContract') && typeof domain.verifyingContract === 'string') {
    d.verifying_contract = domain.verifyingContract.toLowerCase();
  }
  if (covers('salt') && typeof domain.salt === 'string') d.salt = domain.salt.toLowerCase();
  const typed = primaryType === 'EIP712Domain' ? {} : typedValue(types, primaryType, message);
  return { primary_type: primaryType, domain: d, message: typed as Record<string, unknown> };
}

const INTEGER = /^u?int[0-9]*$/;
const HEX_VALUED = /^(address|bytes[0-9]*)$/;

/** A value of EIP-712 type `type`, as policies read it (see {@link Eip712View.message}). */
function typedValue(types: TypeTable, type: string, value: unknown): unknown {
  const array = /^(.+)\[[0-9]*\]$/.exec(type);
  if (array) {
    return Array.isArray(value) ? value.map((item) => typedValue(types, array[1]!, item)) : value;
  }
  const fields = Object.hasOwn(types, type) ? types[type] : undefined;
  if (fields) {
    if (!isObject(value)) return value;
    const out: Record<string, unknown> = {};
    for (const f of fields) {
      if (value[f.name] !== undefined) out[f.name] = typedValue(types, f.type, value[f.name]);
    }
    return out;
  }
  if (INTEGER.test(type) && (typeof value === 'string' || typeof value === 'number')) {
    try {
      return BigInt(value);
    } catch {
      return value; // TypedData.assert refused anything that does not hash
    }
  }
  if (HEX_VALUED.test(type) && typeof value === 'string') return value.toLowerCase();
  return value;
}

function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return (text.split('\n')[0] ?? '').slice(0, 200);
}

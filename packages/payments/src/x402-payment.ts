/**
 * Reading an x402 facilitator request (`{x402Version, paymentPayload, paymentRequirements}`,
 * v1 or v2) for the "exact" scheme on EVM into one normalized payment, refusing what the
 * gateway cannot take with the payment gateway's errorCodes: a malformed body
 * (PAYMENT_REQUEST_INVALID), versions that disagree (PAYMENT_PROTOCOL_MISMATCH), another
 * network than the path's (PAYMENT_NETWORK_MISMATCH), a scheme or asset it does not settle
 * (PAYMENT_REQUIREMENTS_UNSUPPORTED), a v2 payload signed for other requirements
 * (PAYMENT_REVISION_MISMATCH). What is wrong with the authorization itself is not refused here:
 * verification answers it as x402 does, `isValid: false` with a reason.
 * @module
 */
import { PayError } from '@keyhold/pay-errors';
import { type Address, getAddress, type Hex, isAddress, isHex } from 'viem';
import { canonicalDigest } from './canonical-json.js';
import type { PayNetworkInfo } from './pay-networks.js';

/**
 * The EIP-3009 authorization a payer signed.
 * @example
 * const { from, value, validBefore } = payment.authorization; // value: 10000n
 */
export interface Eip3009Authorization {
  readonly from: Address;
  readonly to: Address;
  readonly value: bigint;
  readonly validAfter: bigint;
  readonly validBefore: bigint;
  readonly nonce: Hex;
}

/**
 * The requirements a payment must meet, normalized across x402 versions (v1's
 * `maxAmountRequired` is `amount`).
 * @example
 * payment.requirements.amount; // 10000n
 */
export interface ExactEvmRequirements {
  readonly scheme: string;
  readonly amount: bigint;
  readonly asset: Address;
  readonly payTo: Address;
  readonly maxTimeoutSeconds: number;
  /** The token's EIP-712 domain name and version (`extra.name`, `extra.version`). */
  readonly name?: string;
  readonly version?: string;
}

/**
 * One "exact" EVM payment, read from a facilitator request.
 * @example
 * const payment: ExactEvmPayment = readExactEvmPayment(body, PAY_NETWORKS['base-sepolia']);
 */
export interface ExactEvmPayment {
  readonly x402Version: 1 | 2;
  readonly network: PayNetworkInfo;
  readonly requirements: ExactEvmRequirements;
  readonly authorization: Eip3009Authorization;
  readonly signature: Hex;
  /** The x402 `payment-identifier` (v2 `extensions`), when the payload carries one. */
  readonly paymentIdentifier?: string;
  /** Digest of the payload and requirements: the same id with another digest is a conflict. */
  readonly payloadHash: string;
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const invalid = (reason: string): PayError => new PayError('PAYMENT_REQUEST_INVALID', { reason });

function object(parent: Json, key: string, where: string): Json {
  const value = parent[key];
  if (!isObject(value)) throw invalid(`${where}${key} must be an object`);
  return value;
}

function text(parent: Json, key: string, where: string): string {
  const value = parent[key];
  if (typeof value !== 'string' || value.length === 0 || value.length > 256) {
    throw invalid(`${where}${key} must be a non-empty string`);
  }
  return value;
}

function uint(parent: Json, key: string, where: string): bigint {
  const value = parent[key];
  // Decimal strings, as x402 sends every amount and time; numbers tolerated when they are safe.
  const digits =
    typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? String(value) : value;
  if (typeof digits !== 'string' || !/^(0|[1-9][0-9]{0,77})$/.test(digits)) {
    throw invalid(`${where}${key} must be an unsigned integer in a decimal string`);
  }
  return BigInt(digits);
}

function address(parent: Json, key: string, where: string): Address {
  const value = text(parent, key, where);
  if (!isAddress(value, { strict: false })) throw invalid(`${where}${key} must be an address`);
  return getAddress(value);
}

/** The x402 `payment-identifier` id rule: 16–128 of `[A-Za-z0-9_-]`. */
const PAYMENT_IDENTIFIER = /^[A-Za-z0-9_-]{16,128}$/;

function paymentIdentifierOf(payload: Json): string | undefined {
  const extensions = payload.extensions;
  if (extensions === undefined || extensions === null) return undefined;
  if (!isObject(extensions)) throw invalid('paymentPayload.extensions must be an object');
  const extension = extensions['payment-identifier'];
  if (extension === undefined) return undefined;
  const id = isObject(extension) && isObject(extension.info) ? extension.info.id : undefined;
  if (id === undefined) return undefined;
  if (typeof id !== 'string' || !PAYMENT_IDENTIFIER.test(id)) {
    throw invalid('payment-identifier id must be 16 to 128 of A-Z a-z 0-9 _ -');
  }
  return id;
}

function requirementsOf(
  req: Json,
  version: 1 | 2,
  network: PayNetworkInfo,
  where: string,
): ExactEvmRequirements {
  const networkName = text(req, 'network', where);
  const expected = version === 2 ? network.caip2 : network.v1Name;
  if (networkName !== expected) {
    throw new PayError('PAYMENT_NETWORK_MISMATCH', {
      reason: `${where}network is ${networkName}, the path's is ${expected}`,
    });
  }
  const extra = req.extra === undefined || req.extra === null ? {} : req.extra;
  if (!isObject(extra)) throw invalid(`${where}extra must be an object`);
  const maxTimeoutSeconds = req.maxTimeoutSeconds;
  if (
    typeof maxTimeoutSeconds !== 'number' ||
    !Number.isSafeInteger(maxTimeoutSeconds) ||
    maxTimeoutSeconds < 0
  ) {
    throw invalid(`${where}maxTimeoutSeconds must be a non-negative integer`);
  }
  const name = typeof extra.name === 'string' ? extra.name : undefined;
  const tokenVersion = typeof extra.version === 'string' ? extra.version : undefined;
  const method = extra.assetTransferMethod;
  if (method !== undefined && method !== 'eip3009') {
    throw new PayError('PAYMENT_REQUIREMENTS_UNSUPPORTED', {
      reason: `assetTransferMethod ${String(method)} is not supported; only eip3009`,
    });
  }
  return {
    scheme: text(req, 'scheme', where),
    amount: uint(req, version === 2 ? 'amount' : 'maxAmountRequired', where),
    asset: address(req, 'asset', where),
    payTo: address(req, 'payTo', where),
    maxTimeoutSeconds,
    ...(name !== undefined ? { name } : {}),
    ...(tokenVersion !== undefined ? { version: tokenVersion } : {}),
  };
}

/** Whether two requirements ask for the same payment (v2 `accepted` against the request's). */
function sameRequirements(a: ExactEvmRequirements, b: ExactEvmRequirements): boolean {
  return (
    a.scheme === b.scheme &&
    a.amount === b.amount &&
    a.asset === b.asset &&
    a.payTo === b.payTo &&
    a.name === b.name &&
    a.version === b.version
  );
}

/**
 * The payment a facilitator request body describes, for the network of the path.
 * @throws PayError PAYMENT_REQUEST_INVALID, PAYMENT_PROTOCOL_MISMATCH, PAYMENT_NETWORK_MISMATCH,
 * PAYMENT_REQUIREMENTS_UNSUPPORTED, PAYMENT_REVISION_MISMATCH
 * @example
 * const payment = readExactEvmPayment(JSON.parse(body), PAY_NETWORKS['base-sepolia']);
 * payment.authorization.value; // 10000n
 */
export function readExactEvmPayment(body: unknown, network: PayNetworkInfo): ExactEvmPayment {
  if (!isObject(body)) throw invalid('the body must be a JSON object');
  const payload = object(body, 'paymentPayload', '');
  const req = object(body, 'paymentRequirements', '');
  const version = payload.x402Version;
  if (version !== 1 && version !== 2) {
    throw new PayError('PAYMENT_PROTOCOL_MISMATCH', {
      reason: `paymentPayload.x402Version ${String(version)} is not supported (1 or 2)`,
    });
  }
  // The v1 bodies of some clients carry no top-level version; when present it must agree.
  if (body.x402Version !== undefined && body.x402Version !== version) {
    throw new PayError('PAYMENT_PROTOCOL_MISMATCH', {
      reason: `x402Version ${String(body.x402Version)} is not paymentPayload.x402Version ${version}`,
    });
  }
  const requirements = requirementsOf(req, version, network, 'paymentRequirements.');
  if (version === 2) {
    const accepted = requirementsOf(
      object(payload, 'accepted', 'paymentPayload.'),
      2,
      network,
      'paymentPayload.accepted.',
    );
    if (!sameRequirements(accepted, requirements)) {
      throw new PayError('PAYMENT_REVISION_MISMATCH', {
        reason: 'paymentPayload.accepted is not paymentRequirements',
      });
    }
  } else {
    const payloadNetwork = text(payload, 'network', 'paymentPayload.');
    if (payloadNetwork !== network.v1Name) {
      throw new PayError('PAYMENT_NETWORK_MISMATCH', {
        reason: `paymentPayload.network is ${payloadNetwork}, the path's is ${network.v1Name}`,
      });
    }
    if (text(payload, 'scheme', 'paymentPayload.') !== requirements.scheme) {
      throw new PayError('PAYMENT_REVISION_MISMATCH', {
        reason: 'paymentPayload.scheme is not paymentRequirements.scheme',
      });
    }
  }
  if (requirements.scheme !== 'exact') {
    throw new PayError('PAYMENT_REQUIREMENTS_UNSUPPORTED', {
      reason: `scheme ${requirements.scheme} is not supported; only exact`,
    });
  }
  if (requirements.asset !== network.usdc.address) {
    throw new PayError('PAYMENT_REQUIREMENTS_UNSUPPORTED', {
      reason: `asset ${requirements.asset} is not supported on ${network.network}; only ${network.usdc.address}`,
    });
  }
  const exact = object(payload, 'payload', 'paymentPayload.');
  const signature = text(exact, 'signature', 'paymentPayload.payload.');
  if (!isHex(signature) || signature.length < 132 || signature.length % 2 !== 0) {
    throw invalid('paymentPayload.payload.signature must be a hex signature');
  }
  const auth = object(exact, 'authorization', 'paymentPayload.payload.');
  const at = 'paymentPayload.payload.authorization.';
  const nonce = text(auth, 'nonce', at);
  if (!isHex(nonce) || nonce.length !== 66) throw invalid(`${at}nonce must be 32 bytes of hex`);
  const paymentIdentifier = version === 2 ? paymentIdentifierOf(payload) : undefined;
  return {
    x402Version: version,
    network,
    requirements,
    authorization: {
      from: address(auth, 'from', at),
      to: address(auth, 'to', at),
      value: uint(auth, 'value', at),
      validAfter: uint(auth, 'validAfter', at),
      validBefore: uint(auth, 'validBefore', at),
      nonce: nonce.toLowerCase() as Hex,
    },
    signature: signature as Hex,
    ...(paymentIdentifier !== undefined ? { paymentIdentifier } : {}),
    payloadHash: canonicalDigest({ paymentPayload: payload, paymentRequirements: req }),
  };
}

/**
 * The key no two payments share: one authorization of one payer on one token of one chain.
 * @example
 * authorizationKeyOf(payment); // '84532:0x036c…:0xab…:0x5f…'
 */
export function authorizationKeyOf(payment: ExactEvmPayment): string {
  const { chainId } = payment.network;
  const { from, nonce } = payment.authorization;
  return `${chainId}:${payment.requirements.asset}:${from}:${nonce}`.toLowerCase();
}

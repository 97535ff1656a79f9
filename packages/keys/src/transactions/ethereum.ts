/**
 * TRANSACTION_TYPE_ETHEREUM: an unsigned serialized transaction in, the signed one out, all
 * encoding by `ox` (TxEnvelope*, Rlp, Signature).
 *
 * Accepted: legacy (RLP list of 6 fields, pre-EIP-155, or 9 with `chainId, 0, 0`, EIP-155),
 * EIP-2930 (`0x01`), EIP-1559 (`0x02`), EIP-4844 (`0x03`, the transaction body only: the blob
 * sidecar is not signed, and a network wrapper with blobs is refused) and EIP-7702 (`0x04`).
 * The signing payload is `keccak256` of the unsigned serialization (legacy: with `chainId, 0, 0`
 * per EIP-155), the signature is low-S, and legacy `v` is `chainId * 2 + 35 + yParity` (27/28
 * without a chain id); typed transactions carry `yParity`.
 *
 * Refused with "failed to parse transaction": anything RLP cannot decode or that has trailing
 * bytes, an unknown type byte (including Tempo `0x76` and EIP-8141 frames), the wrong number of
 * fields, and a transaction that already carries a signature (r, s, v / yParity) — signing it
 * again would silently replace someone's signature.
 * @module
 */
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import type * as Hex from 'ox/Hex';
import * as Rlp from 'ox/Rlp';
import * as TxEnvelope from 'ox/TxEnvelope';
import type { TxEnvelopeEip1559 } from 'ox/TxEnvelopeEip1559';
import type { TxEnvelopeEip2930 } from 'ox/TxEnvelopeEip2930';
import type { TxEnvelopeEip4844 } from 'ox/TxEnvelopeEip4844';
import type { TxEnvelopeEip7702 } from 'ox/TxEnvelopeEip7702';
import type { TxEnvelopeLegacy } from 'ox/TxEnvelopeLegacy';
import { type DigestSigner, signRecoverable } from './secp256k1-signature.js';
import { failedToParse, reasonOf } from './transaction-input.js';

/** The envelope types Keyhold signs (ox's names). */
export type EthereumTransactionType = 'legacy' | 'eip2930' | 'eip1559' | 'eip4844' | 'eip7702';

/**
 * What policies see as `eth.tx` (wire-compat §5), snake_case, integers as bigint, hex strings
 * lower-case with `0x`. `from` is the signer's address, unknown until a key is chosen, so
 * parsing leaves it out; `function_name`, `function_signature` and `contract_call_args` need an
 * ABI and are left out too. Fields a type does not have are absent.
 */
export interface EthereumTransactionView {
  readonly type: EthereumTransactionType;
  readonly chain_id?: bigint;
  readonly nonce: bigint;
  /** Absent for contract creation. */
  readonly to?: string;
  readonly value: bigint;
  /** Call data, `0x` when empty. */
  readonly data: string;
  readonly gas: bigint;
  readonly gas_price?: bigint;
  readonly max_fee_per_gas?: bigint;
  readonly max_priority_fee_per_gas?: bigint;
  readonly max_fee_per_blob_gas?: bigint;
  readonly access_list?: readonly { address: string; storage_keys: readonly string[] }[];
  readonly blob_versioned_hashes?: readonly string[];
  readonly authorization_list?: readonly { address: string; chain_id: bigint; nonce: bigint }[];
}

/** The ox envelopes of the types Keyhold signs. */
export type EthereumEnvelope =
  | TxEnvelopeLegacy
  | TxEnvelopeEip2930
  | TxEnvelopeEip1559
  | TxEnvelopeEip4844
  | TxEnvelopeEip7702;

/** A decoded unsigned Ethereum transaction. */
export interface ParsedEthereumTransaction {
  readonly chain: 'ethereum';
  readonly view: EthereumTransactionView;
  /** The ox envelope, unsigned. */
  readonly envelope: EthereumEnvelope;
}

/** RLP field counts per type: [unsigned, signed]. */
const FIELDS: Readonly<Record<EthereumTransactionType, readonly [number, number]>> = {
  legacy: [6, 9],
  eip2930: [8, 11],
  eip1559: [9, 12],
  eip4844: [11, 14],
  eip7702: [10, 13],
};

const TYPE_BYTES: Readonly<Record<number, EthereumTransactionType>> = {
  1: 'eip2930',
  2: 'eip1559',
  3: 'eip4844',
  4: 'eip7702',
};

/**
 * Decodes an unsigned Ethereum transaction. Throws INVALID_TRANSACTION.
 * @example
 * parseEthereumTransaction(bytes).view.chain_id; // 1n
 */
export function parseEthereumTransaction(bytes: Uint8Array): ParsedEthereumTransaction {
  const first = bytes[0]!;
  const type: EthereumTransactionType | undefined = first >= 0xc0 ? 'legacy' : TYPE_BYTES[first];
  if (type === undefined) {
    failedToParse(`unknown Ethereum transaction type 0x${first.toString(16).padStart(2, '0')}`);
  }
  const body = type === 'legacy' ? bytes : bytes.subarray(1);
  let fields: unknown;
  try {
    fields = Rlp.toBytes(body);
  } catch (error) {
    failedToParse(`not RLP: ${reasonOf(error)}`);
  }
  if (!Array.isArray(fields)) failedToParse('the transaction is not an RLP list');
  const [unsigned, signed] = FIELDS[type];
  if (type === 'eip4844' && fields.length === 5 && Array.isArray(fields[0])) {
    failedToParse('an EIP-4844 network wrapper with blobs: send the transaction body only');
  }
  if (type === 'legacy' && fields.length === signed) {
    const [, r, s] = fields.slice(6) as Uint8Array[];
    if (!(r instanceof Uint8Array && s instanceof Uint8Array) || r.length > 0 || s.length > 0) {
      failedToParse('the transaction already carries a signature (r, s, v)');
    }
  } else if (fields.length === signed) {
    failedToParse('the transaction already carries a signature (r, s, yParity)');
  } else if (fields.length !== unsigned) {
    failedToParse(`a ${type} transaction has ${unsigned} fields; got ${fields.length}`);
  }
  let envelope: EthereumEnvelope;
  try {
    envelope = TxEnvelope.deserialize(`0x${bytesToHex(bytes)}` as Hex.Hex) as EthereumEnvelope;
  } catch (error) {
    failedToParse(reasonOf(error));
  }
  if (envelope.r !== undefined || envelope.s !== undefined) {
    failedToParse('the transaction already carries a signature (r, s, v)');
  }
  return { chain: 'ethereum', view: viewOf(type, envelope), envelope };
}

/**
 * Signs a parsed Ethereum transaction with a secp256k1 key and returns the signed serialization.
 * `publicKey` is the key `sign` signs with (any SEC1 form); the recovery id is checked against it.
 * @example
 * const signed = await signEthereumTransaction(parsed, publicKey, (d) => vault.sign(key, curve, d));
 */
export async function signEthereumTransaction(
  parsed: ParsedEthereumTransaction,
  publicKey: Uint8Array,
  sign: DigestSigner,
): Promise<Uint8Array> {
  const digest = hexToBytes(TxEnvelope.getSignPayload(parsed.envelope).slice(2));
  const signature = await signRecoverable(sign, digest, publicKey);
  const serialized = TxEnvelope.serialize(parsed.envelope, {
    signature: {
      r: `0x${signature.r.toString(16).padStart(64, '0')}`,
      s: `0x${signature.s.toString(16).padStart(64, '0')}`,
      yParity: signature.recovery,
    },
  });
  return hexToBytes(serialized.slice(2));
}

function viewOf(type: EthereumTransactionType, e: EthereumEnvelope): EthereumTransactionView {
  const extra = e as EthereumEnvelope & {
    gasPrice?: bigint;
    maxFeePerGas?: bigint;
    maxPriorityFeePerGas?: bigint;
    maxFeePerBlobGas?: bigint;
    accessList?: readonly { address: string; storageKeys: readonly string[] }[];
    blobVersionedHashes?: readonly string[];
    authorizationList?: readonly { address: string; chainId: number; nonce: bigint }[];
  };
  const view: Record<string, unknown> = {
    type,
    nonce: e.nonce ?? 0n,
    value: e.value ?? 0n,
    data: e.data ?? '0x',
    gas: e.gas ?? 0n,
  };
  if (e.chainId !== undefined) view.chain_id = BigInt(e.chainId);
  if (e.to) view.to = e.to.toLowerCase();
  if (type === 'legacy' || type === 'eip2930') view.gas_price = extra.gasPrice ?? 0n;
  if (type === 'eip1559' || type === 'eip4844' || type === 'eip7702') {
    view.max_fee_per_gas = extra.maxFeePerGas ?? 0n;
    view.max_priority_fee_per_gas = extra.maxPriorityFeePerGas ?? 0n;
  }
  if (type === 'eip4844') {
    view.max_fee_per_blob_gas = extra.maxFeePerBlobGas ?? 0n;
    view.blob_versioned_hashes = [...(extra.blobVersionedHashes ?? [])];
  }
  if (type !== 'legacy') {
    view.access_list = (extra.accessList ?? []).map((item) => ({
      address: item.address.toLowerCase(),
      storage_keys: [...item.storageKeys],
    }));
  }
  if (type === 'eip7702') {
    view.authorization_list = (extra.authorizationList ?? []).map((a) => ({
      address: a.address.toLowerCase(),
      chain_id: BigInt(a.chainId),
      nonce: BigInt(a.nonce),
    }));
  }
  return view as unknown as EthereumTransactionView;
}

/**
 * TRANSACTION_TYPE_TRON: the input is `raw_data_hex` (the protobuf `Transaction.raw`, as TronWeb's
 * `transactionBuilder` returns it); the output is the protobuf `Transaction` with the signature,
 * the hex that TronWeb's `trx.sendHexTransaction` broadcasts.
 *
 * - txID = SHA-256(raw_data); the key signs that digest with secp256k1.
 * - The signature is 65 bytes `r ‖ s ‖ v` with `v = 27 + recovery id`: TronWeb's `ECKeySign`
 *   (`utils/crypto`) writes `signature.recovery + 27`, and java-tron's recovery accepts both
 *   0/1 and 27/28, so 27/28 is the form every client takes.
 * - `Transaction { raw raw_data = 1; repeated bytes signature = 2; }`: the output is
 *   `0a len raw_data 12 41 signature` (field 1 and field 2, length-delimited).
 *
 * The raw data is read as protobuf (java-tron `core/Tron.proto`, `core/contract/*.proto`): the
 * wire format must be well formed, known fields must have their declared wire type, and there
 * must be at least one contract. The contracts policies read most are decoded (transfers, TRC-10
 * transfers, smart-contract calls, staking and delegation); others keep their `type` and
 * parameter bytes. Addresses are base58check (`T…`).
 * @module
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, concatBytes } from '@noble/hashes/utils.js';
import { base58check } from '../address-bitcoin.js';
import { compactSignature, type DigestSigner, signRecoverable } from './secp256k1-signature.js';
import { failedToParse } from './transaction-input.js';

/** A Tron permission (AccountPermissionUpdateContract). */
export interface TronPermissionView {
  readonly type: string;
  readonly id: bigint;
  readonly permission_name: string;
  readonly threshold: bigint;
  readonly parent_id: bigint;
  readonly operations: string;
  readonly keys: readonly { address: string; weight: bigint }[];
}

/** One contract of `raw_data.contract`, with the fields of its decoded parameter. */
export interface TronContractView {
  readonly type: string;
  readonly permission_id: bigint;
  /** `google.protobuf.Any.type_url` of the parameter. */
  readonly type_url: string;
  /** The parameter's bytes, hex. */
  readonly parameter_hex: string;
  readonly owner_address?: string;
  readonly to_address?: string;
  readonly amount?: bigint;
  readonly asset_name?: string;
  readonly contract_address?: string;
  readonly call_value?: bigint;
  readonly data?: string;
  readonly call_token_value?: bigint;
  readonly token_id?: bigint;
  readonly resource?: string;
  readonly balance?: bigint;
  readonly receiver_address?: string;
  readonly lock?: boolean;
  readonly lock_period?: bigint;
  readonly frozen_balance?: bigint;
  readonly unfreeze_balance?: bigint;
  readonly owner?: TronPermissionView;
  readonly witness?: TronPermissionView;
  readonly actives?: readonly TronPermissionView[];
}

/** What policies see as `tron.tx` (wire-compat §5; docs example `tron.tx.contract[0].amount`). */
export interface TronTransactionView {
  /** The transaction id: SHA-256 of raw_data, hex. */
  readonly tx_id: string;
  readonly ref_block_bytes: string;
  readonly ref_block_num?: bigint;
  readonly ref_block_hash: string;
  readonly expiration: bigint;
  readonly timestamp?: bigint;
  /** The memo (`raw_data.data`), hex. */
  readonly data?: string;
  readonly fee_limit?: bigint;
  readonly contract: readonly TronContractView[];
}

export interface ParsedTronTransaction {
  readonly chain: 'tron';
  readonly view: TronTransactionView;
  readonly rawData: Uint8Array;
  readonly txId: Uint8Array;
}

/** java-tron `Transaction.Contract.ContractType`. */
const CONTRACT_TYPES: Readonly<Record<number, string>> = {
  0: 'AccountCreateContract',
  1: 'TransferContract',
  2: 'TransferAssetContract',
  3: 'VoteAssetContract',
  4: 'VoteWitnessContract',
  5: 'WitnessCreateContract',
  6: 'AssetIssueContract',
  8: 'WitnessUpdateContract',
  9: 'ParticipateAssetIssueContract',
  10: 'AccountUpdateContract',
  11: 'FreezeBalanceContract',
  12: 'UnfreezeBalanceContract',
  13: 'WithdrawBalanceContract',
  14: 'UnfreezeAssetContract',
  15: 'UpdateAssetContract',
  16: 'ProposalCreateContract',
  17: 'ProposalApproveContract',
  18: 'ProposalDeleteContract',
  19: 'SetAccountIdContract',
  20: 'CustomContract',
  30: 'CreateSmartContract',
  31: 'TriggerSmartContract',
  32: 'GetContract',
  33: 'UpdateSettingContract',
  41: 'ExchangeCreateContract',
  42: 'ExchangeInjectContract',
  43: 'ExchangeWithdrawContract',
  44: 'ExchangeTransactionContract',
  45: 'UpdateEnergyLimitContract',
  46: 'AccountPermissionUpdateContract',
  48: 'ClearABIContract',
  49: 'UpdateBrokerageContract',
  51: 'ShieldedTransferContract',
  52: 'MarketSellAssetContract',
  53: 'MarketCancelOrderContract',
  54: 'FreezeBalanceV2Contract',
  55: 'UnfreezeBalanceV2Contract',
  56: 'WithdrawExpireUnfreezeContract',
  57: 'DelegateResourceContract',
  58: 'UnDelegateResourceContract',
  59: 'CancelAllUnfreezeV2Contract',
};

const RESOURCES: Readonly<Record<number, string>> = {
  0: 'BANDWIDTH',
  1: 'ENERGY',
  2: 'TRON_POWER',
};
const PERMISSION_TYPES: Readonly<Record<number, string>> = {
  0: 'Owner',
  1: 'Witness',
  2: 'Active',
};

// ---------------------------------------------------------------------------------------------
// Protobuf wire format

const VARINT = 0;
const I64 = 1;
const LEN = 2;
const I32 = 5;

interface Field {
  readonly number: number;
  readonly wireType: number;
  /** VARINT value (unsigned, up to 64 bits). */
  readonly varint?: bigint;
  /** LEN / I64 / I32 payload. */
  readonly bytes?: Uint8Array;
}

class ProtoError extends Error {}

function readVarint(bytes: Uint8Array, at: { offset: number }): bigint {
  let value = 0n;
  for (let i = 0; i < 10; i++) {
    if (at.offset >= bytes.length) throw new ProtoError('truncated varint');
    const byte = bytes[at.offset++]!;
    value |= BigInt(byte & 0x7f) << BigInt(7 * i);
    if ((byte & 0x80) === 0) {
      if (value >= 1n << 64n) throw new ProtoError('varint longer than 64 bits');
      return value;
    }
  }
  throw new ProtoError('varint longer than 10 bytes');
}

/** Every field of one message, in order; throws ProtoError on malformed input. */
function readFields(bytes: Uint8Array): Field[] {
  const fields: Field[] = [];
  const at = { offset: 0 };
  while (at.offset < bytes.length) {
    const tag = readVarint(bytes, at);
    const number = Number(tag >> 3n);
    const wireType = Number(tag & 7n);
    if (number === 0 || tag >> 3n > 0x1fffffffn) throw new ProtoError('invalid field number');
    switch (wireType) {
      case VARINT:
        fields.push({ number, wireType, varint: readVarint(bytes, at) });
        break;
      case LEN: {
        const length = readVarint(bytes, at);
        if (length > BigInt(bytes.length - at.offset)) throw new ProtoError('truncated field');
        const end = at.offset + Number(length);
        fields.push({ number, wireType, bytes: bytes.subarray(at.offset, end) });
        at.offset = end;
        break;
      }
      case I64:
      case I32: {
        const size = wireType === I64 ? 8 : 4;
        if (at.offset + size > bytes.length) throw new ProtoError('truncated field');
        fields.push({ number, wireType, bytes: bytes.subarray(at.offset, at.offset + size) });
        at.offset += size;
        break;
      }
      default:
        throw new ProtoError(`unsupported wire type ${wireType}`);
    }
  }
  return fields;
}

type Kind = 'varint' | 'bytes';

/**
 * Reads a message whose known fields are declared in `schema` (field number → kind); a known
 * field with another wire type is malformed, unknown fields are ignored (forward compatibility).
 * Returns the last value of each singular field and all values of each field.
 */
function readMessage(bytes: Uint8Array, schema: Readonly<Record<number, Kind>>) {
  const fields = readFields(bytes);
  for (const field of fields) {
    const kind = schema[field.number];
    if (kind === undefined) continue;
    const expected = kind === 'varint' ? VARINT : LEN;
    if (field.wireType !== expected) {
      throw new ProtoError(`field ${field.number} has wire type ${field.wireType}`);
    }
  }
  const last = (n: number) => fields.filter((f) => f.number === n).at(-1);
  return {
    varint: (n: number) => last(n)?.varint,
    bytes: (n: number) => last(n)?.bytes,
    all: (n: number) => fields.filter((f) => f.number === n).map((f) => f.bytes!),
  };
}

const int64 = (value: bigint | undefined): bigint | undefined =>
  value === undefined ? undefined : BigInt.asIntN(64, value);

// ---------------------------------------------------------------------------------------------

function address(bytes: Uint8Array | undefined): string | undefined {
  if (bytes === undefined || bytes.length === 0) return undefined;
  // Tron addresses are 21 bytes (0x41 ‖ 20); anything else is shown as hex.
  return bytes.length === 21 ? base58check.encode(bytes) : bytesToHex(bytes);
}

function utf8(bytes: Uint8Array | undefined): string | undefined {
  return bytes === undefined ? undefined : new TextDecoder('utf-8', { fatal: false }).decode(bytes);
}

function compact<T extends Record<string, unknown>>(object: T): T {
  return Object.fromEntries(Object.entries(object).filter(([, v]) => v !== undefined)) as T;
}

function permission(bytes: Uint8Array): TronPermissionView {
  // Permission { type=1; id=2; permission_name=3; threshold=4; parent_id=5; operations=6; keys=7 }
  const m = readMessage(bytes, {
    1: 'varint',
    2: 'varint',
    3: 'bytes',
    4: 'varint',
    5: 'varint',
    6: 'bytes',
    7: 'bytes',
  });
  return {
    type: PERMISSION_TYPES[Number(m.varint(1) ?? 0n)] ?? String(m.varint(1) ?? 0n),
    id: int64(m.varint(2)) ?? 0n,
    permission_name: utf8(m.bytes(3)) ?? '',
    threshold: int64(m.varint(4)) ?? 0n,
    parent_id: int64(m.varint(5)) ?? 0n,
    operations: bytesToHex(m.bytes(6) ?? new Uint8Array()),
    keys: m.all(7).map((key) => {
      // Key { address=1; weight=2 }
      const k = readMessage(key, { 1: 'bytes', 2: 'varint' });
      return { address: address(k.bytes(1)) ?? '', weight: int64(k.varint(2)) ?? 0n };
    }),
  };
}

/** Decodes the parameter of the contract types policies read. */
function parameterFields(type: string, value: Uint8Array): Partial<TronContractView> {
  const resource = (n: bigint | undefined) => RESOURCES[Number(n ?? 0n)] ?? String(n);
  switch (type) {
    case 'TransferContract': {
      const m = readMessage(value, { 1: 'bytes', 2: 'bytes', 3: 'varint' });
      return compact({
        owner_address: address(m.bytes(1)),
        to_address: address(m.bytes(2)),
        amount: int64(m.varint(3)) ?? 0n,
      });
    }
    case 'TransferAssetContract': {
      const m = readMessage(value, { 1: 'bytes', 2: 'bytes', 3: 'bytes', 4: 'varint' });
      return compact({
        asset_name: utf8(m.bytes(1)),
        owner_address: address(m.bytes(2)),
        to_address: address(m.bytes(3)),
        amount: int64(m.varint(4)) ?? 0n,
      });
    }
    case 'TriggerSmartContract': {
      const m = readMessage(value, {
        1: 'bytes',
        2: 'bytes',
        3: 'varint',
        4: 'bytes',
        5: 'varint',
        6: 'varint',
      });
      return compact({
        owner_address: address(m.bytes(1)),
        contract_address: address(m.bytes(2)),
        call_value: int64(m.varint(3)) ?? 0n,
        data: bytesToHex(m.bytes(4) ?? new Uint8Array()),
        call_token_value: int64(m.varint(5)) ?? 0n,
        token_id: int64(m.varint(6)) ?? 0n,
      });
    }
    case 'FreezeBalanceV2Contract':
    case 'UnfreezeBalanceV2Contract': {
      const m = readMessage(value, { 1: 'bytes', 2: 'varint', 3: 'varint' });
      const amount = int64(m.varint(2)) ?? 0n;
      return compact({
        owner_address: address(m.bytes(1)),
        ...(type === 'FreezeBalanceV2Contract'
          ? { frozen_balance: amount }
          : { unfreeze_balance: amount }),
        resource: resource(m.varint(3)),
      });
    }
    case 'DelegateResourceContract':
    case 'UnDelegateResourceContract': {
      const m = readMessage(value, {
        1: 'bytes',
        2: 'varint',
        3: 'varint',
        4: 'bytes',
        5: 'varint',
        6: 'varint',
      });
      return compact({
        owner_address: address(m.bytes(1)),
        resource: resource(m.varint(2)),
        balance: int64(m.varint(3)) ?? 0n,
        receiver_address: address(m.bytes(4)),
        ...(type === 'DelegateResourceContract'
          ? { lock: (m.varint(5) ?? 0n) !== 0n, lock_period: int64(m.varint(6)) ?? 0n }
          : {}),
      });
    }
    case 'AccountPermissionUpdateContract': {
      // { owner_address=1; owner=2; witness=3; actives=4 }
      const m = readMessage(value, { 1: 'bytes', 2: 'bytes', 3: 'bytes', 4: 'bytes' });
      const owner = m.bytes(2);
      const witness = m.bytes(3);
      return compact({
        owner_address: address(m.bytes(1)),
        owner: owner ? permission(owner) : undefined,
        witness: witness ? permission(witness) : undefined,
        actives: m.all(4).map(permission),
      });
    }
    default: {
      // Every contract parameter starts with `bytes owner_address = 1`.
      const m = readMessage(value, { 1: 'bytes' });
      return compact({ owner_address: address(m.bytes(1)) });
    }
  }
}

function contractOf(bytes: Uint8Array): TronContractView {
  // Contract { ContractType type=1; google.protobuf.Any parameter=2; bytes provider=3;
  //            bytes ContractName=4; int32 Permission_id=5 }
  const m = readMessage(bytes, { 1: 'varint', 2: 'bytes', 3: 'bytes', 4: 'bytes', 5: 'varint' });
  const code = Number(m.varint(1) ?? 0n);
  const type = CONTRACT_TYPES[code] ?? `ContractType(${code})`;
  // Any { string type_url=1; bytes value=2 }
  const any = readMessage(m.bytes(2) ?? new Uint8Array(), { 1: 'bytes', 2: 'bytes' });
  const value = any.bytes(2) ?? new Uint8Array();
  return {
    type,
    permission_id: BigInt.asIntN(32, m.varint(5) ?? 0n),
    type_url: utf8(any.bytes(1)) ?? '',
    parameter_hex: bytesToHex(value),
    ...parameterFields(type, value),
  };
}

/**
 * Decodes Tron `raw_data` bytes. Throws INVALID_TRANSACTION.
 * @example
 * parseTronTransaction(rawData).view.contract[0].amount; // 100n
 */
export function parseTronTransaction(rawData: Uint8Array): ParsedTronTransaction {
  let view: TronTransactionView;
  try {
    // raw { ref_block_bytes=1; ref_block_num=3; ref_block_hash=4; expiration=8; auths=9;
    //       data=10; contract=11; scripts=12; timestamp=14; fee_limit=18 }
    const m = readMessage(rawData, {
      1: 'bytes',
      3: 'varint',
      4: 'bytes',
      8: 'varint',
      9: 'bytes',
      10: 'bytes',
      11: 'bytes',
      12: 'bytes',
      14: 'varint',
      18: 'varint',
    });
    const contracts = m.all(11);
    if (contracts.length === 0) throw new ProtoError('raw_data has no contract');
    const memo = m.bytes(10);
    view = compact({
      tx_id: bytesToHex(sha256(rawData)),
      ref_block_bytes: bytesToHex(m.bytes(1) ?? new Uint8Array()),
      ref_block_num: int64(m.varint(3)),
      ref_block_hash: bytesToHex(m.bytes(4) ?? new Uint8Array()),
      expiration: int64(m.varint(8)) ?? 0n,
      timestamp: int64(m.varint(14)),
      data: memo ? bytesToHex(memo) : undefined,
      fee_limit: int64(m.varint(18)),
      contract: contracts.map(contractOf),
    });
  } catch (error) {
    if (error instanceof ProtoError) failedToParse(`not a Tron raw_data: ${error.message}`);
    throw error;
  }
  return { chain: 'tron', view, rawData: Uint8Array.from(rawData), txId: sha256(rawData) };
}

/**
 * Signs a parsed Tron transaction with the secp256k1 key `publicKey` and returns the protobuf
 * `Transaction { raw_data, signature }`.
 * @example
 * const signed = await signTronTransaction(parsed, publicKey, (d) => vault.sign(key, curve, d));
 */
export async function signTronTransaction(
  parsed: ParsedTronTransaction,
  publicKey: Uint8Array,
  sign: DigestSigner,
): Promise<Uint8Array> {
  const signature = await signRecoverable(sign, parsed.txId, publicKey);
  const sig65 = new Uint8Array(65);
  sig65.set(compactSignature(signature));
  sig65[64] = 27 + signature.recovery;
  return concatBytes(
    Uint8Array.of(0x0a),
    varint(parsed.rawData.length),
    parsed.rawData,
    Uint8Array.of(0x12, 65),
    sig65,
  );
}

function varint(value: number): Uint8Array {
  const out: number[] = [];
  let rest = value;
  while (rest >= 0x80) {
    out.push((rest & 0x7f) | 0x80);
    rest = Math.floor(rest / 128);
  }
  out.push(rest);
  return Uint8Array.from(out);
}

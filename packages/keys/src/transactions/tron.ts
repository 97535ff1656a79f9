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
 * The raw data is decoded with @bufbuild/protobuf from Tron's published messages
 * (tronprotocol/protocol `core/Tron.proto`, `core/contract/*.proto`, trimmed to what is read
 * here in `packages/keys/proto`, generated into `tron-proto/`). Before decoding, one pass checks
 * the wire: well formed, known fields with their declared wire type, no groups, lengths and
 * varints in range; and there must be at least one contract. The contracts policies read most
 * are decoded (transfers, TRC-10 transfers, smart-contract calls, staking and delegation);
 * others keep their `type` and parameter bytes. Addresses are base58check (`T…`).
 * @module
 */
import {
  type DescEnum,
  type DescField,
  type DescMessage,
  fromBinary,
  type MessageShape,
  ScalarType,
} from '@bufbuild/protobuf';
import { BinaryReader, BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import { KeyholdError } from '@keyhold/protocol';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { base58check } from '../address-bitcoin.js';
import { compactSignature, type DigestSigner, signRecoverable } from './secp256k1-signature.js';
import { failedToParse, reasonOf } from './transaction-input.js';
import { AccountPermissionUpdateContractSchema } from './tron-proto/core/contract/account_contract_pb.js';
import { TransferAssetContractSchema } from './tron-proto/core/contract/asset_issue_contract_pb.js';
import {
  DelegateResourceContractSchema,
  FreezeBalanceV2ContractSchema,
  TransferContractSchema,
  UnDelegateResourceContractSchema,
  UnfreezeBalanceV2ContractSchema,
} from './tron-proto/core/contract/balance_contract_pb.js';
import { type ResourceCode, ResourceCodeSchema } from './tron-proto/core/contract/common_pb.js';
import { TriggerSmartContractSchema } from './tron-proto/core/contract/smart_contract_pb.js';
import {
  Transaction_Contract_ContractType as ContractType,
  type Permission,
  Permission_PermissionTypeSchema,
  type Transaction_Contract,
  Transaction_Contract_ContractTypeSchema,
  Transaction_rawSchema,
  TransactionSchema,
} from './tron-proto/core/Tron_pb.js';

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

// ---------------------------------------------------------------------------------------------
// The wire check. @bufbuild/protobuf decodes a well-formed message by its schema, but reads a
// known field by its declared type whatever the wire type says, reads a length as uint32 (a
// 2^32+3 length is read as 3), ignores bits past 64 in a varint and skips unknown groups. Those
// are exactly the malformed inputs a hostile caller sends, so one pass over the wire first
// refuses them (the same rules as the hand-written reader before), with each message's own
// schema, nested messages included. It also says which fields were on the wire: proto3 cannot
// tell an absent field from a zero one, and the policy view shows fields that were sent.

class ProtoError extends Error {}

/** The wire types a field of `field`'s declared type may have. */
function wireTypesOf(field: DescField): readonly WireType[] {
  const scalar = field.fieldKind === 'list' ? field.listKind : field.fieldKind;
  if (scalar === 'message' || scalar === 'map') return [WireType.LengthDelimited];
  if (scalar === 'enum') return [WireType.Varint];
  const type = field.scalar!;
  if (type === ScalarType.STRING || type === ScalarType.BYTES) return [WireType.LengthDelimited];
  const single =
    type === ScalarType.DOUBLE || type === ScalarType.FIXED64 || type === ScalarType.SFIXED64
      ? WireType.Bit64
      : type === ScalarType.FLOAT || type === ScalarType.FIXED32 || type === ScalarType.SFIXED32
        ? WireType.Bit32
        : WireType.Varint;
  // A repeated number may also come packed.
  return field.fieldKind === 'list' ? [single, WireType.LengthDelimited] : [single];
}

/** A varint of at most 64 bits (10 bytes, the last one 0 or 1). */
function readVarint(reader: BinaryReader, bytes: Uint8Array): bigint {
  const start = reader.pos;
  const value = BigInt(reader.uint64());
  if (reader.pos - start === 10 && bytes[reader.pos - 1]! > 1) {
    throw new ProtoError('varint longer than 64 bits');
  }
  return value;
}

/**
 * Checks that `bytes` is well-formed protobuf whose known fields (those of `schema`) have their
 * declared wire type, recursing into known message fields; unknown fields are allowed (forward
 * compatibility) but groups are not. Returns the numbers of the fields present. Throws ProtoError.
 */
function checkWireFormat(schema: DescMessage | undefined, bytes: Uint8Array): Set<number> {
  const present = new Set<number>();
  const reader = new BinaryReader(bytes);
  while (reader.pos < reader.len) {
    const [number, wireType] = reader.tag();
    const field = schema?.fields.find((f) => f.number === number);
    if (field !== undefined && !wireTypesOf(field).includes(wireType)) {
      throw new ProtoError(`field ${number} has wire type ${wireType}`);
    }
    present.add(number);
    switch (wireType) {
      case WireType.Varint:
        readVarint(reader, bytes);
        break;
      case WireType.LengthDelimited: {
        const length = readVarint(reader, bytes);
        if (length > BigInt(reader.len - reader.pos)) throw new ProtoError('truncated field');
        const body = bytes.subarray(reader.pos, reader.pos + Number(length));
        reader.pos += body.length;
        const nested = field?.fieldKind === 'list' ? field.listKind : field?.fieldKind;
        if (nested === 'message') checkWireFormat(field!.message!, body);
        break;
      }
      case WireType.Bit64:
      case WireType.Bit32: {
        const size = wireType === WireType.Bit64 ? 8 : 4;
        if (reader.pos + size > reader.len) throw new ProtoError('truncated field');
        reader.pos += size;
        break;
      }
      default:
        throw new ProtoError(`unsupported wire type ${wireType}`);
    }
  }
  return present;
}

/** Checks `bytes` against `schema`, then decodes it with @bufbuild/protobuf. */
function decode<Desc extends DescMessage>(schema: Desc, bytes: Uint8Array) {
  const present = checkWireFormat(schema, bytes);
  let message: MessageShape<Desc>;
  try {
    message = fromBinary(schema, bytes, { readUnknownFields: false });
  } catch (error) {
    // After the wire check, only a `string` field that is not UTF-8 is left to refuse here.
    throw new ProtoError(error instanceof Error ? error.message : String(error));
  }
  return { message, present };
}

// ---------------------------------------------------------------------------------------------

/** The name of an enum value as the published `.proto` spells it, else its number. */
function enumName(schema: DescEnum, value: number): string {
  return schema.value[value]?.name ?? String(value);
}

function address(bytes: Uint8Array): string | undefined {
  if (bytes.length === 0) return undefined;
  // Tron addresses are 21 bytes (0x41 ‖ 20); anything else is shown as hex.
  return bytes.length === 21 ? base58check.encode(bytes) : bytesToHex(bytes);
}

function utf8(bytes: Uint8Array): string {
  return new TextDecoder('utf-8', { fatal: false }).decode(bytes);
}

function compact<T extends Record<string, unknown>>(object: T): T {
  return Object.fromEntries(Object.entries(object).filter(([, v]) => v !== undefined)) as T;
}

function permission(p: Permission): TronPermissionView {
  return {
    type: enumName(Permission_PermissionTypeSchema, p.type),
    id: BigInt(p.id),
    permission_name: p.permissionName,
    threshold: p.threshold,
    parent_id: BigInt(p.parentId),
    operations: bytesToHex(p.operations),
    keys: p.keys.map((key) => ({ address: address(key.address) ?? '', weight: key.weight })),
  };
}

/** Decodes the parameter of the contract types policies read. */
function parameterFields(type: ContractType, value: Uint8Array): Partial<TronContractView> {
  const resource = (code: ResourceCode) => enumName(ResourceCodeSchema, code);
  switch (type) {
    case ContractType.TransferContract: {
      const { message: m } = decode(TransferContractSchema, value);
      return compact({
        owner_address: address(m.ownerAddress),
        to_address: address(m.toAddress),
        amount: m.amount,
      });
    }
    case ContractType.TransferAssetContract: {
      const { message: m, present } = decode(TransferAssetContractSchema, value);
      return compact({
        asset_name: present.has(1) ? utf8(m.assetName) : undefined,
        owner_address: address(m.ownerAddress),
        to_address: address(m.toAddress),
        amount: m.amount,
      });
    }
    case ContractType.TriggerSmartContract: {
      const { message: m } = decode(TriggerSmartContractSchema, value);
      return compact({
        owner_address: address(m.ownerAddress),
        contract_address: address(m.contractAddress),
        call_value: m.callValue,
        data: bytesToHex(m.data),
        call_token_value: m.callTokenValue,
        token_id: m.tokenId,
      });
    }
    case ContractType.FreezeBalanceV2Contract: {
      const { message: m } = decode(FreezeBalanceV2ContractSchema, value);
      return compact({
        owner_address: address(m.ownerAddress),
        frozen_balance: m.frozenBalance,
        resource: resource(m.resource),
      });
    }
    case ContractType.UnfreezeBalanceV2Contract: {
      const { message: m } = decode(UnfreezeBalanceV2ContractSchema, value);
      return compact({
        owner_address: address(m.ownerAddress),
        unfreeze_balance: m.unfreezeBalance,
        resource: resource(m.resource),
      });
    }
    case ContractType.DelegateResourceContract: {
      const { message: m } = decode(DelegateResourceContractSchema, value);
      return compact({
        owner_address: address(m.ownerAddress),
        resource: resource(m.resource),
        balance: m.balance,
        receiver_address: address(m.receiverAddress),
        lock: m.lock,
        lock_period: m.lockPeriod,
      });
    }
    case ContractType.UnDelegateResourceContract: {
      const { message: m } = decode(UnDelegateResourceContractSchema, value);
      return compact({
        owner_address: address(m.ownerAddress),
        resource: resource(m.resource),
        balance: m.balance,
        receiver_address: address(m.receiverAddress),
      });
    }
    case ContractType.AccountPermissionUpdateContract: {
      const { message: m } = decode(AccountPermissionUpdateContractSchema, value);
      return compact({
        owner_address: address(m.ownerAddress),
        owner: m.owner ? permission(m.owner) : undefined,
        witness: m.witness ? permission(m.witness) : undefined,
        actives: m.actives.map(permission),
      });
    }
    default: {
      // Every contract parameter starts with `bytes owner_address = 1`; the others are not
      // among the messages kept here, so only that field is read (and the wire checked).
      checkWireFormat(undefined, value);
      return compact({ owner_address: address(ownerAddressOf(value)) });
    }
  }
}

/** The last `bytes owner_address = 1` of a well-formed parameter (checked by the caller). */
function ownerAddressOf(value: Uint8Array): Uint8Array {
  const reader = new BinaryReader(value);
  let owner: Uint8Array = new Uint8Array();
  while (reader.pos < reader.len) {
    const [number, wireType] = reader.tag();
    if (number === 1 && wireType === WireType.LengthDelimited) owner = reader.bytes();
    else if (number === 1) throw new ProtoError(`field 1 has wire type ${wireType}`);
    else reader.skip(wireType, number);
  }
  return owner;
}

function contractOf(contract: Transaction_Contract): TronContractView {
  const value = contract.parameter?.value ?? new Uint8Array();
  const type = contract.type;
  return {
    type: Transaction_Contract_ContractTypeSchema.value[type]?.name ?? `ContractType(${type})`,
    permission_id: BigInt(contract.PermissionId),
    type_url: contract.parameter?.typeUrl ?? '',
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
    const { message: raw, present } = decode(Transaction_rawSchema, rawData);
    if (raw.contract.length === 0) throw new ProtoError('raw_data has no contract');
    // The optional fields of the view are those that were on the wire (proto3 reads an absent
    // field as zero).
    const sent = <T>(field: DescField, value: T) => (present.has(field.number) ? value : undefined);
    const fields = Transaction_rawSchema.field;
    view = compact({
      tx_id: bytesToHex(sha256(rawData)),
      ref_block_bytes: bytesToHex(raw.refBlockBytes),
      ref_block_num: sent(fields.refBlockNum, raw.refBlockNum),
      ref_block_hash: bytesToHex(raw.refBlockHash),
      expiration: raw.expiration,
      timestamp: sent(fields.timestamp, raw.timestamp),
      data: sent(fields.data, bytesToHex(raw.data)),
      fee_limit: sent(fields.feeLimit, raw.feeLimit),
      contract: raw.contract.map(contractOf),
    });
  } catch (error) {
    // ProtoError, and the RangeError / Error @bufbuild/protobuf's reader throws on a truncated
    // or illegal tag, are all "not protobuf"; a KeyholdError passes through.
    if (error instanceof KeyholdError || error instanceof TypeError) throw error;
    failedToParse(`not a Tron raw_data: ${reasonOf(error)}`);
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
  // The raw_data bytes are written as given, not re-encoded from the decoded message: a
  // re-encoding could drop unknown fields or reorder them, and the txID signed is their SHA-256.
  const fields = TransactionSchema.field;
  return new BinaryWriter()
    .tag(fields.rawData.number, WireType.LengthDelimited)
    .bytes(parsed.rawData)
    .tag(fields.signature.number, WireType.LengthDelimited)
    .bytes(sig65)
    .finish();
}

/**
 * Solana IDLs (SMART_CONTRACT_INTERFACE_TYPE_SOLANA), in Anchor's format — the new one (0.30+:
 * explicit `discriminator`s, `writable`/`signer`, `pubkey`, `{defined: {name}}`) and the legacy
 * one (`isMut`/`isSigner`, `publicKey`, `{defined: 'Name'}`, discriminators derived as
 * `sha256("global:" + snake_case(name))[..8]`): checked when uploaded, then used to decode the
 * instructions of a transaction to the program into what policies read as
 * `solana.tx.instructions[i].parsed_instruction_data` — `instruction_name`, `discriminator`
 * (hex), `named_accounts` (account name → key; `named_account` too, the name the policy
 * engine's table had) and `program_call_args` (argument name → value, Borsh-decoded).
 *
 * Bounded like the ABI decoder: at most 400 KiB and 1,024 instructions, types, accounts or args;
 * a decode stops past `MAX_DECODED_VALUES` values or 32 levels of nested types (recursive
 * defined types included), and every length is checked against the bytes left.
 *
 * Values: integers as bigint, floats as numbers, `pubkey` as base58, `bytes` as lower-case `0x`
 * hex, strings, options as the value or null, vectors and arrays as lists, structs as maps of
 * their fields (tuple structs as lists), enums as the variant's name (a unit variant) or a map
 * `{<variant>: <fields>}`.
 * @module
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { base58 } from '@scure/base';
import {
  CONTRACT_INTERFACE_MAX_BYTES,
  ContractInterfaceError,
  MAX_DECODED_VALUES,
} from './ethereum-abi.js';

/** The most instructions, accounts or args (per instruction) and types one IDL may declare. */
export const IDL_MAX_ENTRIES = 1024;
/** The deepest nesting of types a decode follows. */
export const IDL_MAX_TYPE_DEPTH = 32;

type IdlType = unknown;

interface IdlInstruction {
  readonly name: string;
  readonly discriminator: Uint8Array;
  /** Account names in order (nested account groups flattened). */
  readonly accounts: readonly string[];
  readonly args: readonly { readonly name: string; readonly type: IdlType }[];
}

/**
 * A checked IDL: its instructions and its defined types by name.
 * @example
 * const idl = parseSolanaIdl(json);
 * idl.instructions[0]?.name; // 'route'
 */
export interface SolanaIdl {
  readonly instructions: readonly IdlInstruction[];
  readonly types: ReadonlyMap<string, unknown>;
}

/**
 * What an instruction's `parsed_instruction_data` holds.
 * @example
 * const parsed: SolanaParsedInstructionView = {
 *   instruction_name: 'route', discriminator: 'e517cb977ae3ad2a',
 *   named_accounts: { user: '…' }, named_account: { user: '…' }, program_call_args: { in_amount: 5n },
 * };
 */
export interface SolanaParsedInstructionView {
  readonly instruction_name: string;
  readonly discriminator: string;
  readonly named_accounts: Readonly<Record<string, string>>;
  readonly named_account: Readonly<Record<string, string>>;
  readonly program_call_args: Readonly<Record<string, unknown>>;
}

const fail = (reason: string): never => {
  throw new ContractInterfaceError(reason);
};
const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const snakeCase = (name: string) =>
  name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase();

function bounded(list: unknown, where: string): unknown[] {
  if (list === undefined) return [];
  if (!Array.isArray(list)) return fail(`${where} is not a list`);
  if (list.length > IDL_MAX_ENTRIES) fail(`${where} has more than ${IDL_MAX_ENTRIES} entries`);
  return list;
}

/** Account names in order, nested groups (`{name, accounts: [...]}`) flattened. */
function accountNames(list: unknown, where: string, out: string[] = [], depth = 0): string[] {
  if (depth > 8) fail(`${where} nests account groups too deep`);
  for (const [i, account] of bounded(list, where).entries()) {
    if (!isObject(account) || typeof account.name !== 'string') {
      fail(`${where}[${i}] has no name`);
    }
    const entry = account as Record<string, unknown>;
    if (Array.isArray(entry.accounts)) {
      accountNames(entry.accounts, `${where}[${i}].accounts`, out, depth + 1);
    } else {
      out.push(entry.name as string);
    }
    if (out.length > IDL_MAX_ENTRIES) fail(`${where} has more than ${IDL_MAX_ENTRIES} accounts`);
  }
  return out;
}

/**
 * Checks an uploaded Anchor IDL (the JSON text) and indexes it. Throws `ContractInterfaceError`
 * with the reason: not JSON, over 400 KiB, no instructions, an instruction without a name, an
 * invalid or shared discriminator, lists over the bounds.
 * @example
 * parseSolanaIdl('{"instructions":[{"name":"initialize","accounts":[],"args":[]}]}');
 */
export function parseSolanaIdl(json: string): SolanaIdl {
  if (utf8ToBytes(json).length > CONTRACT_INTERFACE_MAX_BYTES) {
    fail(`the IDL is over ${CONTRACT_INTERFACE_MAX_BYTES} bytes`);
  }
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return fail('the IDL is not JSON');
  }
  if (!isObject(value)) return fail('an IDL is a JSON object');
  const list = bounded(value.instructions, 'instructions');
  if (list.length === 0) fail('the IDL has no instructions');
  const types = new Map<string, unknown>();
  for (const [i, t] of bounded(value.types, 'types').entries()) {
    if (!isObject(t) || typeof t.name !== 'string' || !isObject(t.type)) {
      fail(`type ${i} has no name or definition`);
    }
    types.set((t as { name: string }).name, (t as { type: unknown }).type);
  }
  const seen = new Set<string>();
  const instructions = list.map((instruction: unknown, i): IdlInstruction => {
    const where = `instruction ${i}`;
    if (!isObject(instruction) || typeof instruction.name !== 'string' || !instruction.name) {
      return fail(`${where} has no name`);
    }
    const { name, discriminator } = instruction;
    const bytes =
      discriminator === undefined
        ? sha256(utf8ToBytes(`global:${snakeCase(name)}`)).subarray(0, 8)
        : discriminator;
    if (
      !(Array.isArray(bytes) || bytes instanceof Uint8Array) ||
      bytes.length === 0 ||
      bytes.length > 32 ||
      ![...bytes].every((b) => Number.isInteger(b) && b >= 0 && b <= 255)
    ) {
      fail(`${where} has an invalid discriminator`);
    }
    const disc = Uint8Array.from(bytes as ArrayLike<number>);
    const key = bytesToHex(disc);
    if (seen.has(key)) fail(`${where} has the discriminator of another instruction`);
    seen.add(key);
    const args = bounded(instruction.args, `${where}.args`).map((a, j) => {
      if (!isObject(a) || typeof a.name !== 'string' || a.type === undefined) {
        return fail(`${where}.args[${j}] has no name or type`);
      }
      return { name: a.name, type: a.type };
    });
    return {
      name,
      discriminator: disc,
      accounts: accountNames(instruction.accounts, `${where}.accounts`),
      args,
    };
  });
  return { instructions, types };
}

/** A Borsh reader with the decode's budget. */
class Reader {
  offset = 0;
  constructor(
    readonly bytes: Uint8Array,
    readonly budget: DecodeBudget,
  ) {}

  take(n: number): Uint8Array {
    if (n < 0 || this.offset + n > this.bytes.length) throw new ContractInterfaceError('truncated');
    const out = this.bytes.subarray(this.offset, this.offset + n);
    this.offset += n;
    return out;
  }

  spend(): void {
    if (--this.budget.values < 0) throw new ContractInterfaceError('too many values');
  }

  unsigned(bytes: number): bigint {
    let v = 0n;
    const b = this.take(bytes);
    for (let i = bytes - 1; i >= 0; i--) v = (v << 8n) | BigInt(b[i]!);
    return v;
  }

  signed(bytes: number): bigint {
    const v = this.unsigned(bytes);
    const bits = BigInt(bytes * 8);
    return v >= 1n << (bits - 1n) ? v - (1n << bits) : v;
  }

  u32(): number {
    return Number(this.unsigned(4));
  }
}

const INTEGER = /^([ui])(8|16|32|64|128|256)$/;

function decodeType(idl: SolanaIdl, type: IdlType, r: Reader, depth: number): unknown {
  if (depth > IDL_MAX_TYPE_DEPTH) throw new ContractInterfaceError('types nest too deep');
  r.spend();
  if (typeof type === 'string') {
    const int = INTEGER.exec(type);
    if (int) return int[1] === 'u' ? r.unsigned(Number(int[2]) / 8) : r.signed(Number(int[2]) / 8);
    switch (type) {
      case 'bool':
        return r.take(1)[0] !== 0;
      case 'f32':
        return new DataView(r.take(4).slice().buffer).getFloat32(0, true);
      case 'f64':
        return new DataView(r.take(8).slice().buffer).getFloat64(0, true);
      case 'string':
        return new TextDecoder().decode(r.take(r.u32()));
      case 'bytes':
        return `0x${bytesToHex(r.take(r.u32()))}`;
      case 'pubkey':
      case 'publicKey':
        return base58.encode(r.take(32));
      default:
        throw new ContractInterfaceError(`unsupported type ${type.slice(0, 32)}`);
    }
  }
  if (!isObject(type)) throw new ContractInterfaceError('unsupported type');
  if ('vec' in type) {
    const n = r.u32();
    return Array.from({ length: Math.min(n, MAX_DECODED_VALUES + 1) }, () =>
      decodeType(idl, type.vec, r, depth + 1),
    );
  }
  if ('option' in type) return r.take(1)[0] ? decodeType(idl, type.option, r, depth + 1) : null;
  if ('coption' in type) return r.u32() ? decodeType(idl, type.coption, r, depth + 1) : null;
  if ('array' in type && Array.isArray(type.array)) {
    const [element, n] = type.array as [IdlType, unknown];
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) {
      throw new ContractInterfaceError('unsupported array length');
    }
    return Array.from({ length: Math.min(n, MAX_DECODED_VALUES + 1) }, () =>
      decodeType(idl, element, r, depth + 1),
    );
  }
  if ('defined' in type) {
    const name = isObject(type.defined) ? type.defined.name : type.defined;
    const definition = typeof name === 'string' ? idl.types.get(name) : undefined;
    if (!isObject(definition)) throw new ContractInterfaceError('unknown defined type');
    return decodeDefinition(idl, definition, r, depth + 1);
  }
  throw new ContractInterfaceError('unsupported type');
}

function decodeFields(idl: SolanaIdl, fields: unknown, r: Reader, depth: number): unknown {
  if (fields === undefined) return {};
  if (!Array.isArray(fields)) throw new ContractInterfaceError('unsupported fields');
  if (fields.every((f) => isObject(f) && typeof f.name === 'string' && 'type' in f)) {
    const out: Record<string, unknown> = {};
    for (const f of fields as { name: string; type: IdlType }[]) {
      out[f.name] = decodeType(idl, f.type, r, depth);
    }
    return out;
  }
  return fields.map((t) => decodeType(idl, t, r, depth));
}

function decodeDefinition(
  idl: SolanaIdl,
  definition: Record<string, unknown>,
  r: Reader,
  depth: number,
): unknown {
  switch (definition.kind) {
    case 'struct':
      return decodeFields(idl, definition.fields, r, depth);
    case 'enum': {
      const variants = Array.isArray(definition.variants) ? definition.variants : [];
      const variant = variants[r.take(1)[0]!] as Record<string, unknown> | undefined;
      if (!isObject(variant) || typeof variant.name !== 'string') {
        throw new ContractInterfaceError('unknown enum variant');
      }
      return variant.fields === undefined
        ? variant.name
        : { [variant.name]: decodeFields(idl, variant.fields, r, depth) };
    }
    case 'type':
    case 'alias':
      return decodeType(idl, definition.alias ?? definition.value, r, depth);
    default:
      throw new ContractInterfaceError('unsupported type definition');
  }
}

/**
 * How many values decodes may still produce; one budget shared by the instructions of a
 * transaction bounds the transaction's decoding, not just each instruction's.
 * @example
 * const budget: DecodeBudget = { values: MAX_DECODED_VALUES };
 */
export interface DecodeBudget {
  values: number;
}

/**
 * Decodes one instruction with a checked IDL: the instruction whose discriminator starts its
 * data (the longest when several do), its accounts by name and its arguments. `undefined` when
 * none matches or the data does not decode (policies reading it then get a `missing` error).
 * `accountKeys` are the instruction's accounts in order (`undefined` for one loaded from a
 * lookup table, left out of `named_accounts`). `budget` is spent by the values decoded.
 * @example
 * decodeSolanaInstruction(idl, data, ['7xKX…', 'So11…']); // { instruction_name: 'route', … }
 */
export function decodeSolanaInstruction(
  idl: SolanaIdl,
  data: Uint8Array,
  accountKeys: readonly (string | undefined)[],
  budget: DecodeBudget = { values: MAX_DECODED_VALUES },
): SolanaParsedInstructionView | undefined {
  let match: IdlInstruction | undefined;
  for (const instruction of idl.instructions) {
    const d = instruction.discriminator;
    if (d.length > data.length || (match && match.discriminator.length >= d.length)) continue;
    if (d.every((b, i) => data[i] === b)) match = instruction;
  }
  if (!match) return undefined;
  try {
    const r = new Reader(data, budget);
    r.take(match.discriminator.length);
    const args: Record<string, unknown> = {};
    for (const arg of match.args) args[arg.name] = decodeType(idl, arg.type, r, 0);
    const named: Record<string, string> = {};
    match.accounts.forEach((name, i) => {
      const key = accountKeys[i];
      if (key !== undefined) named[name] = key;
    });
    return {
      instruction_name: match.name,
      discriminator: bytesToHex(match.discriminator),
      named_accounts: named,
      named_account: named,
      program_call_args: args,
    };
  } catch (error) {
    if (error instanceof ContractInterfaceError) return undefined;
    throw error;
  }
}

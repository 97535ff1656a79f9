/**
 * TRANSACTION_TYPE_SOLANA: legacy and v0 messages, decoded here rather than with a Solana SDK
 * because only the wire layout is needed and it is small and fixed (Solana docs "Transactions";
 * `solana-sdk` `short_vec`, `Message::sanitize`, `v0::Message::sanitize`):
 *
 * ```
 * transaction = compact-u16 n ‖ n × 64-byte signature ‖ message
 * message     = [0x80 | version]            (v0 only; absent for legacy)
 *               u8 numRequiredSignatures ‖ u8 numReadonlySigned ‖ u8 numReadonlyUnsigned
 *               compact-u16 k ‖ k × 32-byte account key
 *               32-byte recent blockhash
 *               compact-u16 m ‖ m × (u8 programIdIndex ‖ compact-u16 a ‖ a × u8 ‖ compact-u16 d ‖ d bytes)
 *               v0: compact-u16 t ‖ t × (32-byte table ‖ compact-u16 w ‖ w × u8 ‖ compact-u16 r ‖ r × u8)
 * ```
 *
 * compact-u16 is 1–3 bytes of 7-bit groups, little-endian, and must be minimal. The input is
 * the full transaction with placeholder (zero) signature slots, as `@solana/web3.js`
 * `serialize({ requireAllSignatures: false })` and `@solana/kit` produce; a bare message is
 * accepted too and comes back as a full transaction. The signer's slot is the index of its
 * Ed25519 key among the first `numRequiredSignatures` account keys; the other slots are kept
 * byte for byte. The message is checked as the runtime's sanitize step does (index bounds,
 * the fee payer is a writable signer and not a program, v0 program ids are static keys), and
 * every byte must be consumed.
 * @module
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import { bytesToHex, concatBytes, equalBytes } from '@noble/curves/utils.js';
import { base58 } from '@scure/base';
import type { RawSignature } from '../key-vault.js';
import { failedToParse, signerNotInTransaction } from './transaction-input.js';

/** Signs a message with Ed25519 (the vault's `sign`, bound to one key). */
export type MessageSigner = (message: Uint8Array) => Promise<RawSignature>;

export interface SolanaMessageHeader {
  readonly numRequiredSignatures: number;
  readonly numReadonlySignedAccounts: number;
  readonly numReadonlyUnsignedAccounts: number;
}

export interface SolanaCompiledInstruction {
  readonly programIdIndex: number;
  readonly accountIndexes: readonly number[];
  readonly data: Uint8Array;
}

export interface SolanaAddressTableLookup {
  readonly accountKey: Uint8Array;
  readonly writableIndexes: readonly number[];
  readonly readonlyIndexes: readonly number[];
}

/** A decoded message (the bytes every signature covers). */
export interface SolanaMessage {
  readonly version: 'legacy' | 0;
  readonly header: SolanaMessageHeader;
  readonly staticAccountKeys: readonly Uint8Array[];
  readonly recentBlockhash: Uint8Array;
  readonly instructions: readonly SolanaCompiledInstruction[];
  readonly addressTableLookups: readonly SolanaAddressTableLookup[];
}

/** An account an instruction uses; `account_key` is absent when it comes from a lookup table. */
export interface SolanaAccountView {
  readonly account_key?: string;
  readonly signer: boolean;
  readonly writable: boolean;
  /** For an account loaded from an address lookup table: which table and index. */
  readonly lookup?: { readonly address_table_key: string; readonly index: number };
}

export interface SolanaAddressTableLookupView {
  readonly address_table_key: string;
  readonly writable_indexes: readonly bigint[];
  readonly readonly_indexes: readonly bigint[];
}

export interface SolanaInstructionView {
  readonly program_key: string;
  readonly accounts: readonly SolanaAccountView[];
  readonly instruction_data_hex: string;
  /** The lookup-table entries this instruction's accounts come from. */
  readonly address_table_lookups: readonly SolanaAddressTableLookupView[];
}

export interface SolanaTransferView {
  readonly from?: string;
  readonly to?: string;
  readonly amount: bigint;
}

export interface SolanaSplTransferView {
  readonly from?: string;
  readonly to?: string;
  readonly amount: bigint;
  readonly owner?: string;
  readonly signers: readonly string[];
  /** Only TransferChecked names the mint. */
  readonly token_mint?: string;
}

/**
 * What policies see as `solana.tx` (wire-compat §5): keys base58, integers bigint. Accounts
 * loaded from lookup tables cannot be resolved without chain state, so they carry `lookup`
 * instead of `account_key`, and a transfer naming one leaves that side out.
 */
export interface SolanaTransactionView {
  readonly version: 'legacy' | 'v0';
  readonly account_keys: readonly string[];
  readonly required_signers: readonly string[];
  readonly program_keys: readonly string[];
  readonly instructions: readonly SolanaInstructionView[];
  /** System Program transfers (instruction 2). */
  readonly transfers: readonly SolanaTransferView[];
  /** SPL Token / Token-2022 Transfer (3) and TransferChecked (12). */
  readonly spl_transfers: readonly SolanaSplTransferView[];
  readonly recent_blockhash: string;
  readonly address_table_lookups: readonly SolanaAddressTableLookupView[];
}

/** A decoded Solana transaction (or bare message). */
export interface ParsedSolanaTransaction {
  readonly chain: 'solana';
  readonly view: SolanaTransactionView;
  readonly message: SolanaMessage;
  /** The exact message bytes of the input. */
  readonly messageBytes: Uint8Array;
  /** One slot per required signature (zeros for a bare message). */
  readonly signatures: readonly Uint8Array[];
  /** Whether the input was a full transaction or a bare message. */
  readonly form: 'transaction' | 'message';
}

const SIGNATURE_BYTES = 64;
const KEY_BYTES = 32;
const MAX_ACCOUNTS = 256;
const SYSTEM_PROGRAM = '11111111111111111111111111111111';
const TOKEN_PROGRAMS = new Set([
  'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
  'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb',
]);

class Reader {
  offset = 0;
  constructor(readonly bytes: Uint8Array) {}

  get remaining(): number {
    return this.bytes.length - this.offset;
  }

  u8(what: string): number {
    if (this.remaining < 1) throw new ParseError(`truncated: ${what}`, this.offset);
    return this.bytes[this.offset++]!;
  }

  take(length: number, what: string): Uint8Array {
    if (this.remaining < length) throw new ParseError(`truncated: ${what}`, this.offset);
    const out = this.bytes.subarray(this.offset, this.offset + length);
    this.offset += length;
    return out;
  }

  /** compact-u16 (`short_vec`): at most 3 bytes, minimal, ≤ 0xffff. */
  compactU16(what: string): number {
    let value = 0;
    for (let i = 0; i < 3; i++) {
      const at = this.offset;
      const byte = this.u8(what);
      value |= (byte & 0x7f) << (7 * i);
      if ((byte & 0x80) === 0) {
        if (i > 0 && byte === 0) throw new ParseError(`non-minimal compact-u16: ${what}`, at);
        if (i === 2 && byte > 0x03) throw new ParseError(`compact-u16 overflow: ${what}`, at);
        return value;
      }
    }
    throw new ParseError(`compact-u16 longer than 3 bytes: ${what}`, this.offset - 1);
  }
}

class ParseError extends Error {
  constructor(
    message: string,
    readonly at: number,
  ) {
    super(message);
  }
}

function readMessage(reader: Reader): SolanaMessage {
  const prefix = reader.bytes[reader.offset];
  let version: 'legacy' | 0 = 'legacy';
  if (prefix !== undefined && (prefix & 0x80) !== 0) {
    const at = reader.offset;
    const v = reader.u8('version') & 0x7f;
    if (v !== 0) throw new ParseError(`unsupported message version ${v}`, at);
    version = 0;
  }
  const header: SolanaMessageHeader = {
    numRequiredSignatures: reader.u8('header'),
    numReadonlySignedAccounts: reader.u8('header'),
    numReadonlyUnsignedAccounts: reader.u8('header'),
  };
  const keyCount = reader.compactU16('account key count');
  const staticAccountKeys: Uint8Array[] = [];
  for (let i = 0; i < keyCount; i++) staticAccountKeys.push(reader.take(KEY_BYTES, 'account key'));
  const recentBlockhash = reader.take(KEY_BYTES, 'recent blockhash');
  const instructionCount = reader.compactU16('instruction count');
  const instructions: SolanaCompiledInstruction[] = [];
  for (let i = 0; i < instructionCount; i++) {
    const programIdIndex = reader.u8('program id index');
    const accountCount = reader.compactU16('instruction account count');
    const accountIndexes = [...reader.take(accountCount, 'instruction accounts')];
    const dataLength = reader.compactU16('instruction data length');
    const data = reader.take(dataLength, 'instruction data');
    instructions.push({ programIdIndex, accountIndexes, data });
  }
  const addressTableLookups: SolanaAddressTableLookup[] = [];
  if (version === 0) {
    const lookupCount = reader.compactU16('address table lookup count');
    for (let i = 0; i < lookupCount; i++) {
      const accountKey = reader.take(KEY_BYTES, 'address table key');
      const writable = reader.compactU16('writable index count');
      const writableIndexes = [...reader.take(writable, 'writable indexes')];
      const readonly = reader.compactU16('readonly index count');
      const readonlyIndexes = [...reader.take(readonly, 'readonly indexes')];
      addressTableLookups.push({ accountKey, writableIndexes, readonlyIndexes });
    }
  }
  return { version, header, staticAccountKeys, recentBlockhash, instructions, addressTableLookups };
}

/** The checks of `Message::sanitize` / `v0::Message::sanitize`. */
function sanitize(message: SolanaMessage): void {
  const { header, staticAccountKeys, instructions, addressTableLookups } = message;
  const fail = (reason: string): never => {
    throw new ParseError(reason, -1);
  };
  if (header.numReadonlySignedAccounts >= header.numRequiredSignatures) {
    fail('the message needs a writable fee payer among its signers');
  }
  if (
    header.numRequiredSignatures + header.numReadonlyUnsignedAccounts >
    staticAccountKeys.length
  ) {
    fail('the header counts more accounts than the message has');
  }
  let total = staticAccountKeys.length;
  for (const lookup of addressTableLookups) {
    if (lookup.writableIndexes.length + lookup.readonlyIndexes.length === 0) {
      fail('an address table lookup loads no account');
    }
    total += lookup.writableIndexes.length + lookup.readonlyIndexes.length;
  }
  if (total > MAX_ACCOUNTS) fail(`the message uses ${total} accounts; at most ${MAX_ACCOUNTS}`);
  const programBound = message.version === 0 ? staticAccountKeys.length : total;
  for (const [i, instruction] of instructions.entries()) {
    if (instruction.programIdIndex === 0)
      fail(`instruction ${i}: the fee payer cannot be a program`);
    if (instruction.programIdIndex >= programBound) {
      fail(`instruction ${i}: program id index out of range`);
    }
    if (instruction.accountIndexes.some((index) => index >= total)) {
      fail(`instruction ${i}: account index out of range`);
    }
  }
}

function tryTransaction(bytes: Uint8Array): ParsedSolanaTransaction {
  const reader = new Reader(bytes);
  const count = reader.compactU16('signature count');
  const signatures: Uint8Array[] = [];
  for (let i = 0; i < count; i++) signatures.push(reader.take(SIGNATURE_BYTES, 'signature'));
  const start = reader.offset;
  const message = readMessage(reader);
  if (reader.remaining > 0) throw new ParseError('trailing bytes after the message', reader.offset);
  sanitize(message);
  if (count !== message.header.numRequiredSignatures) {
    throw new ParseError(
      `${count} signature slots for ${message.header.numRequiredSignatures} required signatures`,
      0,
    );
  }
  return parsed(message, bytes.subarray(start), signatures, 'transaction');
}

function tryMessage(bytes: Uint8Array): ParsedSolanaTransaction {
  const reader = new Reader(bytes);
  const message = readMessage(reader);
  if (reader.remaining > 0) throw new ParseError('trailing bytes after the message', reader.offset);
  sanitize(message);
  const slots = Array.from(
    { length: message.header.numRequiredSignatures },
    () => new Uint8Array(SIGNATURE_BYTES),
  );
  return parsed(message, bytes, slots, 'message');
}

function parsed(
  message: SolanaMessage,
  messageBytes: Uint8Array,
  signatures: Uint8Array[],
  form: 'transaction' | 'message',
): ParsedSolanaTransaction {
  return {
    chain: 'solana',
    view: viewOf(message),
    message,
    messageBytes: Uint8Array.from(messageBytes),
    signatures: signatures.map((s) => Uint8Array.from(s)),
    form,
  };
}

/**
 * Decodes a serialized Solana transaction (or a bare message). Throws INVALID_TRANSACTION
 * with the reason of the transaction reading when neither reading works.
 * @example
 * parseSolanaTransaction(bytes).view.account_keys[0]; // the fee payer, base58
 */
export function parseSolanaTransaction(bytes: Uint8Array): ParsedSolanaTransaction {
  try {
    return tryTransaction(bytes);
  } catch (asTransaction) {
    if (!(asTransaction instanceof ParseError)) throw asTransaction;
    try {
      return tryMessage(bytes);
    } catch (asMessage) {
      if (!(asMessage instanceof ParseError)) throw asMessage;
      failedToParse(
        `not a Solana transaction: ${asTransaction.message}`,
        asTransaction.at >= 0 ? { offset: asTransaction.at } : {},
      );
    }
  }
}

/**
 * Signs a parsed Solana transaction with the Ed25519 key `publicKey` and returns the full
 * signed transaction: the key's slot filled, every other slot as it was. Throws
 * SIGNER_NOT_IN_TRANSACTION when the key is not one of the required signers.
 * @example
 * const signed = await signSolanaTransaction(parsed, publicKey, (m) => vault.sign(key, curve, m));
 */
export async function signSolanaTransaction(
  parsed: ParsedSolanaTransaction,
  publicKey: Uint8Array,
  sign: MessageSigner,
): Promise<Uint8Array> {
  const { numRequiredSignatures } = parsed.message.header;
  const slots: number[] = [];
  for (let i = 0; i < numRequiredSignatures; i++) {
    if (equalBytes(parsed.message.staticAccountKeys[i]!, publicKey)) slots.push(i);
  }
  if (slots.length === 0) {
    signerNotInTransaction(
      `the key is not one of the ${numRequiredSignatures} required signers of the transaction`,
    );
  }
  const raw = await sign(parsed.messageBytes);
  const signature = new Uint8Array(SIGNATURE_BYTES);
  signature.set(raw.r, 32 - raw.r.length);
  signature.set(raw.s, 64 - raw.s.length);
  if (!ed25519.verify(signature, parsed.messageBytes, publicKey)) {
    throw new Error('the vault signature does not verify under the signing key');
  }
  const signatures = parsed.signatures.map((s) => Uint8Array.from(s));
  for (const slot of slots) signatures[slot] = signature;
  return concatBytes(compactU16(signatures.length), ...signatures, parsed.messageBytes);
}

/**
 * The compact-u16 encoding of `value` (0 … 0xffff).
 * @example
 * compactU16(300); // Uint8Array [0xac, 0x02]
 */
export function compactU16(value: number): Uint8Array {
  if (!Number.isInteger(value) || value < 0 || value > 0xffff) {
    throw new RangeError('compact-u16 value out of range');
  }
  const out: number[] = [];
  let rest = value;
  for (;;) {
    const low = rest & 0x7f;
    rest >>= 7;
    if (rest === 0) {
      out.push(low);
      return Uint8Array.from(out);
    }
    out.push(low | 0x80);
  }
}

interface ResolvedAccount {
  key?: string;
  signer: boolean;
  writable: boolean;
  lookup?: { table: number; key: string; index: number };
}

function resolveAccounts(message: SolanaMessage): ResolvedAccount[] {
  const { header, staticAccountKeys, addressTableLookups } = message;
  const staticCount = staticAccountKeys.length;
  const accounts: ResolvedAccount[] = staticAccountKeys.map((key, i) => {
    const signer = i < header.numRequiredSignatures;
    const writable = signer
      ? i < header.numRequiredSignatures - header.numReadonlySignedAccounts
      : i < staticCount - header.numReadonlyUnsignedAccounts;
    return { key: base58.encode(key), signer, writable };
  });
  // Loaded addresses: every table's writable entries, then every table's read-only entries.
  for (const writable of [true, false]) {
    addressTableLookups.forEach((lookup, table) => {
      const key = base58.encode(lookup.accountKey);
      for (const index of writable ? lookup.writableIndexes : lookup.readonlyIndexes) {
        accounts.push({ signer: false, writable, lookup: { table, key, index } });
      }
    });
  }
  return accounts;
}

function u64le(bytes: Uint8Array, offset: number): bigint {
  let value = 0n;
  for (let i = 7; i >= 0; i--) value = (value << 8n) | BigInt(bytes[offset + i]!);
  return value;
}

function viewOf(message: SolanaMessage): SolanaTransactionView {
  const accounts = resolveAccounts(message);
  const lookups: SolanaAddressTableLookupView[] = message.addressTableLookups.map((lookup) => ({
    address_table_key: base58.encode(lookup.accountKey),
    writable_indexes: lookup.writableIndexes.map(BigInt),
    readonly_indexes: lookup.readonlyIndexes.map(BigInt),
  }));
  const programKeys: string[] = [];
  const transfers: SolanaTransferView[] = [];
  const splTransfers: SolanaSplTransferView[] = [];
  const instructions = message.instructions.map((instruction): SolanaInstructionView => {
    const program = accounts[instruction.programIdIndex]!.key!;
    if (!programKeys.includes(program)) programKeys.push(program);
    const used = instruction.accountIndexes.map((index) => accounts[index]!);
    const keyAt = (position: number): { key?: string } => {
      const key = used[position]?.key;
      return key === undefined ? {} : { key };
    };
    const { data } = instruction;
    if (program === SYSTEM_PROGRAM && data.length === 12 && used.length >= 2) {
      const discriminator = data[0]! | (data[1]! << 8) | (data[2]! << 16) | (data[3]! << 24);
      if (discriminator === 2) {
        transfers.push({
          ...optional('from', keyAt(0).key),
          ...optional('to', keyAt(1).key),
          amount: u64le(data, 4),
        });
      }
    }
    if (TOKEN_PROGRAMS.has(program)) {
      if (data.length === 9 && data[0] === 3 && used.length >= 3) {
        splTransfers.push({
          ...optional('from', keyAt(0).key),
          ...optional('to', keyAt(1).key),
          amount: u64le(data, 1),
          ...optional('owner', keyAt(2).key),
          signers: used.slice(3).flatMap((a) => (a.key === undefined ? [] : [a.key])),
        });
      } else if (data.length === 10 && data[0] === 12 && used.length >= 4) {
        splTransfers.push({
          ...optional('from', keyAt(0).key),
          ...optional('token_mint', keyAt(1).key),
          ...optional('to', keyAt(2).key),
          amount: u64le(data, 1),
          ...optional('owner', keyAt(3).key),
          signers: used.slice(4).flatMap((a) => (a.key === undefined ? [] : [a.key])),
        });
      }
    }
    return {
      program_key: program,
      accounts: used.map((a) => ({
        ...optional('account_key', a.key),
        signer: a.signer,
        writable: a.writable,
        ...(a.lookup ? { lookup: { address_table_key: a.lookup.key, index: a.lookup.index } } : {}),
      })),
      instruction_data_hex: bytesToHex(data),
      address_table_lookups: lookupsUsedBy(used, lookups),
    };
  });
  const keys = message.staticAccountKeys.map((k) => base58.encode(k));
  return {
    version: message.version === 0 ? 'v0' : 'legacy',
    account_keys: keys,
    required_signers: keys.slice(0, message.header.numRequiredSignatures),
    program_keys: programKeys,
    instructions,
    transfers,
    spl_transfers: splTransfers,
    recent_blockhash: base58.encode(message.recentBlockhash),
    address_table_lookups: lookups,
  };
}

function lookupsUsedBy(
  used: readonly ResolvedAccount[],
  lookups: readonly SolanaAddressTableLookupView[],
): SolanaAddressTableLookupView[] {
  const byTable = new Map<number, { writable: bigint[]; readonly: bigint[] }>();
  for (const account of used) {
    if (!account.lookup) continue;
    const entry = byTable.get(account.lookup.table) ?? { writable: [], readonly: [] };
    (account.writable ? entry.writable : entry.readonly).push(BigInt(account.lookup.index));
    byTable.set(account.lookup.table, entry);
  }
  return [...byTable.entries()]
    .sort(([a], [b]) => a - b)
    .map(([table, entry]) => ({
      address_table_key: lookups[table]!.address_table_key,
      writable_indexes: entry.writable,
      readonly_indexes: entry.readonly,
    }));
}

function optional<K extends string>(name: K, value: string | undefined): { [P in K]?: string } {
  return (value === undefined ? {} : { [name]: value }) as { [P in K]?: string };
}

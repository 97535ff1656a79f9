/**
 * TRANSACTION_TYPE_SOLANA: legacy and v0 messages, decoded with `@solana/kit`'s codecs (Solana
 * docs "Transactions"; `solana-sdk` `short_vec`, `Message::sanitize`, `v0::Message::sanitize`):
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
 * The signature slots are the `shortU16`-prefixed array of 64-byte fields of kit's transaction
 * codec (not `getTransactionDecoder`: it returns the signatures as a map keyed by address, which
 * loses the slot order and a repeated key, and the slots must come back byte for byte). The
 * message is kit's legacy/v0 layout composed from its codecs, with a strict compact-u16 and keys
 * as bytes until sanitize has bounded them (why not `getCompiledTransactionMessageDecoder`: see
 * the comment on `wire` below and the package README).
 *
 * The input is the full transaction with placeholder (zero) signature slots, as
 * `@solana/web3.js` `serialize({ requireAllSignatures: false })` and `@solana/kit` produce; a
 * bare message is accepted too and comes back as a full transaction. The signer's slot is the
 * index of its Ed25519 key among the first `numRequiredSignatures` account keys; the other slots
 * are kept byte for byte. The message is checked as the runtime's sanitize step does (index
 * bounds, the fee payer is a writable signer and not a program, v0 program ids are static
 * keys), and every byte must be consumed.
 * @module
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import { bytesToHex, concatBytes, equalBytes } from '@noble/curves/utils.js';
import {
  addDecoderSizePrefix,
  createDecoder,
  type Decoder,
  fixDecoderSize,
  fixEncoderSize,
  getAddressDecoder,
  getArrayDecoder,
  getArrayEncoder,
  getBase58Decoder,
  getBytesDecoder,
  getBytesEncoder,
  getShortU16Decoder,
  getShortU16Encoder,
  getStructDecoder,
  getTransactionVersionDecoder,
  getU8Decoder,
  isSolanaError,
  type ReadonlyUint8Array,
  type VariableSizeDecoder,
} from '@solana/kit';
import type { RawSignature } from '../key-vault.js';
import { failedToParse, reasonOf, signerNotInTransaction } from './transaction-input.js';

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

class ParseError extends Error {
  constructor(
    message: string,
    readonly at: number,
  ) {
    super(message);
  }
}

/** What kit's codecs throw on malformed bytes becomes a ParseError at `at`. */
function withKit<T>(what: string, at: number, run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof ParseError || error instanceof TypeError) throw error;
    // Only the code and the codec's name: a kit error's context can hold the input bytes.
    const detail = isSolanaError(error)
      ? `${String((error.context as { codecDescription?: unknown }).codecDescription ?? 'codec')} error #${error.context.__code}`
      : reasonOf(error);
    throw new ParseError(`malformed ${what} (${detail})`, at);
  }
}

// The wire layout, composed from kit's codecs. Not `getCompiledTransactionMessageDecoder`
// itself: it decodes every address to base58 before anything can be bounded (a hostile message
// with thousands of keys or lookup tables costs seconds of CPU; sanitize allows at most 256
// accounts), accepts a non-minimal compact-u16 and reads a count missing at the end of the
// bytes as zero, all of which the runtime refuses. So the same structure is built here with
// keys as 32-byte fields, a strict compact-u16 and required counts; keys get their base58
// names (kit's address decoder) only after sanitize. See the README.

const shortU16 = { decoder: getShortU16Decoder(), encoder: getShortU16Encoder() };

/** compact-u16 (`short_vec`) as the runtime reads it: kit's shortU16, and minimal. */
const compactU16Decoder: VariableSizeDecoder<number> = createDecoder({
  maxSize: 3,
  read(bytes, offset) {
    const [value, end] = shortU16.decoder.read(bytes, offset);
    if (end - offset !== shortU16.encoder.getSizeFromValue(value)) {
      throw new ParseError('non-minimal compact-u16', offset);
    }
    return [value, end];
  },
});
const shortVec = <T>(item: Decoder<T>) =>
  getArrayDecoder(item, { size: compactU16Decoder, requireSizePrefix: true });
const u8 = getU8Decoder();
const key = fixDecoderSize(getBytesDecoder(), KEY_BYTES);
const wire = {
  signatures: shortVec(fixDecoderSize(getBytesDecoder(), SIGNATURE_BYTES)),
  signaturesEncoder: getArrayEncoder(fixEncoderSize(getBytesEncoder(), SIGNATURE_BYTES), {
    size: shortU16.encoder,
  }),
  version: getTransactionVersionDecoder(),
  legacyMessage: getStructDecoder([
    [
      'header',
      getStructDecoder([
        ['numRequiredSignatures', u8],
        ['numReadonlySignedAccounts', u8],
        ['numReadonlyUnsignedAccounts', u8],
      ]),
    ],
    ['staticAccountKeys', shortVec(key)],
    ['recentBlockhash', key],
    [
      'instructions',
      shortVec(
        getStructDecoder([
          ['programIdIndex', u8],
          ['accountIndexes', shortVec(u8)],
          ['data', addDecoderSizePrefix(getBytesDecoder(), compactU16Decoder)],
        ]),
      ),
    ],
  ]),
  addressTableLookups: shortVec(
    getStructDecoder([
      ['accountKey', key],
      ['writableIndexes', shortVec(u8)],
      ['readonlyIndexes', shortVec(u8)],
    ]),
  ),
};
const addressDecoder = getAddressDecoder();
const blockhashDecoder = getBase58Decoder();

function readMessage(bytes: Uint8Array, start: number): { message: SolanaMessage; end: number } {
  const [version, body] = withKit('message version', start, () => wire.version.read(bytes, start));
  if (version !== 'legacy' && version !== 0) {
    throw new ParseError(`unsupported message version ${version}`, start);
  }
  const [legacy, afterLegacy] = withKit('message', body, () =>
    wire.legacyMessage.read(bytes, body),
  );
  const [lookups, end] =
    version === 0
      ? withKit('address table lookups', afterLegacy, () =>
          wire.addressTableLookups.read(bytes, afterLegacy),
        )
      : [[], afterLegacy];
  const copy = (b: ReadonlyUint8Array) => Uint8Array.from(b);
  const message: SolanaMessage = {
    version,
    header: legacy.header,
    staticAccountKeys: legacy.staticAccountKeys.map(copy),
    recentBlockhash: copy(legacy.recentBlockhash),
    instructions: legacy.instructions.map((instruction) => ({
      programIdIndex: instruction.programIdIndex,
      accountIndexes: instruction.accountIndexes,
      data: copy(instruction.data),
    })),
    addressTableLookups: lookups.map((lookup) => ({
      accountKey: copy(lookup.accountKey),
      writableIndexes: lookup.writableIndexes,
      readonlyIndexes: lookup.readonlyIndexes,
    })),
  };
  return { message, end };
}

/** The base58 names of the keys, for the view (after sanitize has bounded their number). */
interface Names {
  readonly keys: readonly string[];
  readonly tables: readonly string[];
  readonly blockhash: string;
}

function namesOf(message: SolanaMessage): Names {
  return {
    keys: message.staticAccountKeys.map((k) => addressDecoder.decode(k)),
    tables: message.addressTableLookups.map((lookup) => addressDecoder.decode(lookup.accountKey)),
    blockhash: blockhashDecoder.decode(message.recentBlockhash),
  };
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
  const [signatures, start] = withKit('signature slots', 0, () => wire.signatures.read(bytes, 0));
  const { message, end } = readMessage(bytes, start);
  if (end < bytes.length) throw new ParseError('trailing bytes after the message', end);
  sanitize(message);
  const count = signatures.length;
  if (count !== message.header.numRequiredSignatures) {
    throw new ParseError(
      `${count} signature slots for ${message.header.numRequiredSignatures} required signatures`,
      0,
    );
  }
  const slots = signatures.map((s) => Uint8Array.from(s));
  return parsed(message, bytes.subarray(start), slots, 'transaction');
}

function tryMessage(bytes: Uint8Array): ParsedSolanaTransaction {
  const { message, end } = readMessage(bytes, 0);
  if (end < bytes.length) throw new ParseError('trailing bytes after the message', end);
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
  signatures: readonly Uint8Array[],
  form: 'transaction' | 'message',
): ParsedSolanaTransaction {
  return {
    chain: 'solana',
    view: viewOf(message, namesOf(message)),
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
  return concatBytes(
    Uint8Array.from(wire.signaturesEncoder.encode(signatures)),
    parsed.messageBytes,
  );
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
  return Uint8Array.from(shortU16.encoder.encode(value));
}

interface ResolvedAccount {
  key?: string;
  signer: boolean;
  writable: boolean;
  lookup?: { table: number; key: string; index: number };
}

function resolveAccounts(message: SolanaMessage, names: Names): ResolvedAccount[] {
  const { header, staticAccountKeys, addressTableLookups } = message;
  const staticCount = staticAccountKeys.length;
  const accounts: ResolvedAccount[] = staticAccountKeys.map((_key, i) => {
    const signer = i < header.numRequiredSignatures;
    const writable = signer
      ? i < header.numRequiredSignatures - header.numReadonlySignedAccounts
      : i < staticCount - header.numReadonlyUnsignedAccounts;
    return { key: names.keys[i]!, signer, writable };
  });
  // Loaded addresses: every table's writable entries, then every table's read-only entries.
  for (const writable of [true, false]) {
    addressTableLookups.forEach((lookup, table) => {
      const key = names.tables[table]!;
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

function viewOf(message: SolanaMessage, names: Names): SolanaTransactionView {
  const accounts = resolveAccounts(message, names);
  const lookups: SolanaAddressTableLookupView[] = message.addressTableLookups.map((lookup, i) => ({
    address_table_key: names.tables[i]!,
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
  const keys = [...names.keys];
  return {
    version: message.version === 0 ? 'v0' : 'legacy',
    account_keys: keys,
    required_signers: keys.slice(0, message.header.numRequiredSignatures),
    program_keys: programKeys,
    instructions,
    transfers,
    spl_transfers: splTransfers,
    recent_blockhash: names.blockhash,
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

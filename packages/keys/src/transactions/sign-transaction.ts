/**
 * SIGN_TRANSACTION without I/O: `parseTransaction` decodes `unsignedTransaction` for the type
 * (state-independent, so a caller can refuse bad input before it looks a key up), and
 * `signTransaction` signs it through a callback — the vault's `sign` bound to one key — so keys
 * that never leave an HSM work the same as software keys. The callback gets what the chain
 * signs: a 32-byte digest for secp256k1 (Ethereum, Tron, Bitcoin), the message for Ed25519
 * (Solana). Wire-compat §7.3: input and output are hex; `0x` is accepted on input and never
 * written on output.
 * @module
 */
import { type Curve, KeyholdError, type TransactionType } from '@keyhold/protocol';
import { bytesToHex } from '@noble/hashes/utils.js';
import { assertCurve } from '../curves.js';
import type { RawSignature, SealedSecret } from '../key-vault.js';
import { compressPublicKey } from '../public-key.js';
import {
  type BitcoinTransactionView,
  type ParsedBitcoinTransaction,
  parseBitcoinTransaction,
  type SchnorrSigner,
  signBitcoinTransaction,
} from './bitcoin.js';
import {
  type EthereumTransactionView,
  type ParsedEthereumTransaction,
  parseEthereumTransaction,
  signEthereumTransaction,
} from './ethereum.js';
import {
  type ParsedSolanaTransaction,
  parseSolanaTransaction,
  type SolanaTransactionView,
  signSolanaTransaction,
} from './solana.js';
import { transactionBytes } from './transaction-input.js';
import {
  type ParsedTronTransaction,
  parseTronTransaction,
  signTronTransaction,
  type TronTransactionView,
} from './tron.js';

/** The transaction types Keyhold signs (TEMPO is not one of them yet). */
export const SUPPORTED_TRANSACTION_TYPES = [
  'TRANSACTION_TYPE_ETHEREUM',
  'TRANSACTION_TYPE_SOLANA',
  'TRANSACTION_TYPE_TRON',
  'TRANSACTION_TYPE_BITCOIN',
] as const satisfies readonly TransactionType[];

export type SupportedTransactionType = (typeof SUPPORTED_TRANSACTION_TYPES)[number];

/** The curve each transaction type is signed with. */
export const TRANSACTION_CURVES: Readonly<Record<SupportedTransactionType, Curve>> = {
  TRANSACTION_TYPE_ETHEREUM: 'CURVE_SECP256K1',
  TRANSACTION_TYPE_SOLANA: 'CURVE_ED25519',
  TRANSACTION_TYPE_TRON: 'CURVE_SECP256K1',
  TRANSACTION_TYPE_BITCOIN: 'CURVE_SECP256K1',
};

/** A decoded unsigned transaction of any supported type; `view` is what policies read. */
export type ParsedTransaction =
  | ParsedEthereumTransaction
  | ParsedSolanaTransaction
  | ParsedTronTransaction
  | ParsedBitcoinTransaction;

/** The policy view of each chain (`eth.tx`, `solana.tx`, `tron.tx`, `bitcoin.tx`). */
export type TransactionView =
  | EthereumTransactionView
  | SolanaTransactionView
  | TronTransactionView
  | BitcoinTransactionView;

/**
 * True for the types `signTransaction` handles.
 * @example
 * isSupportedTransactionType('TRANSACTION_TYPE_TEMPO'); // false
 */
export function isSupportedTransactionType(type: unknown): type is SupportedTransactionType {
  return (SUPPORTED_TRANSACTION_TYPES as readonly unknown[]).includes(type);
}

function assertSupported(type: unknown): asserts type is SupportedTransactionType {
  if (!isSupportedTransactionType(type)) {
    throw new KeyholdError('UNSUPPORTED_TRANSACTION_TYPE', {
      type: String(type).slice(0, 64),
      supported: [...SUPPORTED_TRANSACTION_TYPES],
    });
  }
}

/**
 * Decodes `unsignedTransaction` (hex, `0x` optional) as a transaction of `type`. Refuses an
 * unsupported type with UNSUPPORTED_TRANSACTION_TYPE and anything undecodable with
 * INVALID_TRANSACTION ("failed to parse transaction"). Needs no key.
 * @example
 * const parsed = parseTransaction('TRANSACTION_TYPE_ETHEREUM', '02ef01…');
 * parsed.chain; // 'ethereum'
 * parsed.view.to; // '0x70997970c51812dc3a010c7d01b50e0d17dc79c8'
 */
export function parseTransaction(
  type: TransactionType,
  unsignedTransaction: string,
): ParsedTransaction {
  assertSupported(type);
  const bytes = transactionBytes(unsignedTransaction);
  switch (type) {
    case 'TRANSACTION_TYPE_ETHEREUM':
      return parseEthereumTransaction(bytes);
    case 'TRANSACTION_TYPE_SOLANA':
      return parseSolanaTransaction(bytes);
    case 'TRANSACTION_TYPE_TRON':
      return parseTronTransaction(bytes);
    case 'TRANSACTION_TYPE_BITCOIN':
      return parseBitcoinTransaction(bytes);
  }
}

/**
 * An optional KeyVault capability for Taproot key-path inputs: a BIP340 signature over `digest`
 * by the key `key` tweaked per BIP341 with `merkleRoot` (empty: BIP86). A software vault does
 * `schnorr.sign(digest, taprootTweakPrivKey(privateKey, merkleRoot))`.
 */
export interface TaprootSigningVault {
  signTaproot(key: SealedSecret, digest: Uint8Array, merkleRoot: Uint8Array): Promise<Uint8Array>;
}

/**
 * True when `vault` implements the Taproot capability.
 * @example
 * canSignTaproot(vault) && vault.signTaproot(key, digest, new Uint8Array());
 */
export function canSignTaproot<V extends object>(vault: V): vault is V & TaprootSigningVault {
  return typeof (vault as Partial<TaprootSigningVault>).signTaproot === 'function';
}

export interface SignTransactionRequest {
  readonly type: TransactionType;
  /** Hex, `0x` optional. */
  readonly unsignedTransaction: string;
  /** The signing key's curve: secp256k1 for Ethereum, Tron and Bitcoin, Ed25519 for Solana. */
  readonly curve: Curve;
  /** The signing key's public key: SEC1 (either form) for secp256k1, 32 bytes for Ed25519. */
  readonly publicKey: Uint8Array;
  /** The vault, bound to the key: digest in (ECDSA) or message in (Ed25519), signature out. */
  readonly sign: (message: Uint8Array) => Promise<RawSignature>;
  /**
   * Optional: BIP340 signatures with the key tweaked per BIP341, for Taproot key-path inputs of
   * a PSBT. Without it an owned Taproot input is TRANSACTION_INPUT_NOT_SIGNABLE.
   */
  readonly signSchnorr?: SchnorrSigner;
  /**
   * `parseTransaction(type, unsignedTransaction)` when the caller already has it (the policy
   * layer parsed it to decide), so the bytes are decoded once. It is read, never changed.
   */
  readonly parsed?: ParsedTransaction;
}

/**
 * Parses and signs a transaction (see the chain modules for what each type accepts). Throws
 * UNSUPPORTED_TRANSACTION_TYPE, INVALID_TRANSACTION, INVALID_CURVE (the key's curve is
 * not the chain's), INVALID_PUBLIC_KEY, SIGNER_NOT_IN_TRANSACTION (Solana: not a required
 * signer; Bitcoin: owns no input) and TRANSACTION_INPUT_NOT_SIGNABLE (Bitcoin).
 * @example
 * const { signedTransaction } = await signTransaction({
 *   type: 'TRANSACTION_TYPE_ETHEREUM',
 *   unsignedTransaction: '02ef01…',
 *   curve: 'CURVE_SECP256K1',
 *   publicKey,
 *   sign: (digest) => vault.sign(key, 'CURVE_SECP256K1', digest),
 * });
 * // signedTransaction: '02f872…' (no 0x)
 */
export async function signTransaction(
  request: SignTransactionRequest,
): Promise<{ signedTransaction: string }> {
  const { type, unsignedTransaction, curve, sign, signSchnorr } = request;
  const parsed = request.parsed ?? parseTransaction(type, unsignedTransaction);
  assertCurve(curve);
  const expected = TRANSACTION_CURVES[type as SupportedTransactionType];
  if (curve !== expected) {
    throw new KeyholdError('INVALID_CURVE', {
      curve,
      reason: `${type} is signed with ${expected}`,
    });
  }
  const publicKey = compressPublicKey(curve, request.publicKey);
  let signed: Uint8Array;
  switch (parsed.chain) {
    case 'ethereum':
      signed = await signEthereumTransaction(parsed, publicKey, sign);
      break;
    case 'solana':
      signed = await signSolanaTransaction(parsed, publicKey, sign);
      break;
    case 'tron':
      signed = await signTronTransaction(parsed, publicKey, sign);
      break;
    case 'bitcoin':
      signed = await signBitcoinTransaction(parsed, publicKey, sign, signSchnorr);
      break;
  }
  return { signedTransaction: bytesToHex(signed) };
}

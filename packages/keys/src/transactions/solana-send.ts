/**
 * The encodings of SOL_SEND_TRANSACTION around SIGN_TRANSACTION's Solana signing: the intent's
 * unsigned transaction (V1 base64, V2 hex) as the hex `parseTransaction` reads, with the
 * intent's `recentBlockhash` put in its message; and what is sent and tracked of the signed
 * transaction (its wire bytes in base64, its id — the first signature in base58 — and the
 * required signers still unsigned).
 * @module
 */

import { bytesToHex, concatBytes, equalBytes } from '@noble/curves/utils.js';
import { base58, base64 } from '@scure/base';
import { compactU16, type ParsedSolanaTransaction, parseSolanaTransaction } from './solana.js';
import { failedToParse, transactionBytes } from './transaction-input.js';

/** The largest transaction the Solana network carries (`PACKET_DATA_SIZE`). */
export const SOLANA_MAX_TRANSACTION_BYTES = 1232;

const SIGNATURE_BYTES = 64;
const BLOCKHASH_BYTES = 32;

/** Where the recent blockhash starts in a message (after the version, header and keys). */
function blockhashOffset(parsed: ParsedSolanaTransaction): number {
  const keys = parsed.message.staticAccountKeys.length;
  return (parsed.message.version === 0 ? 1 : 0) + 3 + compactU16(keys).length + 32 * keys;
}

/** A full transaction: the signature slots, then the message. */
function transactionOf(slots: readonly Uint8Array[], message: Uint8Array): Uint8Array {
  return concatBytes(compactU16(slots.length), ...slots, message);
}

/**
 * The unsigned transaction of a SOL_SEND_TRANSACTION intent, as hex without `0x`: V1's base64
 * or V2's hex (`0x` optional), at most 1232 bytes, a full transaction or a bare message. With
 * `recentBlockhash` (base58, 32 bytes) different from the message's, the message carries it
 * instead and every signature slot is zero: a signature over the old message would not hold.
 * Throws INVALID_TRANSACTION ("failed to parse transaction") with the reason.
 * @example
 * solanaSendUnsignedTransaction({ unsignedTransaction: 'AQAB…', encoding: 'base64' }); // '0100…'
 */
export function solanaSendUnsignedTransaction(intent: {
  readonly unsignedTransaction: string;
  readonly encoding: 'base64' | 'hex';
  readonly recentBlockhash?: string;
}): string {
  let bytes: Uint8Array;
  if (intent.encoding === 'hex') {
    bytes = transactionBytes(intent.unsignedTransaction);
  } else {
    try {
      bytes = base64.decode(intent.unsignedTransaction);
    } catch {
      failedToParse('unsignedTransaction is not base64');
    }
  }
  if (bytes.length > SOLANA_MAX_TRANSACTION_BYTES) {
    failedToParse(`a Solana transaction is at most ${SOLANA_MAX_TRANSACTION_BYTES} bytes`);
  }
  const parsed = parseSolanaTransaction(bytes);
  const slots = parsed.signatures;
  let message = parsed.messageBytes;
  if (intent.recentBlockhash !== undefined) {
    let blockhash: Uint8Array;
    try {
      blockhash = base58.decode(intent.recentBlockhash);
    } catch {
      failedToParse('recentBlockhash is not base58');
    }
    if (blockhash.length !== BLOCKHASH_BYTES) failedToParse('recentBlockhash is not 32 bytes');
    if (!equalBytes(blockhash, parsed.message.recentBlockhash)) {
      message = Uint8Array.from(message);
      message.set(blockhash, blockhashOffset(parsed));
      return bytesToHex(
        transactionOf(
          slots.map(() => new Uint8Array(SIGNATURE_BYTES)),
          message,
        ),
      );
    }
  }
  return bytesToHex(transactionOf(slots, message));
}

/**
 * True when the message's recent blockhash is the all-zero placeholder a client leaves for the
 * sender to fill (`11111111111111111111111111111111` in base58).
 * @example
 * hasPlaceholderBlockhash(parseSolanaTransaction(bytes)); // true
 */
export function hasPlaceholderBlockhash(parsed: ParsedSolanaTransaction): boolean {
  return parsed.message.recentBlockhash.every((byte) => byte === 0);
}

/** A signed Solana transaction as it is sent and tracked. */
export interface SignedSolanaTransaction {
  /** The transaction's id: its first signature (the fee payer's), base58. */
  readonly signature: string;
  /** The fee payer, base58. */
  readonly feePayer: string;
  /** The wire bytes, base64 (what `sendTransaction` takes). */
  readonly wireBase64: string;
  /** The wire bytes, hex without `0x`. */
  readonly hex: string;
  /** Required signers whose slot is still zero, base58. */
  readonly unsigned: readonly string[];
}

/**
 * Reads a signed Solana transaction (hex): its id, fee payer, wire bytes and missing signers.
 * @example
 * signedSolanaTransaction(signedTransaction).signature; // '5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnb…'
 */
export function signedSolanaTransaction(hex: string): SignedSolanaTransaction {
  const bytes = transactionBytes(hex);
  const parsed = parseSolanaTransaction(bytes);
  const zero = (slot: Uint8Array) => slot.every((byte) => byte === 0);
  return {
    signature: base58.encode(parsed.signatures[0]!),
    feePayer: parsed.view.required_signers[0]!,
    wireBase64: base64.encode(bytes),
    hex: bytesToHex(bytes),
    unsigned: parsed.view.required_signers.filter((_, i) => zero(parsed.signatures[i]!)),
  };
}

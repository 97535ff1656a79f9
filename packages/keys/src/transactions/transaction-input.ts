/**
 * The edge of SIGN_TRANSACTION: the hex of `unsignedTransaction` to bytes, and the three ways
 * a transaction can be refused. A parse failure never echoes the input; `reason` says what is
 * wrong in words and, where it helps, at which byte.
 * @module
 */
import { KeyholdError } from '@keyhold/protocol';
import { hexToBytes } from '@noble/hashes/utils.js';

const HEX_DIGITS = /^[0-9a-fA-F]*$/;

/**
 * Decodes `unsignedTransaction`: hex digits, `0x` optional, either case, an even number of
 * digits, at least one byte. Anything else is INVALID_TRANSACTION.
 * @example
 * transactionBytes('0x02c0'); // Uint8Array [2, 192]
 * transactionBytes('zz'); // throws "failed to parse transaction"
 */
export function transactionBytes(hex: string): Uint8Array {
  if (typeof hex !== 'string') failedToParse('unsignedTransaction must be a hex string');
  const digits = /^0[xX]/.test(hex) ? hex.slice(2) : hex;
  if (!HEX_DIGITS.test(digits)) failedToParse('unsignedTransaction is not hexadecimal');
  if (digits.length % 2 === 1) failedToParse('unsignedTransaction has an odd number of hex digits');
  if (digits.length === 0) failedToParse('unsignedTransaction is empty');
  return hexToBytes(digits);
}

/**
 * Throws INVALID_TRANSACTION ("failed to parse transaction") with a reason.
 * @example
 * failedToParse('trailing bytes after the message');
 */
export function failedToParse(reason: string, context: Record<string, unknown> = {}): never {
  throw new KeyholdError('INVALID_TRANSACTION', { ...context, reason });
}

/**
 * Throws SIGNER_NOT_IN_TRANSACTION: the key is valid but the transaction does not ask for its
 * signature (not a required Solana signer, no Bitcoin input it can spend).
 * @example
 * signerNotInTransaction('the key is not one of the 2 required signers');
 */
export function signerNotInTransaction(reason: string): never {
  throw new KeyholdError('SIGNER_NOT_IN_TRANSACTION', { reason });
}

/**
 * Throws TRANSACTION_INPUT_NOT_SIGNABLE: an input the key owns cannot be signed as it stands.
 * @example
 * inputNotSignable(0, 'legacy input without nonWitnessUtxo');
 */
export function inputNotSignable(input: number, reason: string): never {
  throw new KeyholdError('TRANSACTION_INPUT_NOT_SIGNABLE', { input, reason });
}

/** The message of an unknown thrown value, for a `reason` (never includes input bytes). */
export function reasonOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  // Library messages can quote the input; keep the first line and bound it.
  return (text.split('\n')[0] ?? '').slice(0, 200);
}

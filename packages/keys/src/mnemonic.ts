/**
 * BIP39 mnemonics (English wordlist), on top of @scure/bip39: generation at the five lengths
 * the protocol allows, validation with the checksum, and the two ways back: to the entropy
 * (what a vault stores, so the mnemonic can be exported again) and to the 64-byte seed (what
 * key derivation starts from). Input is normalized first (NFKD, lower case, single spaces), so
 * a pasted mnemonic with a stray newline still imports as the same wallet.
 * @module
 */
import { KeyholdError, MNEMONIC_LENGTHS } from '@keyhold/protocol';
import {
  entropyToMnemonic as scureEntropyToMnemonic,
  generateMnemonic as scureGenerateMnemonic,
  mnemonicToEntropy as scureMnemonicToEntropy,
  mnemonicToSeed as scureMnemonicToSeed,
  mnemonicToSeedSync as scureMnemonicToSeedSync,
  validateMnemonic as scureValidateMnemonic,
} from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';

/** A mnemonic length the protocol allows: 12, 15, 18, 21 or 24 words. */
export type MnemonicLength = (typeof MNEMONIC_LENGTHS)[number];

/**
 * The entropy size in bytes of a mnemonic of `wordCount` words (16 for 12 … 32 for 24).
 * Refuses other lengths with INVALID_MNEMONIC_LENGTH.
 * @example
 * mnemonicEntropyLength(24); // 32
 */
export function mnemonicEntropyLength(wordCount: number): number {
  if (!(MNEMONIC_LENGTHS as readonly number[]).includes(wordCount)) {
    throw new KeyholdError('INVALID_MNEMONIC_LENGTH', { mnemonicLength: wordCount });
  }
  return (wordCount / 3) * 4;
}

/**
 * A new random English mnemonic of `wordCount` words (default 12).
 * @example
 * generateMnemonic(24).split(' ').length; // 24
 */
export function generateMnemonic(wordCount: number = 12): string {
  return scureGenerateMnemonic(wordlist, mnemonicEntropyLength(wordCount) * 8);
}

/**
 * The canonical form of a mnemonic: NFKD, lower case, words separated by single spaces.
 * @example
 * normalizeMnemonic('  Abandon  abandon\nabout '); // 'abandon abandon about'
 */
export function normalizeMnemonic(mnemonic: string): string {
  return mnemonic.normalize('NFKD').trim().toLowerCase().split(/\s+/u).join(' ');
}

/**
 * True when `mnemonic` (after normalization) is a valid English BIP39 mnemonic of an allowed
 * length with a correct checksum.
 * @example
 * isValidMnemonic('abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'); // true
 */
export function isValidMnemonic(mnemonic: string): boolean {
  return (
    typeof mnemonic === 'string' && scureValidateMnemonic(normalizeMnemonic(mnemonic), wordlist)
  );
}

/**
 * Returns the normalized mnemonic, or refuses an invalid one with INVALID_MNEMONIC (the
 * mnemonic itself is never put in the error).
 * @example
 * const canonical = assertValidMnemonic(userInput);
 */
export function assertValidMnemonic(mnemonic: string): string {
  if (!isValidMnemonic(mnemonic)) {
    const words = typeof mnemonic === 'string' ? normalizeMnemonic(mnemonic).split(' ').length : 0;
    throw new KeyholdError('INVALID_MNEMONIC', { wordCount: words });
  }
  return normalizeMnemonic(mnemonic);
}

/**
 * The entropy a mnemonic encodes (16–32 bytes). Refuses an invalid mnemonic.
 * @example
 * mnemonicToEntropy('legal winner thank year wave sausage worth useful legal winner thank yellow');
 * // Uint8Array(16) 7f7f…7f
 */
export function mnemonicToEntropy(mnemonic: string): Uint8Array {
  return scureMnemonicToEntropy(assertValidMnemonic(mnemonic), wordlist);
}

/**
 * The English mnemonic of 16, 20, 24, 28 or 32 bytes of entropy.
 * @example
 * entropyToMnemonic(new Uint8Array(16)); // 'abandon abandon … about'
 */
export function entropyToMnemonic(entropy: Uint8Array): string {
  return scureEntropyToMnemonic(entropy, wordlist);
}

/**
 * The 64-byte BIP39 seed (PBKDF2-HMAC-SHA512, 2048 rounds) of a mnemonic and an optional
 * passphrase. Wallets in Keyhold use the empty passphrase. Blocks for a few milliseconds;
 * prefer `mnemonicToSeed` on a server.
 * @example
 * mnemonicToSeedSync(mnemonic, 'TREZOR').length; // 64
 */
export function mnemonicToSeedSync(mnemonic: string, passphrase = ''): Uint8Array {
  return scureMnemonicToSeedSync(assertValidMnemonic(mnemonic), passphrase);
}

/**
 * Like `mnemonicToSeedSync`, but yields to the event loop while PBKDF2 runs.
 * @example
 * const seed = await mnemonicToSeed(mnemonic);
 */
export async function mnemonicToSeed(mnemonic: string, passphrase = ''): Promise<Uint8Array> {
  return scureMnemonicToSeed(assertValidMnemonic(mnemonic), passphrase);
}

/**
 * The key formats of `INJECT_KEY_EXPORT_BUNDLE` and `EXTRACT_KEY_ENCRYPTED_BUNDLE`:
 * `HEXADECIMAL` (64 hex digits, the default) and `SOLANA` (base58 of the 32-byte Ed25519 seed
 * followed by its 32-byte public key, as Phantom and Solflare write it).
 * @module
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import { bytesToHex, concatBytes, hexToBytes } from '@noble/hashes/utils.js';
import { base58 } from '@scure/base';

/** A format this frame reads and writes. */
export type KeyFormat = 'HEXADECIMAL' | 'SOLANA';

/** The format a message names (absent: HEXADECIMAL); an Error for one this frame lacks. */
export function keyFormatOf(value: unknown): KeyFormat {
  if (value === undefined || value === null || value === 'HEXADECIMAL') return 'HEXADECIMAL';
  if (value === 'SOLANA') return 'SOLANA';
  throw new Error(`unsupported key format: ${String(value)}`);
}

/** How an exported 32-byte private key is shown. */
export function encodePrivateKey(key: Uint8Array, format: KeyFormat): string {
  if (key.length !== 32) throw new Error('the exported key is not 32 bytes');
  if (format === 'SOLANA') return base58.encode(concatBytes(key, ed25519.getPublicKey(key)));
  return bytesToHex(key);
}

/** The 32 private-key bytes of what the user typed, in `format`. */
export function decodePrivateKey(text: string, format: KeyFormat): Uint8Array {
  if (format === 'SOLANA') {
    let bytes: Uint8Array;
    try {
      bytes = base58.decode(text);
    } catch {
      throw new Error('the key is not base58');
    }
    if (bytes.length !== 64) throw new Error('a Solana key is 64 bytes');
    return bytes.slice(0, 32);
  }
  const hex = text.startsWith('0x') ? text.slice(2) : text;
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) throw new Error('the key is not 64 hex digits');
  return hexToBytes(hex);
}

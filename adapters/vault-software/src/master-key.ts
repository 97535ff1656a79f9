/**
 * The master key of the software vault: 32 random bytes that encrypt every seed and key at
 * rest. It is configuration, not data: it lives outside the Store (an environment variable, a
 * file readable only by the service, a secrets manager), so a copy of the database alone
 * reveals nothing. These helpers create one and read one from hex, refusing anything that is
 * not exactly 32 bytes and never echoing the input in an error.
 * @module
 */
import { webcrypto } from 'node:crypto';

/** The master key size in bytes (AES-256). */
export const MASTER_KEY_LENGTH = 32;

/**
 * A new random master key (32 bytes from the OS CSPRNG).
 * @example
 * const masterKey = generateMasterKey();
 * const vault = new SoftwareKeyVault({ masterKey });
 */
export function generateMasterKey(): Uint8Array {
  return webcrypto.getRandomValues(new Uint8Array(MASTER_KEY_LENGTH));
}

/**
 * Reads a master key from 64 hex characters (an optional `0x` and surrounding whitespace, such
 * as a trailing newline in a key file, are allowed). Throws a plain Error otherwise: a bad
 * master key is a deployment fault, not a client error.
 * @example
 * const vault = new SoftwareKeyVault({ masterKey: masterKeyFromHex(process.env.KEYHOLD_MASTER_KEY ?? '') });
 */
export function masterKeyFromHex(hex: string): Uint8Array {
  const digits = typeof hex === 'string' ? hex.trim().replace(/^0x/i, '') : '';
  if (!/^[0-9a-fA-F]{64}$/.test(digits)) {
    throw new Error('master key must be 64 hex characters (32 bytes)');
  }
  return Uint8Array.from(Buffer.from(digits, 'hex'));
}

/**
 * Tron addresses: base58check (4-byte double-SHA256 checksum, @scure/base) of `0x41` followed by
 * the last 20 bytes of keccak256 of the 64-byte uncompressed key `x ‖ y` (the Ethereum account
 * hash with Tron's mainnet prefix byte), as in the Tron developer docs ("Account" → address
 * format). Always starts with `T`.
 * @module
 */
import { keccak_256 } from '@noble/hashes/sha3.js';
import { base58check } from './address-bitcoin.js';
import { decompressPublicKey } from './public-key.js';

/** Tron's address prefix byte (mainnet and the public testnets alike). */
export const TRON_PREFIX = 0x41;

/**
 * The 21-byte Tron address bytes (`41 ‖ keccak256(x‖y)[12:]`) of a secp256k1 key.
 * @example
 * tronAddressBytes(compressed)[0]; // 0x41
 */
export function tronAddressBytes(publicKey: Uint8Array): Uint8Array {
  const uncompressed = decompressPublicKey('CURVE_SECP256K1', publicKey);
  return Uint8Array.of(TRON_PREFIX, ...keccak_256(uncompressed.subarray(1)).subarray(12));
}

/**
 * The base58check Tron address of a secp256k1 key.
 * @example
 * tronAddress(compressed); // 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH'
 */
export function tronAddress(publicKey: Uint8Array): string {
  return base58check.encode(tronAddressBytes(publicKey));
}

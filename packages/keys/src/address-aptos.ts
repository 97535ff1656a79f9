/**
 * Aptos addresses of a single Ed25519 key: the authentication key
 * `sha3-256(public key ‖ 0x00)` (scheme byte 0x00 = legacy Ed25519), which is the account
 * address of an account created from that key, written in AIP-40's long form: `0x` + all 64
 * lowercase hex digits, leading zeros kept (aptos-ts-sdk `AuthenticationKey.fromPublicKey`,
 * `AccountAddress.toStringLong`). Hash: @noble/hashes sha3_256.
 * @module
 */
import { sha3_256 } from '@noble/hashes/sha3.js';
import { bytesToHex } from '@noble/hashes/utils.js';

/** Aptos's authentication-key scheme byte for a single legacy Ed25519 key. */
export const APTOS_ED25519_SCHEME = 0x00;

/**
 * The Aptos account address of a 32-byte Ed25519 public key.
 * @example
 * aptosAddress(pub); // '0x…' (66 characters)
 */
export function aptosAddress(publicKey: Uint8Array): string {
  return `0x${bytesToHex(sha3_256(Uint8Array.of(...publicKey, APTOS_ED25519_SCHEME)))}`;
}

/**
 * Sui addresses: `0x` + 64 lowercase hex of blake2b-256(flag ‖ public key), flag 0x00 for
 * Ed25519 (Sui docs, "Address format"; @mysten/sui `toSuiAddress`). Sui also defines flags 0x01
 * (secp256k1) and 0x02 (secp256r1), but Turnkey derives ADDRESS_FORMAT_SUI from Ed25519 keys
 * only (docs.turnkey.com/networks/sui, the SDK's default Sui account), so only 0x00 is used.
 * Hash: @noble/hashes blake2b.
 * @module
 */
import { blake2b } from '@noble/hashes/blake2.js';
import { bytesToHex } from '@noble/hashes/utils.js';

/** Sui's signature-scheme flag for Ed25519. */
export const SUI_ED25519_FLAG = 0x00;

/**
 * The Sui address of a 32-byte Ed25519 public key.
 * @example
 * suiAddress(pub); // '0x…' (66 characters)
 */
export function suiAddress(publicKey: Uint8Array): string {
  return `0x${bytesToHex(blake2b(Uint8Array.of(SUI_ED25519_FLAG, ...publicKey), { dkLen: 32 }))}`;
}

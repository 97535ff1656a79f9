/**
 * Cosmos SDK account addresses (Cosmos Hub, Sei): bech32 of the 20-byte account id
 * `ripemd160(sha256(K))`, K the 33-byte compressed secp256k1 key (cosmos-sdk
 * `crypto/keys/secp256k1`), with the chain's human-readable prefix. Sei's native account
 * address is this bech32 form with prefix `sei` (Sei also maps each key to an EVM `0x`
 * address; ADDRESS_FORMAT_SEI is the bech32 one, Turnkey's Sei docs and its default path
 * `m/44'/118'/…` are the Cosmos ones). Encoding: @scure/base bech32 (BIP173 checksum).
 * @module
 */
import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bech32 } from '@scure/base';

/** The bech32 prefixes of the Cosmos-family formats. */
export const COSMOS_PREFIX = Object.freeze({ COSMOS: 'cosmos', SEI: 'sei' } as const);

/**
 * The 20-byte account id of a compressed secp256k1 key.
 * @example
 * cosmosAccountId(compressed).length; // 20
 */
export function cosmosAccountId(publicKey: Uint8Array): Uint8Array {
  return ripemd160(sha256(publicKey));
}

/**
 * The bech32 address of a compressed secp256k1 key under `prefix`.
 * @example
 * cosmosAddress('cosmos', compressed); // 'cosmos19rl4cm2hmr8afy4kldpxz3fka4jguq0auqdal4'
 */
export function cosmosAddress(prefix: string, publicKey: Uint8Array): string {
  return bech32.encode(prefix, bech32.toWords(cosmosAccountId(publicKey)));
}

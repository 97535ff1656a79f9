/**
 * XRP Ledger classic addresses (ADDRESS_FORMAT_XRP) of a secp256k1 key: the 20-byte account id
 * `ripemd160(sha256(K))` of the 33-byte compressed key, prefixed with the type byte 0x00, a
 * 4-byte double-SHA256 checksum appended, written in the Ripple base58 alphabet
 * (`rpshnaf39wBUDNEGHJKLM4PQRST7VWXYZ2bcdeCg65jkm8oFqi1tuvAxyz`), so it starts with `r`
 * (xrpl.org "Addresses" and "Cryptographic Keys"; ripple-address-codec). @scure/base supplies
 * the alphabet (`base58xrp`); @noble/hashes the hashes.
 * @module
 */
import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { base58xrp } from '@scure/base';

/** Type prefix of an XRPL account id in base58. */
export const XRP_ACCOUNT_ID_PREFIX = 0x00;

/**
 * The XRPL classic address of a 20-byte account id.
 * @example
 * xrpAddressOfAccountId(new Uint8Array(20)); // 'rrrrrrrrrrrrrrrrrrrrrhoLvTp' (ACCOUNT_ZERO)
 */
export function xrpAddressOfAccountId(accountId: Uint8Array): string {
  const payload = Uint8Array.of(XRP_ACCOUNT_ID_PREFIX, ...accountId);
  const checksum = sha256(sha256(payload)).subarray(0, 4);
  return base58xrp.encode(Uint8Array.of(...payload, ...checksum));
}

/**
 * The XRPL classic address of a compressed secp256k1 key.
 * @example
 * xrpAddress(compressed); // 'r…'
 */
export function xrpAddress(publicKey: Uint8Array): string {
  return xrpAddressOfAccountId(ripemd160(sha256(publicKey)));
}

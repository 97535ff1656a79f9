/**
 * @keyhold/keys — the pure key domain: BIP39 mnemonics, BIP32 and SLIP-10 derivation, public
 * keys and addresses, payload encodings and hashes, the wire form of signatures, and the
 * KeyVault port that adapters (software, PKCS#11) implement. No I/O.
 * @module
 */

export * from './address.js';
export * from './address-format.js';
export * from './curves.js';
export * from './derivation-path.js';
export * from './hd-derivation.js';
export * from './key-vault.js';
export * from './mnemonic.js';
export * from './payload.js';
export * from './public-key.js';
export * from './signature-format.js';
export * from './slip10.js';

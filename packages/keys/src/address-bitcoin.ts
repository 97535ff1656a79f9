/**
 * Bitcoin and Dogecoin addresses of one secp256k1 key, built with @scure/btc-signer (scripts,
 * hash160, the BIP86 Taproot tweak, base58check, bech32/bech32m). Nothing here is hand-written
 * beyond the table of network prefixes.
 *
 * What each Turnkey type means for a single key:
 *
 * | type   | script                                   | encoding                      |
 * | ------ | ---------------------------------------- | ----------------------------- |
 * | P2PKH  | `pkh(K)`: DUP HASH160 <h160(K)> EQUALVERIFY CHECKSIG | base58check(pubKeyHash ‖ h160) |
 * | P2SH   | `sh(wpkh(K))` (nested SegWit, BIP49)     | base58check(scriptHash ‖ h160(0014‖h160(K))) |
 * | P2WPKH | `wpkh(K)` (BIP84)                        | bech32, witness v0, 20 bytes  |
 * | P2WSH  | `wsh(pk(K))`: witness script `21 K AC` (`<K> OP_CHECKSIG`) | bech32, witness v0, sha256(script) |
 * | P2TR   | `tr(K)` key path only, BIP86 tweak (empty script tree) | bech32m, witness v1, tweaked x-only key |
 *
 * P2SH is nested SegWit because that is what Turnkey's own example derives for
 * ADDRESS_FORMAT_BITCOIN_*_P2SH (tkhq/sdk `examples/with-bitcoin/src/p2sh`, `p2sh(p2wpkh(K))`) and
 * its wallet docs list BIP49 (`m/49'/…`) for it. P2WSH of a single key has no BIP of its own;
 * `wsh(pk(K))` is the script BIP173's P2WSH examples use for one key, so an address can be
 * checked against them. The key is always the 33-byte compressed form (SegWit forbids the
 * uncompressed one).
 * @module
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { createBase58check } from '@scure/base';
import { NETWORK, p2pk, p2pkh, p2sh, p2tr, p2wpkh, p2wsh, TEST_NETWORK } from '@scure/btc-signer';
import type { BTC_NETWORK } from '@scure/btc-signer/utils.js';

export type BitcoinNetwork = 'MAINNET' | 'TESTNET' | 'SIGNET' | 'REGTEST';
export type BitcoinAddressType = 'P2PKH' | 'P2SH' | 'P2WPKH' | 'P2WSH' | 'P2TR';

/**
 * Address prefixes per network. Signet shares testnet's (`tb`, 0x6f, 0xc4); regtest has its own
 * bech32 prefix `bcrt` (Bitcoin Core `chainparams.cpp`) and testnet's base58 versions.
 */
export const BITCOIN_NETWORKS: Readonly<Record<BitcoinNetwork, BTC_NETWORK>> = Object.freeze({
  MAINNET: NETWORK,
  TESTNET: TEST_NETWORK,
  SIGNET: TEST_NETWORK,
  REGTEST: Object.freeze({ ...TEST_NETWORK, bech32: 'bcrt' }),
});

/**
 * The `type` address of the compressed secp256k1 key `publicKey` on `network`.
 * @example
 * bitcoinAddress('MAINNET', 'P2WPKH', compressed); // 'bc1q…'
 */
export function bitcoinAddress(
  network: BitcoinNetwork,
  type: BitcoinAddressType,
  publicKey: Uint8Array,
): string {
  const net = BITCOIN_NETWORKS[network];
  const payment = (() => {
    switch (type) {
      case 'P2PKH':
        return p2pkh(publicKey, net);
      case 'P2SH':
        return p2sh(p2wpkh(publicKey, net), net);
      case 'P2WPKH':
        return p2wpkh(publicKey, net);
      case 'P2WSH':
        return p2wsh(p2pk(publicKey, net), net);
      case 'P2TR':
        return p2tr(publicKey.subarray(1), undefined, net);
    }
  })();
  if (payment.address === undefined) throw new Error(`no address for ${type}`);
  return payment.address;
}

export type DogeNetwork = 'MAINNET' | 'TESTNET';

/**
 * Dogecoin's base58 version bytes (Dogecoin Core `chainparams.cpp`): P2PKH 0x1e (`D…`) on
 * mainnet and 0x71 (`n…`) on testnet. Dogecoin has no SegWit, so only P2PKH exists.
 */
export const DOGE_PUBKEY_HASH: Readonly<Record<DogeNetwork, number>> = Object.freeze({
  MAINNET: 0x1e,
  TESTNET: 0x71,
});

/** base58check with the 4-byte double-SHA256 checksum (Bitcoin's, Dogecoin's and Tron's). */
export const base58check = createBase58check(sha256);

/**
 * The Dogecoin P2PKH address of the compressed key `publicKey`: base58check of the version
 * byte and hash160(key), the hash taken from btc-signer's `p2pkh` script.
 * @example
 * dogeAddress('MAINNET', compressed); // 'D…'
 */
export function dogeAddress(network: DogeNetwork, publicKey: Uint8Array): string {
  const { hash } = p2pkh(publicKey);
  return base58check.encode(Uint8Array.of(DOGE_PUBKEY_HASH[network], ...hash));
}

/**
 * The address of a public key in a given format: what `createWallet` and `createPrivateKeys`
 * return and what `signWith` accepts. One encoder per format, each built on the chain's audited
 * library code (`ox`, @scure/btc-signer, @scure/base, @noble/hashes); the chain families live in
 * `address-*.ts`:
 *
 * - ETHEREUM: EIP-55 checksummed keccak address (`ox`). COMPRESSED / UNCOMPRESSED: the public key
 *   as hex, no `0x`. SOLANA: base58 of the 32-byte key.
 * - COSMOS, SEI: bech32 of ripemd160(sha256(K)) (`address-cosmos.ts`). TRON: base58check of
 *   `41 ‖ keccak(x‖y)[12:]` (`address-tron.ts`). XRP: Ripple-alphabet base58check of
 *   ripemd160(sha256(K)) (`address-xrp.ts`).
 * - BITCOIN_{MAINNET,TESTNET,SIGNET,REGTEST}_{P2PKH,P2SH,P2WPKH,P2WSH,P2TR} and DOGE_{MAINNET,
 *   TESTNET} (`address-bitcoin.ts`, which documents the script of each type).
 * - SUI (`address-sui.ts`), APTOS (`address-aptos.ts`), XLM (`address-stellar.ts`),
 *   SPARK_{MAINNET,REGTEST} (`address-spark.ts`).
 * - TON_V3R2, TON_V4R2, TON_V5R1: the mainnet workchain-0 address of that standard wallet
 *   contract's StateInit (code + data holding the key), hashed with `@ton/core`, written
 *   non-bounceable url-safe (`UQ…`) (`address-ton.ts`, which gives the evidence for that form).
 *
 * A curve the format cannot encode is refused with INVALID_ADDRESS_FORMAT.
 *
 * Ed25519 with UNCOMPRESSED is refused: an Ed25519 key has one 32-byte encoding and no
 * `04 ‖ x ‖ y` form, so any answer would be invented. Ed25519 with COMPRESSED is its 32 bytes.
 * @module
 */
import { ADDRESS_FORMATS, type AddressFormat, type Curve, KeyholdError } from '@keyhold/protocol';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { base58 } from '@scure/base';
import { checksum } from 'ox/Address';
import { aptosAddress } from './address-aptos.js';
import {
  type BitcoinAddressType,
  type BitcoinNetwork,
  bitcoinAddress,
  dogeAddress,
} from './address-bitcoin.js';
import { COSMOS_PREFIX, cosmosAddress } from './address-cosmos.js';
import { curvesForAddressFormat } from './address-format.js';
import { sparkAddress } from './address-spark.js';
import { stellarAddress } from './address-stellar.js';
import { suiAddress } from './address-sui.js';
import { tonAddress } from './address-ton.js';
import { tronAddress } from './address-tron.js';
import { xrpAddress } from './address-xrp.js';
import { assertCurve } from './curves.js';
import { compressPublicKey, decompressPublicKey } from './public-key.js';

const ETHEREUM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** Encodes the stored form of a key (compressed SEC1, or Ed25519's 32 bytes), already checked. */
type Encoder = (publicKey: Uint8Array, curve: Curve) => string;

const BITCOIN_NETWORKS: readonly BitcoinNetwork[] = ['MAINNET', 'TESTNET', 'SIGNET', 'REGTEST'];
const BITCOIN_TYPES: readonly BitcoinAddressType[] = ['P2PKH', 'P2SH', 'P2WPKH', 'P2WSH', 'P2TR'];

const ENCODERS: Partial<Record<AddressFormat, Encoder>> = {
  ADDRESS_FORMAT_UNCOMPRESSED: (key, curve) => bytesToHex(decompressPublicKey(curve, key)),
  ADDRESS_FORMAT_COMPRESSED: (key) => bytesToHex(key),
  ADDRESS_FORMAT_ETHEREUM: (key) => ethereumAddress(key),
  ADDRESS_FORMAT_SOLANA: (key) => base58.encode(key),
  ADDRESS_FORMAT_COSMOS: (key) => cosmosAddress(COSMOS_PREFIX.COSMOS, key),
  ADDRESS_FORMAT_TRON: (key) => tronAddress(key),
  ADDRESS_FORMAT_SUI: (key) => suiAddress(key),
  ADDRESS_FORMAT_APTOS: (key) => aptosAddress(key),
  ...(Object.fromEntries(
    BITCOIN_NETWORKS.flatMap((network) =>
      BITCOIN_TYPES.map((type): [string, Encoder] => [
        `ADDRESS_FORMAT_BITCOIN_${network}_${type}`,
        (key) => bitcoinAddress(network, type, key),
      ]),
    ),
  ) as Partial<Record<AddressFormat, Encoder>>),
  ADDRESS_FORMAT_SEI: (key) => cosmosAddress(COSMOS_PREFIX.SEI, key),
  ADDRESS_FORMAT_XLM: (key) => stellarAddress(key),
  ADDRESS_FORMAT_DOGE_MAINNET: (key) => dogeAddress('MAINNET', key),
  ADDRESS_FORMAT_DOGE_TESTNET: (key) => dogeAddress('TESTNET', key),
  ADDRESS_FORMAT_TON_V3R2: (key) => tonAddress('V3R2', key),
  ADDRESS_FORMAT_TON_V4R2: (key) => tonAddress('V4R2', key),
  ADDRESS_FORMAT_TON_V5R1: (key) => tonAddress('V5R1', key),
  ADDRESS_FORMAT_XRP: (key) => xrpAddress(key),
  ADDRESS_FORMAT_SPARK_MAINNET: (key) => sparkAddress('MAINNET', key),
  ADDRESS_FORMAT_SPARK_REGTEST: (key) => sparkAddress('REGTEST', key),
};

/**
 * The address formats `deriveAddress` encodes, in wire-protocol order: every format of the
 * wire protocol except UNSPECIFIED.
 * @example
 * SUPPORTED_ADDRESS_FORMATS.includes('ADDRESS_FORMAT_TON_V4R2'); // true
 * SUPPORTED_ADDRESS_FORMATS.includes('ADDRESS_FORMAT_UNSPECIFIED'); // false
 */
export const SUPPORTED_ADDRESS_FORMATS: readonly AddressFormat[] = Object.freeze(
  ADDRESS_FORMATS.filter((format) => Object.hasOwn(ENCODERS, format)),
);

/**
 * The address of `publicKey` (any SEC1 form for ECDSA curves, 32 bytes for Ed25519) in
 * `format`. Synchronous, so callers can also use it as a "may this curve use this format" check
 * with any valid key. Refuses: an unknown curve (INVALID_CURVE), a format that is unknown or
 * unable to encode a key of `curve` (INVALID_ADDRESS_FORMAT, with a `reason`), and a key that
 * is not a point of the curve (INVALID_PUBLIC_KEY).
 * @example
 * deriveAddress('ADDRESS_FORMAT_ETHEREUM', 'CURVE_SECP256K1', publicKey);
 * // '0x9858EfFD232B4033E47d90003D41EC34EcaEda94'
 * deriveAddress('ADDRESS_FORMAT_SOLANA', 'CURVE_ED25519', publicKey);
 * // 'HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk'
 * deriveAddress('ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH', 'CURVE_SECP256K1', publicKey);
 * // 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu' (at m/84'/0'/0'/0/0)
 * deriveAddress('ADDRESS_FORMAT_TON_V4R2', 'CURVE_ED25519', publicKey);
 * // 'UQDxAUFadQXDd3EXGa3TLF_EF66gMc9h3_aZ0j0zXNoIYUCc' (at m/44'/607'/0'/0'/0')
 */
export function deriveAddress(format: AddressFormat, curve: Curve, publicKey: Uint8Array): string {
  assertCurve(curve);
  const encode = Object.hasOwn(ENCODERS, format) ? ENCODERS[format] : undefined;
  if (encode === undefined) {
    // Every known format has an encoder today; a format added to the protocol enum before
    // its encoder exists gets this "not supported yet" refusal rather than a crash.
    const known = curvesForAddressFormat(format).length > 0;
    throw new KeyholdError('INVALID_ADDRESS_FORMAT', {
      addressFormat: String(format).slice(0, 64),
      reason: known ? 'address format not supported yet' : 'unknown address format',
    });
  }
  if (!curvesForAddressFormat(format).includes(curve)) {
    throw new KeyholdError('INVALID_ADDRESS_FORMAT', {
      addressFormat: format,
      curve,
      reason: `${format} cannot encode a ${curve} key`,
    });
  }
  return encode(compressPublicKey(curve, publicKey), curve);
}

/**
 * The EIP-55 mixed-case form of a `0x`-prefixed 20-byte hex address in any case (for
 * comparing a `signWith` address with stored ones). Refuses anything else with
 * INVALID_ADDRESS_FORMAT.
 * @example
 * checksumEthereumAddress('0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed');
 * // '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'
 */
export function checksumEthereumAddress(address: string): string {
  if (typeof address !== 'string' || !ETHEREUM_ADDRESS.test(address)) {
    throw new KeyholdError('INVALID_ADDRESS_FORMAT', {
      addressFormat: 'ADDRESS_FORMAT_ETHEREUM',
      reason: 'not a 0x-prefixed 20-byte hex address',
    });
  }
  return checksum(address.toLowerCase());
}

/** keccak256 of the 64-byte `x ‖ y`, last 20 bytes, EIP-55 mixed case. */
function ethereumAddress(publicKey: Uint8Array): string {
  const uncompressed = decompressPublicKey('CURVE_SECP256K1', publicKey);
  const hash = keccak_256(uncompressed.subarray(1));
  return checksum(`0x${bytesToHex(hash.subarray(12))}`);
}

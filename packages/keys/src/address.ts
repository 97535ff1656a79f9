/**
 * The address of a public key in a given format: what `createWallet` and `createPrivateKeys`
 * return and what `signWith` accepts. Supported now: ETHEREUM (EIP-55 checksummed, via `ox`),
 * COMPRESSED and UNCOMPRESSED (the public key as hex, no `0x`), SOLANA (base58 via
 * @scure/base). Every other format is refused with INVALID_ADDRESS_FORMAT and a "not supported
 * yet" detail rather than guessed, and so is a curve the format cannot encode.
 *
 * Ed25519 with UNCOMPRESSED is refused: an Ed25519 key has one 32-byte encoding and no
 * `04 ‖ x ‖ y` form, so any answer would be invented. Ed25519 with COMPRESSED is its 32 bytes.
 * @module
 */
import { type AddressFormat, type Curve, KeyholdError } from '@keyhold/protocol';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { base58 } from '@scure/base';
import { checksum } from 'ox/Address';
import { curvesForAddressFormat } from './address-format.js';
import { assertCurve } from './curves.js';
import { compressPublicKey, decompressPublicKey } from './public-key.js';

const ETHEREUM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

const SUPPORTED: readonly AddressFormat[] = [
  'ADDRESS_FORMAT_ETHEREUM',
  'ADDRESS_FORMAT_COMPRESSED',
  'ADDRESS_FORMAT_UNCOMPRESSED',
  'ADDRESS_FORMAT_SOLANA',
];

/**
 * The address of `publicKey` (any SEC1 form for ECDSA curves, 32 bytes for Ed25519) in
 * `format`. Refuses: an unknown curve (INVALID_CURVE), a key that is not a curve point
 * (INVALID_PUBLIC_KEY), a format the curve cannot use or that is not supported yet
 * (INVALID_ADDRESS_FORMAT).
 * @example
 * deriveAddress('ADDRESS_FORMAT_ETHEREUM', 'CURVE_SECP256K1', publicKey);
 * // '0x9858EfFD232B4033E47d90003D41EC34EcaEda94'
 * deriveAddress('ADDRESS_FORMAT_SOLANA', 'CURVE_ED25519', publicKey);
 * // 'HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk'
 */
export function deriveAddress(format: AddressFormat, curve: Curve, publicKey: Uint8Array): string {
  assertCurve(curve);
  if (!SUPPORTED.includes(format)) {
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
  switch (format) {
    case 'ADDRESS_FORMAT_ETHEREUM':
      return ethereumAddress(publicKey);
    case 'ADDRESS_FORMAT_COMPRESSED':
      return bytesToHex(compressPublicKey(curve, publicKey));
    case 'ADDRESS_FORMAT_UNCOMPRESSED':
      return bytesToHex(decompressPublicKey(curve, publicKey));
    default:
      return base58.encode(compressPublicKey(curve, publicKey));
  }
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

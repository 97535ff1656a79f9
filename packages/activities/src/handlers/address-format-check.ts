/**
 * Whether an address format fits a curve, asked before any key is made: derive an address
 * from a valid public key of the curve (its generator point), so the refusal is exactly the
 * one `deriveAddress` would give later.
 * @module
 */
import { deriveAddress } from '@keyhold/keys';
import type { AddressFormat, Curve } from '@keyhold/protocol';
import { hexToBytes } from '@noble/hashes/utils.js';

const SAMPLE_PUBLIC_KEY: Record<Curve, Uint8Array> = {
  CURVE_SECP256K1: hexToBytes('0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798'),
  CURVE_P256: hexToBytes('036b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296'),
  CURVE_ED25519: hexToBytes('5866666666666666666666666666666666666666666666666666666666666666'),
};

/**
 * @throws KeyholdError INVALID_ADDRESS_FORMAT (or INVALID_CURVE) as `deriveAddress` would
 */
export function assertAddressFormatFits(format: AddressFormat, curve: Curve): void {
  deriveAddress(format, curve, SAMPLE_PUBLIC_KEY[curve]);
}

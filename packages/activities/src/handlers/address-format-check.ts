/**
 * Whether an address format fits a curve, asked before any key is made: derive an address
 * from a valid public key of the curve (its generator point), so the refusal is exactly the
 * one `deriveAddress` would give later. The answer depends on the pair alone, so a pair that
 * fits is remembered: a Taproot address costs a point multiplication, and a wallet of a hundred
 * Taproot accounts would otherwise spend half a second on this check, on the request thread.
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

/** `${format} ${curve}` of the pairs that derived an address (a few dozen at most). */
const FITTING = new Set<string>();

/**
 * @throws KeyholdError INVALID_ADDRESS_FORMAT (or INVALID_CURVE) as `deriveAddress` would
 * @example
 * assertAddressFormatFits('ADDRESS_FORMAT_BITCOIN_MAINNET_P2TR', 'CURVE_SECP256K1'); // fits
 */
export function assertAddressFormatFits(format: AddressFormat, curve: Curve): void {
  const pair = `${format} ${curve}`;
  if (FITTING.has(pair)) return;
  deriveAddress(format, curve, SAMPLE_PUBLIC_KEY[curve]);
  FITTING.add(pair); // only once it derived: an unknown format or curve never gets here
}

/**
 * Checks that a submitted API public key is a valid point of its curve, so a key that can
 * never verify a stamp is refused when it is registered rather than silently stored.
 * @module
 */
import { type ApiKeyCurve, KeyholdError } from '@keyhold/protocol';
import { ed25519 } from '@noble/curves/ed25519.js';
import { p256 } from '@noble/curves/nist.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';

/**
 * @returns the key as lower-case hex
 * @throws KeyholdError INVALID_PUBLIC_KEY
 */
export function normalizeApiPublicKey(curve: ApiKeyCurve, publicKey: string): string {
  const hex = publicKey.toLowerCase().replace(/^0x/, '');
  try {
    if (curve === 'API_KEY_CURVE_ED25519') {
      if (hex.length !== 64) throw new Error('length');
      ed25519.Point.fromHex(hex);
    } else {
      if (hex.length !== 66) throw new Error('length');
      (curve === 'API_KEY_CURVE_P256' ? p256 : secp256k1).Point.fromHex(hex);
    }
  } catch {
    throw new KeyholdError('INVALID_PUBLIC_KEY', {
      reason:
        curve === 'API_KEY_CURVE_ED25519'
          ? 'expected a 32-byte Ed25519 public key as hex'
          : 'expected a compressed SEC1 public key (33 bytes) as hex',
    });
  }
  return hex;
}

/**
 * Signing with a private key that is in process memory: what every vault does once it has
 * opened a sealed key (the software vault always; the PKCS#11 vault for wallet-derived and
 * imported keys, which a token cannot derive). One implementation, so both vaults give the same
 * signatures for the same key and message.
 *
 * - secp256k1 and P-256: @noble/curves ECDSA over a 32-byte digest, RFC 6979 deterministic
 *   nonces, low-S, with the recovery id.
 * - Ed25519: node:crypto (OpenSSL), which measured ~7× faster than @noble/curves here (≈140 µs
 *   vs ≈1 ms) and gives the same RFC 8032 signatures (checked in the tests).
 * - BIP340 Schnorr for Taproot key-path spends: the key tweaked per BIP341
 *   (@scure/btc-signer's `taprootTweakPrivKey`), signed by @noble/curves `schnorr.sign` with 32
 *   bytes of fresh auxiliary randomness, as BIP340 recommends.
 *
 * Callers own the key bytes and zero them; the functions here zero the copies they make.
 * @module
 */
import { createPrivateKey, sign as nodeSign, randomBytes } from 'node:crypto';
import type { Curve } from '@keyhold/protocol';
import { KeyholdError } from '@keyhold/protocol';
import { p256 } from '@noble/curves/nist.js';
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';
import { taprootTweakPrivKey } from '@scure/btc-signer/utils.js';
import { assertCurve } from './curves.js';
import type { RawSignature } from './key-vault.js';

/**
 * Refuses a message a vault cannot sign with a key of `curve`, before any secret is opened:
 * not bytes, or not a 32-byte digest for an ECDSA curve (INVALID_PAYLOAD); an unknown curve
 * (INVALID_CURVE).
 * @example
 * assertSignableMessage('CURVE_SECP256K1', digest32); // ok
 * assertSignableMessage('CURVE_P256', new Uint8Array(31)); // throws INVALID_PAYLOAD
 */
export function assertSignableMessage(curve: Curve, message: Uint8Array): void {
  assertCurve(curve);
  if (!(message instanceof Uint8Array)) {
    throw new KeyholdError('INVALID_PAYLOAD', { reason: 'message must be bytes' });
  }
  if (curve !== 'CURVE_ED25519' && message.length !== 32) {
    throw new KeyholdError('INVALID_PAYLOAD', {
      reason: `${curve} signs a 32-byte digest; got ${message.length} bytes`,
    });
  }
}

/**
 * Signs `message` (a 32-byte digest for ECDSA curves, the message itself for Ed25519) with a
 * 32-byte private key. `publicKey` is the key's stored public key (33-byte SEC1 or Ed25519's 32
 * bytes); OpenSSL's JWK import needs it for Ed25519 and derives its own from `d`, so a wrong
 * one cannot produce a signature under another key.
 * @example
 * const { r, s, recovery } = signWithPrivateKey('CURVE_SECP256K1', privateKey, publicKey, digest);
 */
export function signWithPrivateKey(
  curve: Curve,
  privateKey: Uint8Array,
  publicKey: Uint8Array,
  message: Uint8Array,
): RawSignature {
  assertSignableMessage(curve, message);
  if (curve === 'CURVE_ED25519') return signEd25519(privateKey, publicKey, message);
  const ecdsa = curve === 'CURVE_SECP256K1' ? secp256k1 : p256;
  const signature = ecdsa.sign(message, privateKey, {
    prehash: false,
    lowS: true,
    format: 'recovered',
  });
  const recovery = signature[0];
  // Ids 2 and 3 need r ≥ n: probability ~2^-128; refuse rather than mis-encode.
  if (recovery !== 0 && recovery !== 1) throw new Error('unexpected ECDSA recovery id');
  return { r: signature.slice(1, 33), s: signature.slice(33, 65), recovery };
}

/**
 * Refuses a Taproot signing request before any secret is opened: a 32-byte sighash digest and
 * a merkle root of 0 bytes (key-path-only output, BIP86) or 32 bytes (INVALID_PAYLOAD), a
 * secp256k1 key (INVALID_CURVE otherwise).
 * @example
 * assertTaprootRequest('CURVE_SECP256K1', digest32, new Uint8Array()); // ok
 */
export function assertTaprootRequest(curve: Curve, digest: Uint8Array, merkleRoot: Uint8Array) {
  assertCurve(curve);
  if (curve !== 'CURVE_SECP256K1') {
    throw new KeyholdError('INVALID_CURVE', {
      curve,
      reason: 'Taproot (BIP340) signatures need a secp256k1 key',
    });
  }
  if (!(digest instanceof Uint8Array) || digest.length !== 32) {
    throw new KeyholdError('INVALID_PAYLOAD', { reason: 'a Taproot sighash is 32 bytes' });
  }
  if (
    !(merkleRoot instanceof Uint8Array) ||
    (merkleRoot.length !== 0 && merkleRoot.length !== 32)
  ) {
    throw new KeyholdError('INVALID_PAYLOAD', {
      reason: 'a Taproot merkle root is empty or 32 bytes',
    });
  }
}

/**
 * The 64-byte BIP340 signature over a Taproot sighash `digest` by `privateKey` tweaked per
 * BIP341 with `merkleRoot` (empty for a key-path-only output, BIP86). It verifies under the
 * output key `taprootTweakPubkey(xOnly(publicKey), merkleRoot)`, the key a P2TR address commits
 * to.
 * @example
 * const signature = signTaprootWithPrivateKey(privateKey, sighash, new Uint8Array());
 * schnorr.verify(signature, sighash, outputKey); // true
 */
export function signTaprootWithPrivateKey(
  privateKey: Uint8Array,
  digest: Uint8Array,
  merkleRoot: Uint8Array,
): Uint8Array {
  assertTaprootRequest('CURVE_SECP256K1', digest, merkleRoot);
  const tweaked = taprootTweakPrivKey(privateKey, merkleRoot);
  try {
    return schnorr.sign(digest, tweaked, randomBytes(32));
  } finally {
    tweaked.fill(0);
  }
}

function signEd25519(
  privateKey: Uint8Array,
  publicKey: Uint8Array,
  message: Uint8Array,
): RawSignature {
  const d = Buffer.from(privateKey);
  const keyObject = createPrivateKey({
    key: {
      kty: 'OKP',
      crv: 'Ed25519',
      d: d.toString('base64url'),
      x: Buffer.from(publicKey).toString('base64url'),
    },
    format: 'jwk',
  });
  d.fill(0);
  const signature = nodeSign(null, message, keyObject);
  return {
    r: Uint8Array.from(signature.subarray(0, 32)),
    s: Uint8Array.from(signature.subarray(32, 64)),
  };
}

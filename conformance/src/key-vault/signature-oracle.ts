/**
 * Independent judgement of what a vault returns, with @noble/curves and @scure/btc-signer only:
 * public keys of private keys, signature verification (ECDSA: valid, low-S, and the recovery
 * id recovers the key; Ed25519: valid over the message itself, verified strictly as RFC 8032
 * and OpenSSL do rather than by ZIP-215's looser rules), the signatures a deterministic
 * signer must produce (RFC 6979 / RFC 8032), and BIP341 output keys for Taproot.
 * @module
 */
import assert from 'node:assert/strict';
import type { RawSignature } from '@keyhold/keys';
import type { Curve } from '@keyhold/protocol';
import { ed25519 } from '@noble/curves/ed25519.js';
import { p256 } from '@noble/curves/nist.js';
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { taprootTweakPubkey } from '@scure/btc-signer/utils.js';

/**
 * The curves of the KeyVault port.
 * @example
 * const curve: VaultCurve = 'CURVE_ED25519';
 */
export type VaultCurve = 'CURVE_SECP256K1' | 'CURVE_P256' | 'CURVE_ED25519';

/**
 * Every curve of the port, in the order checks use them.
 * @example
 * for (const curve of VAULT_CURVES) await vault.createKey(curve);
 */
export const VAULT_CURVES: readonly VaultCurve[] = [
  'CURVE_SECP256K1',
  'CURVE_P256',
  'CURVE_ED25519',
];

/**
 * The ECDSA curves (they sign 32-byte digests and return a recovery id).
 * @example
 * ECDSA_CURVES.includes('CURVE_P256'); // true
 */
export const ECDSA_CURVES: readonly VaultCurve[] = ['CURVE_SECP256K1', 'CURVE_P256'];

/**
 * The @noble implementation of an ECDSA curve.
 * @example
 * nobleEcdsa('CURVE_P256').Point.Fn.ORDER; // n of P-256
 */
export function nobleEcdsa(curve: Curve): typeof secp256k1 {
  return curve === 'CURVE_P256' ? p256 : secp256k1;
}

/**
 * The stored form of the public key of `privateKey`: SEC1 compressed, or Ed25519's 32 bytes.
 * @example
 * publicKeyOf('CURVE_SECP256K1', privateKey).length; // 33
 */
export function publicKeyOf(curve: Curve, privateKey: Uint8Array): Uint8Array {
  return curve === 'CURVE_ED25519'
    ? ed25519.getPublicKey(privateKey)
    : nobleEcdsa(curve).getPublicKey(privateKey, true);
}

/**
 * A fresh random private key of `curve` (a scalar in [1, n−1], or 32 random bytes).
 * @example
 * await vault.importKey('CURVE_P256', randomPrivateKey('CURVE_P256'));
 */
export function randomPrivateKey(curve: Curve): Uint8Array {
  return curve === 'CURVE_ED25519'
    ? ed25519.utils.randomSecretKey()
    : nobleEcdsa(curve).utils.randomSecretKey();
}

/**
 * Asserts that `publicKey` is a valid key in the stored form of `curve`: a 33-byte compressed
 * point of the curve, or 32 bytes that decode to an Ed25519 point.
 * @example
 * assertPublicKey('CURVE_P256', (await vault.createKey('CURVE_P256')).publicKey, 'createKey');
 */
export function assertPublicKey(curve: Curve, publicKey: unknown, what: string): void {
  assert.ok(publicKey instanceof Uint8Array, `${what}: the public key is not a Uint8Array`);
  const size = curve === 'CURVE_ED25519' ? 32 : 33;
  assert.equal(publicKey.length, size, `${what}: a ${curve} public key must be ${size} bytes`);
  try {
    if (curve === 'CURVE_ED25519') ed25519.Point.fromBytes(publicKey);
    else nobleEcdsa(curve).Point.fromBytes(publicKey).assertValidity();
  } catch {
    assert.fail(`${what}: ${bytesToHex(publicKey)} is not a point of ${curve}`);
  }
}

/**
 * Asserts that `signature` is what a Keyhold vault must return for `message` under
 * `publicKey`: for ECDSA, 32-byte r and s, a valid signature over the 32-byte digest, low-S,
 * and a recovery id (0 or 1) that recovers `publicKey`; for Ed25519, 32-byte r and s that
 * verify over the message itself, and no recovery id.
 * @example
 * assertValidSignature('CURVE_SECP256K1', publicKey, digest, await vault.sign(key, 'CURVE_SECP256K1', digest), 'sign');
 */
export function assertValidSignature(
  curve: Curve,
  publicKey: Uint8Array,
  message: Uint8Array,
  signature: RawSignature,
  what: string,
): void {
  assert.ok(signature && typeof signature === 'object', `${what}: no signature object`);
  const { r, s, recovery } = signature;
  assert.ok(r instanceof Uint8Array && r.length === 32, `${what}: r must be 32 bytes`);
  assert.ok(s instanceof Uint8Array && s.length === 32, `${what}: s must be 32 bytes`);
  const compact = new Uint8Array([...r, ...s]);
  if (curve === 'CURVE_ED25519') {
    assert.equal(recovery, undefined, `${what}: an Ed25519 signature has no recovery id`);
    assert.ok(
      ed25519.verify(compact, message, publicKey, { zip215: false }),
      `${what}: the Ed25519 signature does not verify over the message`,
    );
    return;
  }
  const ecdsa = nobleEcdsa(curve);
  const parsed = ecdsa.Signature.fromBytes(compact, 'compact');
  assert.ok(!parsed.hasHighS(), `${what}: s is in the high half (must be low-S)`);
  assert.ok(
    ecdsa.verify(compact, message, publicKey, { prehash: false, lowS: true }),
    `${what}: the ${curve} signature does not verify over the digest`,
  );
  assert.ok(recovery === 0 || recovery === 1, `${what}: the recovery id must be 0 or 1`);
  const recovered = parsed.addRecoveryBit(recovery).recoverPublicKey(message).toBytes(true);
  assert.equal(
    bytesToHex(recovered),
    bytesToHex(publicKey),
    `${what}: the recovery id does not recover the public key`,
  );
}

/**
 * The signature a deterministic signer makes: RFC 6979 ECDSA (low-S, with recovery id) over
 * a digest, or RFC 8032 Ed25519 over a message.
 * @example
 * const expected = deterministicSignature('CURVE_P256', privateKey, digest);
 */
export function deterministicSignature(
  curve: Curve,
  privateKey: Uint8Array,
  message: Uint8Array,
): RawSignature {
  if (curve === 'CURVE_ED25519') {
    const signature = ed25519.sign(message, privateKey);
    return { r: signature.slice(0, 32), s: signature.slice(32) };
  }
  const signature = nobleEcdsa(curve).sign(message, privateKey, {
    prehash: false,
    lowS: true,
    format: 'recovered',
  });
  return {
    r: signature.slice(1, 33),
    s: signature.slice(33),
    recovery: signature[0] as 0 | 1,
  };
}

/**
 * A signature as one hex string (`recovery ‖ r ‖ s`), for comparing two of them.
 * @example
 * assert.equal(signatureHex(first), signatureHex(second));
 */
export function signatureHex(signature: RawSignature): string {
  const v = signature.recovery === undefined ? '' : `0${signature.recovery}:`;
  return `${v}${bytesToHex(signature.r)}${bytesToHex(signature.s)}`;
}

/**
 * The BIP341 output key (x-only, 32 bytes) of a secp256k1 public key (SEC1 compressed) and a
 * merkle root (empty for a key-path-only output).
 * @example
 * schnorr.verify(signature, digest, taprootOutputKey(publicKey, new Uint8Array()));
 */
export function taprootOutputKey(publicKey: Uint8Array, merkleRoot: Uint8Array): Uint8Array {
  const [outputKey] = taprootTweakPubkey(publicKey.subarray(1, 33), merkleRoot);
  return outputKey;
}

/**
 * Asserts that `signature` is a 64-byte BIP340 signature of `digest` by the BIP341 output key
 * of `publicKey` with `merkleRoot`.
 * @example
 * assertTaprootSignature(publicKey, digest, new Uint8Array(), await vault.signTaproot(key, digest, new Uint8Array()), 'signTaproot');
 */
export function assertTaprootSignature(
  publicKey: Uint8Array,
  digest: Uint8Array,
  merkleRoot: Uint8Array,
  signature: unknown,
  what: string,
): void {
  assert.ok(
    signature instanceof Uint8Array && signature.length === 64,
    `${what}: a BIP340 signature is 64 bytes`,
  );
  const outputKey = taprootOutputKey(publicKey, merkleRoot);
  assert.ok(
    schnorr.verify(signature, digest, outputKey),
    `${what}: the BIP340 signature does not verify under the BIP341 output key ${bytesToHex(outputKey)}`,
  );
}

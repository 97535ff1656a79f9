/**
 * SLIP-10 private-key derivation for Ed25519 and NIST P-256: the one piece of key derivation
 * written here by hand. No audited SLIP-10 library is in the allowed set (@scure/bip32 is
 * secp256k1 only), and the algorithm is a short HMAC-SHA512 chain, so it is implemented in a
 * few lines on top of @noble/hashes (HMAC, SHA-512) and @noble/curves (P-256 point and order).
 * It is checked against every official SLIP-10 test vector, the retry vectors included.
 *
 * Spec: https://github.com/satoshilabs/slips/blob/master/slip-0010.md
 * - master: I = HMAC-SHA512(key = curve name, data = seed); for P-256, while I_L is 0 or ≥ n,
 *   I = HMAC-SHA512(key = curve name, data = I).
 * - child:  hardened  I = HMAC-SHA512(c, 0x00 ‖ k ‖ ser32(i));
 *           normal    I = HMAC-SHA512(c, serP(point(k)) ‖ ser32(i))  (P-256 only);
 *   Ed25519: k_i = I_L. P-256: k_i = I_L + k (mod n); while I_L ≥ n or k_i = 0,
 *   I = HMAC-SHA512(c, 0x01 ‖ I_R ‖ ser32(i)).
 * @module
 */
import { p256 } from '@noble/curves/nist.js';
import { bytesToNumberBE, numberToBytesBE } from '@noble/curves/utils.js';
import { hmac } from '@noble/hashes/hmac.js';
import { sha512 } from '@noble/hashes/sha2.js';
import { concatBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { HARDENED_OFFSET } from './derivation-path.js';

/** The curves SLIP-10 is used for here (secp256k1 goes through @scure/bip32). */
export type Slip10Curve = 'ed25519' | 'nist256p1';

/** A private key and its chain code. */
export interface ExtendedPrivateKey {
  readonly privateKey: Uint8Array;
  readonly chainCode: Uint8Array;
}

const CURVE_KEYS: Record<Slip10Curve, Uint8Array> = {
  ed25519: utf8ToBytes('ed25519 seed'),
  nist256p1: utf8ToBytes('Nist256p1 seed'),
};
const P256_ORDER = p256.Point.Fn.ORDER;

/**
 * The SLIP-10 master key of a 16–64 byte seed.
 * @example
 * slip10MasterKey('ed25519', seed).privateKey; // 32 bytes
 */
export function slip10MasterKey(curve: Slip10Curve, seed: Uint8Array): ExtendedPrivateKey {
  if (seed.length < 16 || seed.length > 64) {
    throw new RangeError('SLIP-10 seed must be 16 to 64 bytes');
  }
  const key = CURVE_KEYS[curve];
  let i = hmac(sha512, key, seed);
  if (curve === 'nist256p1') {
    while (!isValidP256Scalar(bytesToNumberBE(i.subarray(0, 32)))) i = hmac(sha512, key, i);
  }
  return split(i);
}

/**
 * The child of `parent` at `index` (hardened when ≥ 2^31). Ed25519 only has hardened
 * children; a normal index there is a caller bug (paths are checked first) and throws.
 * @example
 * slip10ChildKey('nist256p1', master, HARDENED_OFFSET + 0);
 */
export function slip10ChildKey(
  curve: Slip10Curve,
  parent: ExtendedPrivateKey,
  index: number,
): ExtendedPrivateKey {
  if (!Number.isInteger(index) || index < 0 || index >= 2 * HARDENED_OFFSET) {
    throw new RangeError('SLIP-10 child index out of range');
  }
  const hardened = index >= HARDENED_OFFSET;
  if (!hardened && curve === 'ed25519') {
    throw new RangeError('SLIP-10 ed25519 derives hardened children only');
  }
  const data = hardened
    ? concatBytes(Uint8Array.of(0), parent.privateKey, ser32(index))
    : concatBytes(p256.getPublicKey(parent.privateKey, true), ser32(index));
  let i = hmac(sha512, parent.chainCode, data);
  if (curve === 'ed25519') return split(i);

  const parentScalar = bytesToNumberBE(parent.privateKey);
  for (;;) {
    const tweak = bytesToNumberBE(i.subarray(0, 32));
    const child = (tweak + parentScalar) % P256_ORDER;
    if (tweak < P256_ORDER && child !== 0n) {
      return { privateKey: numberToBytesBE(child, 32), chainCode: i.slice(32) };
    }
    i = hmac(sha512, parent.chainCode, concatBytes(Uint8Array.of(1), i.subarray(32), ser32(index)));
  }
}

/**
 * Derives along a list of child indices from the master key of `seed`.
 * @example
 * slip10DerivePath('ed25519', seed, [HARDENED_OFFSET + 44, HARDENED_OFFSET + 501]);
 */
export function slip10DerivePath(
  curve: Slip10Curve,
  seed: Uint8Array,
  indices: readonly number[],
): ExtendedPrivateKey {
  let node = slip10MasterKey(curve, seed);
  for (const index of indices) {
    const next = slip10ChildKey(curve, node, index);
    node.privateKey.fill(0);
    node = next;
  }
  return node;
}

function isValidP256Scalar(value: bigint): boolean {
  return value > 0n && value < P256_ORDER;
}

function split(i: Uint8Array): ExtendedPrivateKey {
  const node = { privateKey: i.slice(0, 32), chainCode: i.slice(32) };
  i.fill(0);
  return node;
}

function ser32(index: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, index, false);
  return out;
}

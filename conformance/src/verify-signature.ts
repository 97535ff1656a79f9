/**
 * Independent verification of a raw-payload signature against the address the service
 * returned, with @noble only (never the implementation's own code):
 * - ETHEREUM: recover the secp256k1 key from (r, s, v) over the digest, and compare
 *   keccak256(key)[12..] with the address (which must also be EIP-55 checksummed);
 * - COMPRESSED / UNCOMPRESSED (secp256k1, P-256): the address is the SEC1 public key; verify
 *   the ECDSA signature over the digest (and, for secp256k1, that v recovers that key);
 * - SOLANA / COMPRESSED Ed25519: the address is the 32-byte key (base58 / hex); r ‖ s is the
 *   Ed25519 signature of the message itself, and v is "00".
 * The digest is SHA-256 or Keccak-256 of the decoded payload, or the payload itself for NO_OP.
 * @module
 */
import assert from 'node:assert/strict';
import { ed25519 } from '@noble/curves/ed25519.js';
import { p256 } from '@noble/curves/nist.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { base58 } from '@scure/base';

export type SigningCurve = 'CURVE_SECP256K1' | 'CURVE_P256' | 'CURVE_ED25519';

/** `{r, s, v}` as signRawPayload returns it. */
export interface RawSignature {
  r: string;
  s: string;
  v: string;
}

export interface SignedPayload {
  curve: SigningCurve;
  addressFormat: string;
  /** The address the service returned for the signing key. */
  address: string;
  /** The decoded payload bytes (before hashing). */
  message: Uint8Array;
  hashFunction: string;
  signature: RawSignature;
}

/** The digest an ECDSA signature covers. */
export function digestOf(message: Uint8Array, hashFunction: string): Uint8Array {
  switch (hashFunction) {
    case 'HASH_FUNCTION_SHA256':
      return sha256(message);
    case 'HASH_FUNCTION_KECCAK256':
      return keccak_256(message);
    case 'HASH_FUNCTION_NO_OP':
      return message;
    default:
      throw new Error(`no digest for ${hashFunction}`);
  }
}

/** The EIP-55 mixed-case form of a 20-byte address given as 40 hex digits (any case). */
export function eip55(address: string): string {
  const lower = address.replace(/^0x/i, '').toLowerCase();
  const hash = bytesToHex(keccak_256(utf8ToBytes(lower)));
  let out = '0x';
  for (let i = 0; i < lower.length; i++) {
    out += Number.parseInt(hash[i]!, 16) >= 8 ? lower[i]!.toUpperCase() : lower[i]!;
  }
  return out;
}

/** The Ethereum address (lower-case, 0x) of an uncompressed secp256k1 key. */
export function ethereumAddressOf(uncompressed: Uint8Array): string {
  return `0x${bytesToHex(keccak_256(uncompressed.subarray(1)).subarray(12))}`;
}

/**
 * Checks that `address` has the shape of its format and returns the public key it encodes
 * (`undefined` for ETHEREUM, which only encodes a hash of the key).
 */
export function publicKeyOfAddress(
  curve: SigningCurve,
  addressFormat: string,
  address: string,
): Uint8Array | undefined {
  const shown = `${addressFormat} address ${JSON.stringify(address)} (${curve})`;
  assert.equal(typeof address, 'string', `${shown} is not a string`);
  switch (addressFormat) {
    case 'ADDRESS_FORMAT_ETHEREUM':
      assert.match(address, /^0x[0-9a-fA-F]{40}$/, `${shown} is not 0x + 40 hex digits`);
      assert.equal(address, eip55(address), `${shown} is not EIP-55 checksummed`);
      return undefined;
    case 'ADDRESS_FORMAT_COMPRESSED':
      if (curve === 'CURVE_ED25519') {
        assert.match(address, /^[0-9a-f]{64}$/, `${shown} is not 32 bytes of lower-case hex`);
      } else {
        assert.match(
          address,
          /^0[23][0-9a-f]{64}$/,
          `${shown} is not a 33-byte compressed key in hex`,
        );
      }
      return hexToBytes(address);
    case 'ADDRESS_FORMAT_UNCOMPRESSED':
      assert.match(
        address,
        /^04[0-9a-f]{128}$/,
        `${shown} is not a 65-byte uncompressed key in hex`,
      );
      return hexToBytes(address);
    case 'ADDRESS_FORMAT_SOLANA': {
      assert.match(address, /^[1-9A-HJ-NP-Za-km-z]{32,44}$/, `${shown} is not base58`);
      const key = base58.decode(address);
      assert.equal(key.length, 32, `${shown} does not decode to 32 bytes`);
      return key;
    }
    default:
      throw new Error(`the suite cannot verify ${addressFormat} addresses yet`);
  }
}

/**
 * Throws an AssertionError (saying what is wrong) unless `signature` is a valid signature of
 * the payload by the key behind `address`.
 */
export function verifyRawPayloadSignature(signed: SignedPayload): void {
  const { curve, addressFormat, address, message, hashFunction, signature } = signed;
  const shown = `signature ${JSON.stringify(signature)} by ${addressFormat} ${address} (${curve}, ${hashFunction})`;
  assert.match(String(signature.r), /^[0-9a-fA-F]{64}$/, `${shown}: r is not 64 hex digits`);
  assert.match(String(signature.s), /^[0-9a-fA-F]{64}$/, `${shown}: s is not 64 hex digits`);
  assert.ok(signature.v === '00' || signature.v === '01', `${shown}: v is not "00" or "01"`);
  const rs = hexToBytes(`${signature.r}${signature.s}`);
  const publicKey = publicKeyOfAddress(curve, addressFormat, address);

  if (curve === 'CURVE_ED25519') {
    assert.equal(signature.v, '00', `${shown}: v must be "00" for Ed25519`);
    assert.ok(publicKey, `${shown}: no public key`);
    assert.ok(ed25519.verify(rs, message, publicKey), `${shown}: Ed25519 verification failed`);
    return;
  }

  const digest = digestOf(message, hashFunction);
  const recovery = Number(signature.v);
  if (curve === 'CURVE_SECP256K1') {
    let recovered: Uint8Array;
    try {
      recovered = secp256k1.Signature.fromBytes(rs, 'compact')
        .addRecoveryBit(recovery)
        .recoverPublicKey(digest)
        .toBytes(false);
    } catch (error) {
      assert.fail(`${shown}: no key recovers from (r, s, v): ${(error as Error).message}`);
    }
    if (publicKey === undefined) {
      assert.equal(
        ethereumAddressOf(recovered),
        address.toLowerCase(),
        `${shown}: the recovered key is not the address's`,
      );
      return;
    }
    assert.ok(
      secp256k1.verify(rs, digest, publicKey, { prehash: false, lowS: false }),
      `${shown}: secp256k1 verification failed`,
    );
    assert.equal(
      bytesToHex(recovered),
      bytesToHex(secp256k1.Point.fromBytes(publicKey).toBytes(false)),
      `${shown}: v does not recover the signing key`,
    );
    return;
  }
  assert.ok(publicKey, `${shown}: no public key`);
  assert.ok(
    p256.verify(rs, digest, publicKey, { prehash: false, lowS: false }),
    `${shown}: P-256 verification failed`,
  );
}

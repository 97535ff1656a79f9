/**
 * The server's signer key: the P-256 key that signs export and import bundles (the
 * `enclaveQuorumPublic` clients pin). Its public half is printed by `keyhold serve`.
 * @module
 */
import { p256 } from '@noble/curves/nist.js';
import { bytesToHex } from '@noble/hashes/utils.js';

export interface SignerKey {
  readonly privateKey: Uint8Array;
  /** Uncompressed SEC1 hex (`04…`, 130 characters). */
  readonly publicKey: string;
}

export const SignerKey: unique symbol = Symbol.for('keyhold.SignerKey');

export function signerKeyFrom(privateKey: Uint8Array = p256.utils.randomSecretKey()): SignerKey {
  return { privateKey, publicKey: bytesToHex(p256.getPublicKey(privateKey, false)) };
}

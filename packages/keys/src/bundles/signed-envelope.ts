/**
 * The signed envelope of export and import bundles (wire-compat §3.2, §3.3; the rust
 * `ServerSendMsgV1` / `ServerTargetMsgV1`): `{version, data, dataSignature,
 * enclaveQuorumPublic}`, where `data` is the hex of a compact UTF-8 JSON object and
 * `dataSignature` the DER hex of an ECDSA P-256 signature over sha256(data bytes) by the
 * server's signer key, whose uncompressed public key is `enclaveQuorumPublic`. Clients pin
 * that key (string equality, so always lower-case uncompressed hex) and verify the signature
 * before they trust `data`.
 * @module
 */
import { p256 } from '@noble/curves/nist.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

/** The version every v1 envelope carries. */
export const BUNDLE_VERSION = 'v1.0.0';

/**
 * The server's signer key (P-256): the key clients pin as `dangerouslyOverrideSignerPublicKey`.
 * `@keyhold/server`'s `SignerKey` is one.
 */
export interface BundleSigner {
  readonly privateKey: Uint8Array;
}

/** The wire form of a signed envelope. Field order is the wire's. */
export interface SignedEnvelope {
  version: string;
  data: string;
  dataSignature: string;
  enclaveQuorumPublic: string;
}

/**
 * The public key a client pins for bundles made with `signer`: lower-case uncompressed SEC1
 * hex (130 characters), exactly the `enclaveQuorumPublic` of every bundle it signs.
 * @example
 * bundleSignerPublicKey(signer); // '04…' (130 hex digits)
 */
export function bundleSignerPublicKey(signer: BundleSigner): string {
  return bytesToHex(p256.getPublicKey(signerKey(signer), false));
}

/**
 * The envelope JSON string around `data` (an object of strings, serialized compactly in the
 * order given), signed by `signer`.
 */
export function signEnvelope(data: Record<string, string>, signer: BundleSigner): string {
  const privateKey = signerKey(signer);
  const dataBytes = utf8ToBytes(JSON.stringify(data));
  // prehash (sha256 of the data bytes) is @noble's default; low-S is accepted by every verifier.
  const signature = p256.sign(dataBytes, privateKey, { format: 'der' });
  const envelope: SignedEnvelope = {
    version: BUNDLE_VERSION,
    data: bytesToHex(dataBytes),
    dataSignature: bytesToHex(signature),
    enclaveQuorumPublic: bytesToHex(p256.getPublicKey(privateKey, false)),
  };
  return JSON.stringify(envelope);
}

function signerKey(signer: BundleSigner): Uint8Array {
  const key = signer?.privateKey;
  if (!(key instanceof Uint8Array) || !p256.utils.isValidSecretKey(key)) {
    // A configuration fault, not a client error: it reaches a client as an internal error.
    throw new TypeError('the bundle signer key is not a P-256 private key');
  }
  return key;
}

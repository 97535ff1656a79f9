/**
 * The signed envelope of export and import bundles (wire-compat §3.2, §3.3):
 * `{version: "v1.0.0", data, dataSignature, enclaveQuorumPublic}`, where `data` is the hex of a
 * JSON object and `dataSignature` is DER ECDSA P-256 over sha256(data bytes). The frame trusts
 * one key: the signer key the server wrote into the page. The envelope's own
 * `enclaveQuorumPublic` must equal it, and the signature must verify under the pinned key (not
 * under whatever key the envelope names).
 * @module
 */
import { p256 } from '@noble/curves/nist.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { hexToBytes } from '@noble/hashes/utils.js';

const HEX = /^(?:[0-9a-f]{2})+$/i;

/** Bytes of a hex field, or an Error naming it. */
export function hexField(value: unknown, field: string): Uint8Array {
  if (typeof value !== 'string' || !HEX.test(value)) throw new Error(`"${field}" is not hex`);
  return hexToBytes(value);
}

/**
 * The verified signed data of `bundle` (a JSON string), checked to name `organizationId`
 * (and `userId` when given). Throws an Error saying which check failed.
 */
export function openSignedBundle(
  bundle: unknown,
  signerPublicKey: string,
  expected: { organizationId: unknown; userId?: unknown },
): Record<string, unknown> {
  if (typeof bundle !== 'string') throw new Error('the bundle is not a string');
  let envelope: Record<string, unknown>;
  try {
    envelope = JSON.parse(bundle) as Record<string, unknown>;
  } catch {
    throw new Error('the bundle is not JSON');
  }
  if (typeof envelope !== 'object' || envelope === null) throw new Error('the bundle is not JSON');
  if (envelope.version !== 'v1.0.0') {
    throw new Error(`unsupported bundle version: ${String(envelope.version)}`);
  }
  const signer = String(envelope.enclaveQuorumPublic ?? '').toLowerCase();
  if (signer !== signerPublicKey) {
    throw new Error('the bundle is signed by a key this frame does not trust');
  }
  const data = hexField(envelope.data, 'data');
  const signature = hexField(envelope.dataSignature, 'dataSignature');
  let verified = false;
  try {
    verified = p256.verify(signature, sha256(data), hexToBytes(signerPublicKey), {
      format: 'der',
      prehash: false,
      lowS: false,
    });
  } catch {
    verified = false;
  }
  if (!verified) throw new Error('the bundle’s signature does not verify');
  const signed = JSON.parse(new TextDecoder().decode(data)) as Record<string, unknown>;
  if (typeof expected.organizationId !== 'string' || expected.organizationId === '') {
    throw new Error('organizationId is required');
  }
  if (signed.organizationId !== expected.organizationId) {
    throw new Error('the bundle is for another organization');
  }
  if ('userId' in expected) {
    if (typeof expected.userId !== 'string' || expected.userId === '') {
      throw new Error('userId is required');
    }
    if (signed.userId !== expected.userId) throw new Error('the bundle is for another user');
  }
  return signed;
}

/**
 * The `exportBundle` of EXPORT_WALLET, EXPORT_PRIVATE_KEY and EXPORT_WALLET_ACCOUNT
 * (wire-compat §3.2): the secret HPKE-encrypted to the client's `targetPublicKey`, wrapped in
 * an envelope signed by the server's signer key. `@turnkey/crypto`'s `decryptExportBundle`
 * opens it (with `dangerouslyOverrideSignerPublicKey` set to the signer's public key).
 * @module
 */
import { bytesToHex } from '@noble/hashes/utils.js';
import { assertIdentifier, decodeHex, invalidPublicKey, uncompressedP256 } from './encoding.js';
import { hpkeSeal } from './hpke.js';
import { type BundleSigner, signEnvelope } from './signed-envelope.js';

/** Input of `createExportBundle`. */
export interface CreateExportBundleInput {
  /**
   * What the client receives: a wallet's UTF-8 mnemonic, or the 32 raw bytes of a private key
   * (the Ed25519 seed for Ed25519 keys; `decryptExportBundle` with keyFormat SOLANA turns it
   * into base58(seed ‖ public key)).
   */
  readonly plaintext: Uint8Array;
  /** The request's `targetPublicKey`: a P-256 key as hex, compressed or uncompressed. */
  readonly targetPublicKey: string;
  /** The organization of the request; the client refuses a bundle for another one. */
  readonly organizationId: string;
  readonly signer: BundleSigner;
}

/**
 * The `exportBundle` JSON string:
 * `{"version":"v1.0.0","data":hex({"encappedPublic","ciphertext","organizationId"}),
 * "dataSignature","enclaveQuorumPublic"}`. A malformed target key is refused with
 * INVALID_PUBLIC_KEY (`field: 'targetPublicKey'`).
 * @example
 * const exportBundle = await createExportBundle({
 *   plaintext: new TextEncoder().encode(mnemonic),
 *   targetPublicKey: intent.targetPublicKey,
 *   organizationId,
 *   signer,
 * });
 */
export async function createExportBundle(input: CreateExportBundleInput): Promise<string> {
  const { plaintext, targetPublicKey, organizationId, signer } = input;
  if (!(plaintext instanceof Uint8Array)) throw new TypeError('plaintext must be a Uint8Array');
  assertIdentifier(organizationId, 'organizationId');
  // The key schedule and the AAD always use the uncompressed form, whatever the client sent.
  const receiver = uncompressedP256(
    decodeHex(targetPublicKey, 'targetPublicKey', invalidPublicKey),
    'targetPublicKey',
    invalidPublicKey,
  );
  const sealed = await hpkeSeal(plaintext, receiver);
  return signEnvelope(
    {
      encappedPublic: bytesToHex(sealed.encappedPublic),
      ciphertext: bytesToHex(sealed.ciphertext),
      organizationId,
    },
    signer,
  );
}

/**
 * The one HPKE configuration of the wire protocol (wire-compat §3.1), on @hpke/core (RFC 9180):
 * base mode, DHKEM(P-256, HKDF-SHA256), HKDF-SHA256, AES-256-GCM, info `turnkey_hpke`, one seal
 * per context (sequence 0) with AAD = enc ‖ pkR, both uncompressed (65 bytes each). The
 * ciphertext carries the 16-byte GCM tag. Nothing here is hand-written cryptography: this file
 * fixes the parameters and the AAD, @hpke/core does the rest.
 * @module
 */
import { Aes256Gcm, CipherSuite, DhkemP256HkdfSha256, HkdfSha256 } from '@hpke/core';
import { p256 } from '@noble/curves/nist.js';
import { concatBytes, utf8ToBytes } from '@noble/hashes/utils.js';

/** The HPKE `info` of every bundle: ASCII `turnkey_hpke`. */
export const BUNDLE_HPKE_INFO: Uint8Array = utf8ToBytes('turnkey_hpke');

/** Length of the AES-256-GCM tag that ends every ciphertext. */
export const HPKE_TAG_LENGTH = 16;

/** A copy of `bytes` in an ArrayBuffer of its own (what `KemInterface.importKey` takes). */
function arrayBuffer(bytes: Uint8Array): ArrayBuffer {
  return bytes.slice().buffer;
}

let cachedSuite: CipherSuite | undefined;

function suite(): CipherSuite {
  cachedSuite ??= new CipherSuite({
    kem: new DhkemP256HkdfSha256(),
    kdf: new HkdfSha256(),
    aead: new Aes256Gcm(),
  });
  return cachedSuite;
}

/** An HPKE output: the sender's ephemeral key (uncompressed, 65 bytes) and ciphertext ‖ tag. */
export interface HpkeSealed {
  readonly encappedPublic: Uint8Array;
  readonly ciphertext: Uint8Array;
}

/**
 * Encrypts `plaintext` to `receiverPublicKey` (uncompressed SEC1, 65 bytes, already checked to
 * be a point of P-256) with a fresh ephemeral key.
 */
export async function hpkeSeal(
  plaintext: Uint8Array,
  receiverPublicKey: Uint8Array,
): Promise<HpkeSealed> {
  const hpke = suite();
  const recipientPublicKey = await hpke.kem.importKey('raw', arrayBuffer(receiverPublicKey), true);
  const sender = await hpke.createSenderContext({ recipientPublicKey, info: BUNDLE_HPKE_INFO });
  const encappedPublic = new Uint8Array(sender.enc);
  const ciphertext = new Uint8Array(
    await sender.seal(plaintext, concatBytes(encappedPublic, receiverPublicKey)),
  );
  return { encappedPublic, ciphertext };
}

/**
 * Decrypts what `hpkeSeal` (or a client's `hpkeEncrypt`) produced for the key pair of
 * `receiverPrivateKey`. `encappedPublic` must be uncompressed (65 bytes). Rejects (with
 * @hpke/core's OpenError) when the key, the ciphertext or the tag do not match.
 */
export async function hpkeOpen(
  sealed: HpkeSealed,
  receiverPrivateKey: Uint8Array,
): Promise<Uint8Array> {
  const hpke = suite();
  const receiverPublicKey = p256.getPublicKey(receiverPrivateKey, false);
  const recipientKey = await hpke.kem.importKey('raw', arrayBuffer(receiverPrivateKey), false);
  const recipient = await hpke.createRecipientContext({
    recipientKey,
    enc: sealed.encappedPublic,
    info: BUNDLE_HPKE_INFO,
  });
  return new Uint8Array(
    await recipient.open(sealed.ciphertext, concatBytes(sealed.encappedPublic, receiverPublicKey)),
  );
}

/**
 * HPKE as bundles use it (wire-compat §3.1), on @hpke/core: base mode, DHKEM(P-256,
 * HKDF-SHA256), HKDF-SHA256, AES-256-GCM, info `turnkey_hpke`, one seal with AAD = enc ‖ pkR
 * (both uncompressed). Written here from the protocol rather than imported from the server's
 * code, so the browser test checks the server's bundles against an independent reader.
 * @module
 */
import { Aes256Gcm, CipherSuite, DhkemP256HkdfSha256, HkdfSha256 } from '@hpke/core';
import { p256 } from '@noble/curves/nist.js';
import { concatBytes, utf8ToBytes } from '@noble/hashes/utils.js';

const INFO = utf8ToBytes('turnkey_hpke');

const suite = new CipherSuite({
  kem: new DhkemP256HkdfSha256(),
  kdf: new HkdfSha256(),
  aead: new Aes256Gcm(),
});

const buffer = (bytes: Uint8Array): ArrayBuffer => bytes.slice().buffer;

/** Opens what was sealed to the key pair of `receiverPrivateKey`. */
export async function hpkeOpen(
  encappedPublic: Uint8Array,
  ciphertext: Uint8Array,
  receiverPrivateKey: Uint8Array,
): Promise<Uint8Array> {
  const receiverPublic = p256.getPublicKey(receiverPrivateKey, false);
  const recipientKey = await suite.kem.importKey('raw', buffer(receiverPrivateKey), false);
  const recipient = await suite.createRecipientContext({
    recipientKey,
    enc: buffer(encappedPublic),
    info: buffer(INFO),
  });
  return new Uint8Array(
    await recipient.open(buffer(ciphertext), buffer(concatBytes(encappedPublic, receiverPublic))),
  );
}

/** Seals `plaintext` to `receiverPublic` (uncompressed, 65 bytes) with a fresh ephemeral key. */
export async function hpkeSeal(
  plaintext: Uint8Array,
  receiverPublic: Uint8Array,
): Promise<{ encappedPublic: Uint8Array; ciphertext: Uint8Array }> {
  const recipientPublicKey = await suite.kem.importKey('raw', buffer(receiverPublic), true);
  const sender = await suite.createSenderContext({ recipientPublicKey, info: buffer(INFO) });
  const encappedPublic = new Uint8Array(sender.enc);
  const ciphertext = new Uint8Array(
    await sender.seal(buffer(plaintext), buffer(concatBytes(encappedPublic, receiverPublic))),
  );
  return { encappedPublic, ciphertext };
}

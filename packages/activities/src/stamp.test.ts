import { ed25519 } from '@noble/curves/ed25519.js';
import { p256 } from '@noble/curves/nist.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nobleSignatureVerifier } from './noble-signature-verifier.js';
import { parseStamp, verifyStamp } from './stamp.js';

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const body = new TextEncoder().encode('{"organizationId":"x"}');

function p256Stamp(message: Uint8Array, secret = p256.utils.randomSecretKey(), lowS = true) {
  const sig = p256.sign(message, secret, { prehash: true, lowS, format: 'der' });
  return {
    publicKey: bytesToHex(p256.getPublicKey(secret, true)),
    scheme: 'SIGNATURE_SCHEME_TK_API_P256',
    signature: bytesToHex(sig),
  };
}

const messageOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    return (e as Error).message;
  }
  return undefined;
};

describe('parseStamp', () => {
  it('refuses a request without a stamp with the spec message', () => {
    expect(messageOf(() => parseStamp({}))).toBe(
      'cannot authenticate public API activity request without a stamp (X-Stamp/X-Stamp-Webauthn header)',
    );
  });

  it.each([
    ['not base64url', '%%%'],
    ['not JSON', Buffer.from('nope').toString('base64url')],
    ['an array', b64([1])],
    ['an unknown scheme', b64({ publicKey: '02'.padEnd(66, '0'), scheme: 'X', signature: '00' })],
    [
      'a short key',
      b64({ publicKey: '02ab', scheme: 'SIGNATURE_SCHEME_TK_API_P256', signature: '00' }),
    ],
    ['a non-hex signature', b64({ ...p256Stamp(body), signature: 'zz' })],
  ])('refuses %s as a malformed stamp', (_, header) => {
    expect(messageOf(() => parseStamp({ 'x-stamp': header }))).toBe('malformed activity stamp');
  });

  it('does not depend on key order', () => {
    const s = p256Stamp(body);
    const reordered = b64({ signature: s.signature, scheme: s.scheme, publicKey: s.publicKey });
    expect(parseStamp({ 'x-stamp': reordered }).publicKey).toBe(s.publicKey);
  });
});

describe('verifyStamp (noble)', () => {
  it('accepts high-S and low-S P-256 stamps over the raw body', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 1, maxLength: 200 }),
        fc.boolean(),
        async (message, lowS) => {
          const stamp = parseStamp({ 'x-stamp': b64(p256Stamp(message, undefined, lowS)) });
          await verifyStamp(nobleSignatureVerifier, stamp, message);
        },
      ),
      { numRuns: 30 },
    );
  });

  it('refuses a stamp over other bytes', async () => {
    const stamp = parseStamp({ 'x-stamp': b64(p256Stamp(body)) });
    const other = new Uint8Array([...body, 32]);
    await expect(verifyStamp(nobleSignatureVerifier, stamp, other)).rejects.toThrow(
      'could not verify api key signature',
    );
  });

  it('verifies secp256k1 stamps (sha256, DER)', async () => {
    const secret = secp256k1.utils.randomSecretKey();
    const signature = secp256k1.sign(body, secret, { prehash: true, format: 'der' });
    const header = b64({
      publicKey: bytesToHex(secp256k1.getPublicKey(secret, true)),
      scheme: 'SIGNATURE_SCHEME_TK_API_SECP256K1',
      signature: bytesToHex(signature),
    });
    await verifyStamp(nobleSignatureVerifier, parseStamp({ 'x-stamp': header }), body);
  });

  it('verifies Ed25519 stamps over the raw body and, for old Go clients, over sha256(body)', async () => {
    const secret = ed25519.utils.randomSecretKey();
    const publicKey = bytesToHex(ed25519.getPublicKey(secret));
    for (const signed of [body, sha256(body)]) {
      const header = b64({
        publicKey,
        scheme: 'SIGNATURE_SCHEME_TK_API_ED25519',
        signature: bytesToHex(ed25519.sign(signed, secret)),
      });
      await verifyStamp(nobleSignatureVerifier, parseStamp({ 'x-stamp': header }), body);
    }
  });
});

import { ed25519 } from '@noble/curves/ed25519.js';
import { p256 } from '@noble/curves/nist.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { toDerSignature } from '@turnkey/crypto';
import fc from 'fast-check';
import { type Hex, hashMessage } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { nobleSignatureVerifier } from './noble-signature-verifier.js';
import { type ApiKeyStamp, canonicalDer, eip191Digest, parseStamp, verifyStamp } from './stamp.js';

/** The API-key stamp of an `X-Stamp` header. */
function apiKeyStampOf(header: string): ApiKeyStamp {
  const stamp = parseStamp({ 'x-stamp': header });
  if (stamp.kind !== 'api-key') throw new Error('not an API-key stamp');
  return stamp;
}

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
    expect(apiKeyStampOf(reordered).publicKey).toBe(s.publicKey);
  });
});

describe('verifyStamp (noble)', () => {
  it('accepts high-S and low-S P-256 stamps over the raw body', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 1, maxLength: 200 }),
        fc.boolean(),
        async (message, lowS) => {
          const stamp = apiKeyStampOf(b64(p256Stamp(message, undefined, lowS)));
          await verifyStamp(nobleSignatureVerifier, stamp, message);
        },
      ),
      { numRuns: 30 },
    );
  });

  it('refuses a stamp over other bytes', async () => {
    const stamp = apiKeyStampOf(b64(p256Stamp(body)));
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
    await verifyStamp(nobleSignatureVerifier, apiKeyStampOf(header), body);
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
      await verifyStamp(nobleSignatureVerifier, apiKeyStampOf(header), body);
    }
  });
});

describe('EIP-191 wallet stamps (SIGNATURE_SCHEME_TK_API_SECP256K1_EIP191)', () => {
  const EIP191 = 'SIGNATURE_SCHEME_TK_API_SECP256K1_EIP191';
  // Multi-byte characters: the prefix counts bytes, not UTF-16 units.
  const text = '{"organizationId":"x","note":"café ✓"}';
  const utf8 = new TextEncoder().encode(text);
  const compressed = (secret: Hex) =>
    bytesToHex(secp256k1.getPublicKey(Buffer.from(secret.slice(2), 'hex'), true));

  /** What @turnkey/wallet-stamper sends: personal_sign by the wallet, DER of r‖s, v dropped. */
  async function walletStamp(message: string, secret = generatePrivateKey()) {
    const signature = await privateKeyToAccount(secret).signMessage({ message });
    return {
      publicKey: compressed(secret),
      scheme: EIP191,
      signature: toDerSignature(signature.slice(2)),
    };
  }

  it('hashes like viem hashMessage (personal_sign), byte length in the prefix', () => {
    expect(`0x${bytesToHex(eip191Digest(utf8))}`).toBe(hashMessage(text));
  });

  it('verifies a viem personal_sign over the raw body', async () => {
    const stamp = apiKeyStampOf(b64(await walletStamp(text)));
    expect(stamp).toMatchObject({ curve: 'secp256k1', apiKeyCurve: 'API_KEY_CURVE_SECP256K1' });
    await verifyStamp(nobleSignatureVerifier, stamp, utf8);
  });

  it('accepts high-S (s replaced by n - s)', async () => {
    const secret = secp256k1.utils.randomSecretKey();
    const low = secp256k1.Signature.fromBytes(
      secp256k1.sign(eip191Digest(utf8), secret, { prehash: false }),
    );
    const high = new secp256k1.Signature(low.r, secp256k1.Point.Fn.ORDER - low.s);
    const header = b64({
      publicKey: bytesToHex(secp256k1.getPublicKey(secret, true)),
      scheme: EIP191,
      signature: bytesToHex(high.toBytes('der')),
    });
    await verifyStamp(nobleSignatureVerifier, apiKeyStampOf(header), utf8);
  });

  it("accepts the wallet stamper's non-minimal DER (a leading zero byte in r)", async () => {
    const secret = generatePrivateKey();
    const account = privateKeyToAccount(secret);
    let message = '';
    let signature: Hex = '0x';
    // About one signature in 512 has r < 2^247 (a zero byte that DER must drop); find one.
    for (let i = 0; !/^0x00[0-7]/.test(signature); i++) {
      message = `{"nonce":${i}}`;
      signature = await account.signMessage({ message });
    }
    const der = toDerSignature(signature.slice(2));
    expect(der.slice(0, 10)).toBe('3044022000'); // r keeps its zero byte: not minimal DER
    // Strict DER parsers refuse it as sent...
    expect(
      await nobleSignatureVerifier.verifyDigest(
        'secp256k1',
        Buffer.from(compressed(secret), 'hex'),
        eip191Digest(new TextEncoder().encode(message)),
        Buffer.from(der, 'hex'),
      ),
    ).toBe(false);
    // ...so the stamp layer canonicalizes it first.
    const header = b64({ publicKey: compressed(secret), scheme: EIP191, signature: der });
    await verifyStamp(
      nobleSignatureVerifier,
      apiKeyStampOf(header),
      new TextEncoder().encode(message),
    );
  });

  it.each([
    ['another body', async () => ({ stamp: await walletStamp(text), body: utf8.subarray(1) })],
    [
      'another key',
      async () => ({
        stamp: { ...(await walletStamp(text)), publicKey: compressed(generatePrivateKey()) },
        body: utf8,
      }),
    ],
    [
      'a plain SECP256K1 signature (sha256 of the body) under the EIP-191 scheme',
      async () => {
        const secret = secp256k1.utils.randomSecretKey();
        const sig = secp256k1.sign(utf8, secret, { prehash: true, format: 'der' });
        return {
          stamp: {
            publicKey: bytesToHex(secp256k1.getPublicKey(secret, true)),
            scheme: EIP191,
            signature: bytesToHex(sig),
          },
          body: utf8,
        };
      },
    ],
    [
      'a signature that is not DER',
      async () => ({
        stamp: { ...(await walletStamp(text)), signature: 'ab'.repeat(65) },
        body: utf8,
      }),
    ],
  ])('refuses %s: could not verify api key signature', async (_, make) => {
    const { stamp, body: signed } = await make();
    await expect(
      verifyStamp(nobleSignatureVerifier, apiKeyStampOf(b64(stamp)), signed),
    ).rejects.toThrow('could not verify api key signature');
  });

  it('refuses an Ed25519-sized key under the EIP-191 scheme as a malformed stamp', () => {
    const header = b64({ publicKey: 'ab'.repeat(32), scheme: EIP191, signature: '3000' });
    expect(messageOf(() => parseStamp({ 'x-stamp': header }))).toBe('malformed activity stamp');
  });

  it('canonicalDer: strict DER unchanged, other shapes refused', () => {
    const strict = secp256k1.sign(utf8, secp256k1.utils.randomSecretKey(), { format: 'der' });
    expect(canonicalDer(strict)).toEqual(strict);
    for (const bad of [
      '',
      '3000',
      '3006020100020100',
      '300602018002017f',
      '30070201010201010000',
    ]) {
      expect(canonicalDer(Buffer.from(bad, 'hex')), bad).toBeUndefined();
    }
  });
});

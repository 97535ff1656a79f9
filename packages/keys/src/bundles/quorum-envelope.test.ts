import { KeyholdError } from '@keyhold/protocol';
import { p256 } from '@noble/curves/nist.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { encryptOauth2ClientSecret } from '@turnkey/crypto';
import { describe, expect, it } from 'vitest';
import { openQuorumEnvelope } from './quorum-envelope.js';
import { openSealedSecret, sealSecret } from './sealed-secret.js';

const privateKey = p256.utils.randomSecretKey();
const publicKey = bytesToHex(p256.getPublicKey(privateKey, false));
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

describe('openQuorumEnvelope', () => {
  it('opens what @turnkey/crypto encryptOauth2ClientSecret makes for our key', async () => {
    for (const secret of ['s3cret', 'x'.repeat(200), 'é🔑']) {
      const envelope = await encryptOauth2ClientSecret(secret, publicKey);
      expect(text(openQuorumEnvelope({ envelope, privateKey }))).toBe(secret);
    }
  });

  it('refuses an envelope for another key, a changed byte, a truncation, and non-hex', async () => {
    const envelope = await encryptOauth2ClientSecret('s3cret', publicKey);
    const other = p256.utils.randomSecretKey();
    const flip = (hex: string, at: number) =>
      hex.slice(0, at) + (hex[at] === '0' ? '1' : '0') + hex.slice(at + 1);
    const cases = [
      () => openQuorumEnvelope({ envelope, privateKey: other }),
      () => openQuorumEnvelope({ envelope: flip(envelope, envelope.length - 3), privateKey }),
      () => openQuorumEnvelope({ envelope: flip(envelope, 4), privateKey }),
      () => openQuorumEnvelope({ envelope: envelope.slice(0, -2), privateKey }),
      () => openQuorumEnvelope({ envelope: 'zz', privateKey }),
      () => openQuorumEnvelope({ envelope: '', privateKey }),
    ];
    for (const attempt of cases) {
      expect(attempt).toThrow(KeyholdError);
    }
  });
});

describe('sealSecret', () => {
  it('opens only with its key and record', () => {
    const key = p256.utils.randomSecretKey();
    const sealed = sealSecret({ key, plaintext: utf8ToBytes('s3cret'), aad: 'org/cred' });
    expect(sealed).not.toContain('s3cret');
    expect(text(openSealedSecret({ key, sealed, aad: 'org/cred' }))).toBe('s3cret');
    expect(() => openSealedSecret({ key, sealed, aad: 'org/other' })).toThrow();
    expect(() =>
      openSealedSecret({ key: p256.utils.randomSecretKey(), sealed, aad: 'org/cred' }),
    ).toThrow();
  });
});

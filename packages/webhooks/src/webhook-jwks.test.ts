import { createHash, createPublicKey } from 'node:crypto';
import { bytesToHex } from '@noble/hashes/utils.js';
import { verifyTurnkeyWebhookSignature } from '@turnkey/crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  webhookJwk,
  webhookJwks,
  webhookKeyId,
  webhookSigningKey,
  webhookVerificationKeys,
} from './webhook-jwks.js';
import { signWebhookDelivery } from './webhook-signature.js';
import { verifyWebhookSignature } from './webhook-verifier.js';

const key = webhookSigningKey(new Uint8Array(32).fill(9));

describe('webhookKeyId', () => {
  it('is the RFC 7638 thumbprint (checked against node:crypto’s JWK export)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (seed) => {
        const k = webhookSigningKey(seed);
        const jwk = createPublicKey({
          key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(k.publicKey).toString('base64url') },
          format: 'jwk',
        }).export({ format: 'jwk' });
        const canonical = JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x });
        expect(k.keyId).toBe(createHash('sha256').update(canonical).digest('base64url'));
        expect(k.keyId).toMatch(/^[A-Za-z0-9_-]{43}$/);
      }),
      { numRuns: 50 },
    );
  });

  it('is stable and distinct per key', () => {
    expect(webhookKeyId(key.publicKey)).toBe(webhookKeyId(Uint8Array.from(key.publicKey)));
    expect(webhookKeyId(webhookSigningKey(new Uint8Array(32).fill(8)).publicKey)).not.toBe(
      key.keyId,
    );
    expect(() => webhookKeyId(new Uint8Array(33))).toThrow(TypeError);
  });
});

describe('webhookJwks', () => {
  it('has the wire-compat shape, member for member', () => {
    const doc = webhookJwks([key]);
    expect(JSON.parse(JSON.stringify(doc))).toEqual({
      keys: [
        {
          kid: key.keyId,
          kty: 'OKP',
          crv: 'Ed25519',
          alg: 'EdDSA',
          use: 'sig',
          x: Buffer.from(key.publicKey).toString('base64url'),
          turnkey_signature_algorithm: 'ed25519',
          turnkey_signature_version: 'v1',
        },
      ],
    });
    expect(webhookJwk(key.publicKey, 'custom').kid).toBe('custom');
    expect(webhookJwks([key.publicKey]).keys[0]!.kid).toBe(key.keyId);
  });

  it('round-trips into verification keys that both verifiers accept', () => {
    const old = webhookSigningKey(new Uint8Array(32).fill(3));
    const keys = webhookVerificationKeys(JSON.parse(JSON.stringify(webhookJwks([key, old]))));
    expect(keys).toEqual([
      { keyId: key.keyId, publicKey: bytesToHex(key.publicKey), algorithm: 'ed25519' },
      { keyId: old.keyId, publicKey: bytesToHex(old.publicKey), algorithm: 'ed25519' },
    ]);
    const body = '{"ok":true}';
    for (const signer of [key, old]) {
      const headers = signWebhookDelivery({
        ...signer,
        brand: 'Turnkey',
        timestampMs: 1000,
        eventId: 'e',
        organizationId: 'o',
        eventType: 'ACTIVITY_UPDATES',
        body,
      });
      const input = {
        headers,
        body,
        verificationKeys: keys,
        maxTimestampAgeMs: 300_000,
        nowMs: 1000,
      };
      expect(verifyWebhookSignature({ ...input, brand: 'Turnkey' }).ok).toBe(true);
      // Our key type allows any `algorithm` string (JSON input); Turnkey's narrows it.
      expect(
        verifyTurnkeyWebhookSignature({
          ...input,
          verificationKeys: keys as { keyId: string; publicKey: string; algorithm?: 'ed25519' }[],
        }).ok,
      ).toBe(true);
    }
  });

  it('skips malformed JWKS entries', () => {
    const good = webhookJwk(key.publicKey);
    expect(webhookVerificationKeys(null)).toEqual([]);
    expect(webhookVerificationKeys({ keys: 'x' })).toEqual([]);
    expect(
      webhookVerificationKeys({
        keys: [
          null,
          { ...good, kty: 'EC' },
          { ...good, crv: 'X25519' },
          { ...good, kid: 5 },
          { ...good, x: 'AAAA' },
          { ...good, x: `${good.x}!` },
          good,
        ],
      }),
    ).toHaveLength(1);
  });
});

import { ed25519 } from '@noble/curves/ed25519.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { verifyTurnkeyWebhookSignature } from '@turnkey/crypto';
import { describe, expect, it } from 'vitest';
import { webhookHeaderNames } from './webhook-headers.js';
import { webhookSigningKey } from './webhook-jwks.js';
import { signWebhookDelivery, webhookSignedInput } from './webhook-signature.js';

const key = webhookSigningKey(new Uint8Array(32).fill(7));
const base = {
  keyId: key.keyId,
  privateKey: key.privateKey,
  timestampMs: 1_760_000_000_123,
  eventId: 'evt_01',
  organizationId: 'org_01',
  eventType: 'ACTIVITY_UPDATES',
  body: '{"type":"activity.completed","msg":"héllo"}',
};

describe('webhookSignedInput', () => {
  it('is the v1 prefix followed by the raw body bytes', () => {
    const bytes = webhookSignedInput({
      keyId: 'k1',
      timestampMs: 17,
      eventId: 'e1',
      body: '{"a":"é"}',
    });
    expect(new TextDecoder().decode(bytes)).toBe('v1.ed25519.k1.17.e1.{"a":"é"}');
    const raw = webhookSignedInput({
      keyId: 'k1',
      timestampMs: 17,
      eventId: 'e1',
      body: Uint8Array.of(0xff, 0),
    });
    expect([...raw.slice(-2)]).toEqual([0xff, 0]);
  });
});

describe('signWebhookDelivery', () => {
  it('emits exactly Turnkey’s header set for brand Turnkey', () => {
    const headers = signWebhookDelivery({ ...base, brand: 'Turnkey' });
    expect(Object.keys(headers)).toEqual([
      'Content-Type',
      'X-Turnkey-Organization-Id',
      'X-Turnkey-Event-Type',
      'X-Turnkey-Timestamp',
      'X-Turnkey-Webhook-Version',
      'X-Turnkey-Event-Id',
      'X-Turnkey-Signature-Key-Id',
      'X-Turnkey-Signature-Algorithm',
      'X-Turnkey-Signature-Version',
      'X-Turnkey-Signature',
    ]);
    expect(headers).toMatchObject({
      'Content-Type': 'application/json',
      'X-Turnkey-Organization-Id': 'org_01',
      'X-Turnkey-Event-Type': 'ACTIVITY_UPDATES',
      'X-Turnkey-Timestamp': '1760000000123',
      'X-Turnkey-Webhook-Version': '1',
      'X-Turnkey-Event-Id': 'evt_01',
      'X-Turnkey-Signature-Key-Id': key.keyId,
      'X-Turnkey-Signature-Algorithm': 'ed25519',
      'X-Turnkey-Signature-Version': 'v1',
    });
    expect(headers['X-Turnkey-Signature']).toMatch(/^[0-9a-f]{128}$/);
  });

  it('verifies with @turnkey/crypto verifyTurnkeyWebhookSignature', () => {
    const headers = signWebhookDelivery({ ...base, brand: 'Turnkey' });
    const result = verifyTurnkeyWebhookSignature({
      headers,
      body: base.body,
      verificationKeys: [
        { keyId: key.keyId, publicKey: bytesToHex(key.publicKey), algorithm: 'ed25519' },
      ],
      maxTimestampAgeMs: 300_000,
      nowMs: base.timestampMs + 299_999,
    });
    expect(result).toEqual({
      ok: true,
      eventId: 'evt_01',
      keyId: key.keyId,
      timestampMs: base.timestampMs,
    });
  });

  it('substitutes the brand and defaults to Keyhold', () => {
    expect(Object.keys(signWebhookDelivery({ ...base, brand: 'Acme' }))).toContain(
      'X-Acme-Signature',
    );
    expect(Object.keys(signWebhookDelivery(base))).toContain('X-Keyhold-Event-Id');
    expect(webhookHeaderNames('Acme').signatureKeyId).toBe('X-Acme-Signature-Key-Id');
  });

  it('is a plain Ed25519 signature over the signed input (deterministic)', () => {
    const a = signWebhookDelivery(base);
    const sig = a['X-Keyhold-Signature']!;
    expect(ed25519.verify(hexToBytes(sig), webhookSignedInput(base), key.publicKey)).toBe(true);
    expect(signWebhookDelivery(base)['X-Keyhold-Signature']).toBe(sig);
    expect(
      signWebhookDelivery({ ...base, timestampMs: base.timestampMs + 1 })['X-Keyhold-Signature'],
    ).not.toBe(sig);
  });

  it('refuses bad inputs', () => {
    expect(() => signWebhookDelivery({ ...base, brand: 'Bad-Brand' })).toThrow(TypeError);
    expect(() => signWebhookDelivery({ ...base, brand: '' })).toThrow(TypeError);
    expect(() => signWebhookDelivery({ ...base, privateKey: new Uint8Array(31) })).toThrow(
      TypeError,
    );
    expect(() => signWebhookDelivery({ ...base, timestampMs: 1.5 })).toThrow(TypeError);
    expect(() => signWebhookDelivery({ ...base, timestampMs: -1 })).toThrow(TypeError);
    expect(() => signWebhookDelivery({ ...base, eventId: '' })).toThrow(TypeError);
    expect(() => signWebhookDelivery({ ...base, eventId: 'a\r\nX-Evil: 1' })).toThrow(TypeError);
    expect(() => signWebhookDelivery({ ...base, organizationId: 'org 1' })).toThrow(TypeError);
  });
});

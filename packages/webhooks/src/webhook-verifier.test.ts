import { bytesToHex } from '@noble/hashes/utils.js';
import { verifyTurnkeyWebhookSignature } from '@turnkey/crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { webhookSigningKey } from './webhook-jwks.js';
import { signWebhookDelivery } from './webhook-signature.js';
import {
  WebhookVerificationFailureReasons as R,
  type VerifyWebhookSignatureInput,
  verifyWebhookSignature,
} from './webhook-verifier.js';

const key = webhookSigningKey(new Uint8Array(32).fill(1));
const other = webhookSigningKey(new Uint8Array(32).fill(2));
const keys = [
  { keyId: key.keyId, publicKey: bytesToHex(key.publicKey), algorithm: 'ed25519' as const },
  { keyId: other.keyId, publicKey: bytesToHex(other.publicKey) },
];
const now = 1_760_000_000_000;
const body = '{"type":"activity.completed"}';

function signed(
  brand = 'Keyhold',
  overrides: Partial<Parameters<typeof signWebhookDelivery>[0]> = {},
) {
  return signWebhookDelivery({
    keyId: key.keyId,
    privateKey: key.privateKey,
    brand,
    timestampMs: now,
    eventId: 'evt_1',
    organizationId: 'org_1',
    eventType: 'ACTIVITY_UPDATES',
    body,
    ...overrides,
  });
}

function verify(
  input: Partial<VerifyWebhookSignatureInput> & { headers: VerifyWebhookSignatureInput['headers'] },
) {
  return verifyWebhookSignature({ body, verificationKeys: keys, nowMs: now, ...input });
}

describe('verifyWebhookSignature', () => {
  it('accepts what signWebhookDelivery signs, for any brand', () => {
    expect(verify({ headers: signed() })).toEqual({
      ok: true,
      eventId: 'evt_1',
      keyId: key.keyId,
      timestampMs: now,
    });
    expect(verify({ headers: signed('Acme'), brand: 'Acme' }).ok).toBe(true);
    expect(verify({ headers: signed('Turnkey'), brand: 'Turnkey' }).ok).toBe(true);
  });

  it('looks headers up case-insensitively, in records, arrays and Headers', () => {
    const lower = Object.fromEntries(
      Object.entries(signed()).map(([k, v]) => [k.toLowerCase(), v]),
    );
    const upper = Object.fromEntries(
      Object.entries(signed()).map(([k, v]) => [k.toUpperCase(), [v]]),
    );
    expect(verify({ headers: lower }).ok).toBe(true);
    expect(verify({ headers: upper }).ok).toBe(true);
    expect(verify({ headers: new Headers(signed()) }).ok).toBe(true);
    expect(verify({ headers: signed(), body: new TextEncoder().encode(body) }).ok).toBe(true);
    expect(
      verify({ headers: signed(), body: new TextEncoder().encode(body).buffer as ArrayBuffer }).ok,
    ).toBe(true);
  });

  it('refuses another brand’s headers as missing', () => {
    expect(verify({ headers: signed('Acme') })).toEqual({
      ok: false,
      reason: R.MissingHeader,
      headerName: 'x-keyhold-timestamp',
    });
  });

  it('returns each reference reason', () => {
    const h = signed();
    const with_ = (name: string, value: string | undefined) => {
      const copy: Record<string, string> = { ...h };
      if (value === undefined) delete copy[name];
      else copy[name] = value;
      return copy;
    };
    const reason = (input: Parameters<typeof verify>[0]) => {
      const r = verify(input);
      return r.ok ? 'ok' : r.reason;
    };
    expect(reason({ headers: h, maxTimestampAgeMs: -1 })).toBe(R.InvalidMaxTimestampAge);
    expect(reason({ headers: h, maxTimestampAgeMs: Number.NaN })).toBe(R.InvalidMaxTimestampAge);
    expect(reason({ headers: h, nowMs: Number.POSITIVE_INFINITY })).toBe(R.InvalidNow);
    expect(reason({ headers: with_('X-Keyhold-Signature', undefined) })).toBe(R.MissingHeader);
    expect(reason({ headers: with_('X-Keyhold-Event-Id', '') })).toBe(R.MissingHeader);
    expect(reason({ headers: with_('X-Keyhold-Timestamp', '-5') })).toBe(R.InvalidTimestamp);
    expect(reason({ headers: with_('X-Keyhold-Timestamp', '1e12') })).toBe(R.InvalidTimestamp);
    expect(reason({ headers: with_('X-Keyhold-Timestamp', '99999999999999999999') })).toBe(
      R.InvalidTimestamp,
    );
    expect(reason({ headers: h, nowMs: now + 300_001 })).toBe(R.StaleTimestamp);
    expect(reason({ headers: h, nowMs: now - 300_001 })).toBe(R.StaleTimestamp);
    expect(reason({ headers: h, nowMs: now + 300_000 })).toBe('ok');
    expect(reason({ headers: h, nowMs: now + 10_000, maxTimestampAgeMs: 9_999 })).toBe(
      R.StaleTimestamp,
    );
    expect(reason({ headers: with_('X-Keyhold-Signature-Version', 'v2') })).toBe(
      R.UnsupportedSignatureVersion,
    );
    expect(reason({ headers: with_('X-Keyhold-Signature-Algorithm', 'ES256') })).toBe(
      R.UnsupportedSignatureAlgorithm,
    );
    expect(reason({ headers: with_('X-Keyhold-Signature-Key-Id', 'nope') })).toBe(R.MissingKey);
    expect(
      reason({
        headers: h,
        verificationKeys: [
          { keyId: key.keyId, publicKey: bytesToHex(key.publicKey), algorithm: 'p256' },
        ],
      }),
    ).toBe(R.InvalidVerificationKeyAlgorithm);
    expect(
      reason({ headers: h, verificationKeys: [{ keyId: key.keyId, publicKey: 'abcd' }] }),
    ).toBe(R.InvalidVerificationKey);
    expect(
      reason({ headers: h, verificationKeys: [{ keyId: key.keyId, publicKey: 'zz'.repeat(32) }] }),
    ).toBe(R.InvalidVerificationKey);
    expect(reason({ headers: with_('X-Keyhold-Signature', 'ab') })).toBe(R.InvalidSignature);
    expect(reason({ headers: with_('X-Keyhold-Signature', 'g'.repeat(128)) })).toBe(
      R.InvalidSignature,
    );
    expect(reason({ headers: h, body: `${body} ` })).toBe(R.InvalidSignature);
    expect(
      reason({ headers: with_('X-Keyhold-Signature', h['X-Keyhold-Signature']!.toUpperCase()) }),
    ).toBe('ok');
    // the wrong key with a valid kid
    expect(reason({ headers: with_('X-Keyhold-Signature-Key-Id', other.keyId) })).toBe(
      R.InvalidSignature,
    );
  });
});

/** One tampering applied to a Turnkey-branded delivery, or none. */
type Tamper =
  | { kind: 'none' }
  | { kind: 'body'; extra: string }
  | { kind: 'timestamp'; delta: number }
  | { kind: 'eventId'; suffix: string }
  | { kind: 'keyId' }
  | { kind: 'signature'; index: number; flip: number }
  | { kind: 'stale'; age: number }
  | { kind: 'header'; name: string; value: string };

const tamperArb: fc.Arbitrary<Tamper> = fc.oneof(
  fc.constant<Tamper>({ kind: 'none' }),
  fc.string({ minLength: 1 }).map((extra): Tamper => ({ kind: 'body', extra })),
  fc
    .integer({ min: -200_000, max: 200_000 })
    .filter((d) => d !== 0)
    .map((delta): Tamper => ({ kind: 'timestamp', delta })),
  fc
    .string({ minLength: 1, unit: fc.constantFrom('a', 'Z', '0', '_', '-') })
    .map((suffix): Tamper => ({ kind: 'eventId', suffix })),
  fc.constant<Tamper>({ kind: 'keyId' }),
  fc
    .record({ index: fc.integer({ min: 0, max: 127 }), flip: fc.integer({ min: 1, max: 15 }) })
    .map((r): Tamper => ({ kind: 'signature', ...r })),
  fc.integer({ min: 300_001, max: 10_000_000 }).map((age): Tamper => ({ kind: 'stale', age })),
  fc
    .record({
      name: fc.constantFrom(
        'x-turnkey-timestamp',
        'x-turnkey-signature-version',
        'x-turnkey-signature-algorithm',
        'x-turnkey-signature',
        'x-turnkey-event-id',
      ),
      value: fc.oneof(
        fc.constant(''),
        fc.string(),
        fc.constantFrom('v2', 'ED25519', '1.5', '0x10', ' 1'),
      ),
    })
    .map((r): Tamper => ({ kind: 'header', ...r })),
);

describe('agreement with @turnkey/crypto verifyTurnkeyWebhookSignature', () => {
  it('both accept untampered deliveries and both refuse tampered ones, with the same reason', () => {
    fc.assert(
      fc.property(
        fc.record({
          body: fc.string({ unit: 'grapheme', maxLength: 200 }),
          eventId: fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/),
          organizationId: fc.uuid(),
          timestampMs: fc.integer({ min: 0, max: 4_000_000_000_000 }),
          skew: fc.integer({ min: -300_000, max: 300_000 }),
          signer: fc.constantFrom(key, other),
        }),
        tamperArb,
        (d, tamper) => {
          const headers: Record<string, string> = {
            ...signWebhookDelivery({
              keyId: d.signer.keyId,
              privateKey: d.signer.privateKey,
              brand: 'Turnkey',
              timestampMs: d.timestampMs,
              eventId: d.eventId,
              organizationId: d.organizationId,
              eventType: 'ACTIVITY_UPDATES',
              body: d.body,
            }),
          };
          const original = { ...headers };
          let received = d.body;
          let nowMs = d.timestampMs + d.skew;
          switch (tamper.kind) {
            case 'none':
              break;
            case 'body':
              received = d.body + tamper.extra;
              break;
            case 'timestamp':
              headers['X-Turnkey-Timestamp'] = String(d.timestampMs + Math.abs(tamper.delta));
              nowMs = d.timestampMs;
              break;
            case 'eventId':
              headers['X-Turnkey-Event-Id'] = d.eventId + tamper.suffix;
              break;
            case 'keyId':
              headers['X-Turnkey-Signature-Key-Id'] = d.signer === key ? other.keyId : key.keyId;
              break;
            case 'signature': {
              const sig = headers['X-Turnkey-Signature']!;
              const c = (Number.parseInt(sig[tamper.index]!, 16) ^ tamper.flip).toString(16);
              headers['X-Turnkey-Signature'] =
                sig.slice(0, tamper.index) + c + sig.slice(tamper.index + 1);
              break;
            }
            case 'stale':
              nowMs = d.timestampMs + (tamper.age % 2 ? tamper.age : -tamper.age);
              break;
            case 'header': {
              const k = Object.keys(headers).find((h) => h.toLowerCase() === tamper.name)!;
              headers[k] = tamper.value;
              break;
            }
          }
          const common = {
            headers,
            body: received,
            verificationKeys: keys,
            maxTimestampAgeMs: 300_000,
            nowMs,
          };
          const ours = verifyWebhookSignature({ ...common, brand: 'Turnkey' });
          const theirs = verifyTurnkeyWebhookSignature(common);
          expect(ours.ok).toBe(theirs.ok);
          if (!ours.ok && !theirs.ok) expect(ours.reason).toBe(theirs.reason);
          // A header "tampered" to its own value is not tampering.
          const unchanged = Object.keys(headers).every((k) => headers[k] === original[k]);
          expect(ours.ok).toBe(
            unchanged && received === d.body && Math.abs(nowMs - d.timestampMs) <= 300_000,
          );
        },
      ),
      { numRuns: 400 },
    );
  });
});

import type { RawRequest } from '@keyhold/protocol';
import { p256 } from '@noble/curves/nist.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { hexToBytes } from '@noble/hashes/utils.js';
import { describe, expect, it } from 'vitest';
import { ConformanceClient, decodeStamp, freshTimestampMs, stampBytes } from './client.js';
import { apiPublicKeyOf, handlerTarget } from './target.js';

const PRIVATE_KEY = '11'.repeat(32);

function recordingTarget() {
  const requests: RawRequest[] = [];
  const target = handlerTarget({
    organizationId: '00000000-0000-4000-8000-000000000001',
    apiPrivateKey: PRIVATE_KEY,
    handler: {
      async handle(request) {
        requests.push(request);
        return {
          status: 200,
          headers: { 'Content-Type': 'application/json' },
          body: '{"activity":{"id":"a"}}',
        };
      },
    },
  });
  return { target, requests };
}

function verifies(stamp: string, body: Uint8Array): boolean {
  const { publicKey, scheme, signature } = decodeStamp(stamp) as {
    publicKey: string;
    scheme: string;
    signature: string;
  };
  expect(scheme).toBe('SIGNATURE_SCHEME_TK_API_P256');
  return p256.verify(hexToBytes(signature), sha256(body), hexToBytes(publicKey), {
    prehash: false,
    format: 'der',
    lowS: false,
  });
}

describe('freshTimestampMs', () => {
  it('never repeats, even within one millisecond', () => {
    const stamps = Array.from({ length: 2_000 }, freshTimestampMs);
    expect(new Set(stamps).size).toBe(stamps.length);
    expect(stamps.every((s) => /^[0-9]{13}$/.test(s))).toBe(true);
    const numbers = stamps.map(Number);
    expect(numbers.every((n, i) => i === 0 || n > numbers[i - 1]!)).toBe(true);
  });
});

describe('ConformanceClient', () => {
  it('derives the compressed public key of the API key', () => {
    expect(apiPublicKeyOf(PRIVATE_KEY)).toMatch(/^0[23][0-9a-f]{64}$/);
    expect(recordingTarget().target.apiPublicKey).toBe(apiPublicKeyOf(PRIVATE_KEY));
  });

  it('sends the exact body bytes with a published-stamper X-Stamp that verifies over them', async () => {
    const { target, requests } = recordingTarget();
    const client = new ConformanceClient(target);
    const { bodyText, activity } = await client.submit('ACTIVITY_TYPE_X', 'x', { a: 1 });
    expect(activity).toEqual({ id: 'a' });
    const [request] = requests;
    expect(request!.path).toBe('/public/v1/submit/x');
    expect(new TextDecoder().decode(request!.rawBody)).toBe(bodyText);
    const body = JSON.parse(bodyText);
    expect(body).toMatchObject({
      type: 'ACTIVITY_TYPE_X',
      organizationId: target.organizationId,
      parameters: { a: 1 },
    });
    expect(body.timestampMs).toMatch(/^[0-9]+$/);
    expect(request!.headers['x-stamp']).toBeDefined();
    expect(verifies(request!.headers['x-stamp']!, request!.rawBody)).toBe(true);
  });

  it('gives consecutive submissions of the same parameters different bodies', async () => {
    const { target } = recordingTarget();
    const client = new ConformanceClient(target);
    const a = await client.submit('T', 'x', {});
    const b = await client.submit('T', 'x', {});
    expect(a.bodyText).not.toBe(b.bodyText);
  });

  it('stamps arbitrary bytes', () => {
    const bytes = Uint8Array.from([0xff, 0xfe, 0x00, 0x7b]);
    expect(verifies(stampBytes(PRIVATE_KEY, bytes), bytes)).toBe(true);
  });
});

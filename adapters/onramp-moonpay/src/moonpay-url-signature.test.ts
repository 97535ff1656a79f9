import { createHmac } from 'node:crypto';
import { MoonPay } from '@moonpay/moonpay-node';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { moonPayUrlSignature, signMoonPayUrl } from './moonpay-url-signature.js';

// MoonPay's documented example ("URL signing", dev.moonpay.com): the URL, the key, and the
// Node snippet that computes the signature — `createHmac('sha256', 'sk_test_key')
// .update(new URL(originalUrl).search).digest('base64')` — run here as written.
const DOC_URL =
  'https://buy-sandbox.moonpay.com?apiKey=pk_test_key&currencyCode=eth&walletAddress=0xde0b295669a9fd93d5f28d9ec85e40f4cb697bae';
const DOC_KEY = 'sk_test_key';
const documented = (url: string, key: string) =>
  createHmac('sha256', key).update(new URL(url).search).digest('base64');

const secretKey = fc.string({ minLength: 1, maxLength: 64 }).map((s) => `sk_test_${s}`);
/** Any query: parameter names and values of any text, serialized as URLSearchParams does. */
const widgetUrl = fc
  .array(fc.tuple(fc.string({ minLength: 1, maxLength: 20 }), fc.string({ maxLength: 40 })), {
    minLength: 1,
    maxLength: 8,
  })
  .map((params) => {
    const url = new URL('https://buy-sandbox.moonpay.com');
    url.searchParams.append('apiKey', 'pk_test_key');
    for (const [name, value] of params) {
      if (name !== 'signature' && name !== 'apiKey') url.searchParams.append(name, value);
    }
    return url.toString();
  });

describe('MoonPay URL signing', () => {
  it("gives the documented example's signature, and MoonPay's own SDK verifies the signed URL", () => {
    const signature = moonPayUrlSignature(DOC_URL, DOC_KEY);
    expect(signature).toBe(documented(DOC_URL, DOC_KEY));
    expect(signature).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    const signed = signMoonPayUrl(DOC_URL, DOC_KEY);
    expect(signed).toBe(`${DOC_URL}&signature=${encodeURIComponent(signature)}`);
    expect(new MoonPay(DOC_KEY, { debug: false }).url.isSignatureValid(signed)).toBe(true);
  });

  it("agrees with @moonpay/moonpay-node's generateSignature over any URL and key", () => {
    fc.assert(
      fc.property(widgetUrl, secretKey, (url, key) => {
        const sdk = new MoonPay(key, { debug: false });
        expect(moonPayUrlSignature(url, key)).toBe(sdk.url.generateSignature(url));
      }),
      { numRuns: 200 },
    );
  });

  it('verifies over any parameters; another key, or any changed, added or removed parameter, breaks it', () => {
    fc.assert(
      fc.property(
        widgetUrl,
        secretKey,
        secretKey,
        fc.string({ minLength: 1, maxLength: 10 }),
        (url, key, otherKey, extra) => {
          const signed = signMoonPayUrl(url, key);
          const sdk = new MoonPay(key, { debug: false });
          expect(sdk.url.isSignatureValid(signed)).toBe(true);
          if (otherKey !== key) {
            expect(new MoonPay(otherKey, { debug: false }).url.isSignatureValid(signed)).toBe(
              false,
            );
          }
          const tampered = new URL(signed);
          const [name, value] = [...tampered.searchParams].find(([n]) => n !== 'signature')!;
          tampered.searchParams.set(name, `${value}${extra}`);
          expect(sdk.url.isSignatureValid(tampered.toString())).toBe(false);
          const added = new URL(signed);
          added.searchParams.append('walletAddress', `0x${extra}`);
          expect(sdk.url.isSignatureValid(added.toString())).toBe(false);
        },
      ),
      { numRuns: 200 },
    );
  });
});

/**
 * MoonPay's URL signing, as its documentation states it ("URL signing", dev.moonpay.com):
 * the signature is the HMAC-SHA256 of the URL's query string — `new URL(url).search`, the
 * leading `?` included — keyed with the account's secret API key, in base64, appended to the
 * URL as the last parameter, `signature` (URL-encoded). The widget refuses to load when it does
 * not verify. Pure functions: no I/O.
 * @module
 */
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import { base64 } from '@scure/base';

/**
 * The base64 signature of `url`'s query string under `secretKey`.
 * @example
 * moonPayUrlSignature('https://buy-sandbox.moonpay.com?apiKey=pk_test_key&currencyCode=eth', 'sk_test_key');
 */
export function moonPayUrlSignature(url: string, secretKey: string): string {
  const key = utf8ToBytes(secretKey);
  try {
    return base64.encode(hmac(sha256, key, utf8ToBytes(new URL(url).search)));
  } finally {
    key.fill(0);
  }
}

/**
 * `url` with its `signature` appended, as MoonPay's widget takes it.
 * @example
 * signMoonPayUrl('https://buy.moonpay.com?apiKey=pk_live_1&walletAddress=0x…', secretKey);
 * // 'https://buy.moonpay.com?apiKey=pk_live_1&walletAddress=0x…&signature=…'
 */
export function signMoonPayUrl(url: string, secretKey: string): string {
  return `${url}&signature=${encodeURIComponent(moonPayUrlSignature(url, secretKey))}`;
}

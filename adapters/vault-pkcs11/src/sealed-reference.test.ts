import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  formatKeyReference,
  formatSeed,
  formatWrappedKey,
  OPEN_FAILED_MESSAGE,
  parseSealed,
} from './sealed-reference.js';

const curves = ['CURVE_SECP256K1', 'CURVE_P256', 'CURVE_ED25519'] as const;
const body = fc.uint8Array({ minLength: 29, maxLength: 200 });

describe('sealed references', () => {
  it('format and parse round-trip', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...curves),
        fc.uint8Array({ minLength: 16, maxLength: 16 }),
        body,
        (curve, id, bytes) => {
          expect(parseSealed(formatKeyReference(curve, id))).toEqual({
            kind: 'key',
            curve,
            id: Buffer.from(id),
          });
          expect(parseSealed(formatWrappedKey(curve, bytes))).toEqual({
            kind: 'wrapped',
            curve,
            body: Buffer.from(bytes),
          });
          expect(parseSealed(formatSeed(bytes))).toEqual({
            kind: 'seed',
            body: Buffer.from(bytes),
          });
        },
      ),
    );
  });

  it('look like this', () => {
    expect(formatKeyReference('CURVE_P256', new Uint8Array(16).fill(0xab))).toBe(
      `kp11.key.p256.${'ab'.repeat(16)}`,
    );
    expect(formatWrappedKey('CURVE_ED25519', new Uint8Array(30))).toBe(
      `kp11.wrapped.ed25519.${'A'.repeat(40)}`,
    );
    expect(formatSeed(new Uint8Array([0xfb, 0xff, 0xfe]).subarray(0))).toMatch(/^kp11\.seed\./);
  });

  it('any other string is the one plain open error', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        fc.pre(!/^kp11\.(key|wrapped|seed)\./.test(text));
        expect(() => parseSealed(text)).toThrow(OPEN_FAILED_MESSAGE);
      }),
    );
    for (const bad of [undefined, null, 7, {}, `kp11.seed.${'A'.repeat(38)}`]) {
      expect(() => parseSealed(bad)).toThrow(OPEN_FAILED_MESSAGE); // 28-byte body: too short
    }
  });
});

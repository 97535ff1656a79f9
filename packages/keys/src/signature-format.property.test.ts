import { bytesToHex } from '@noble/hashes/utils.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatSignature } from './signature-format.js';

const scalar = fc.uint8Array({ minLength: 0, maxLength: 32 });

describe('formatSignature (properties)', () => {
  it('r and s are always 64 lowercase hex characters holding the same number', () => {
    fc.assert(
      fc.property(scalar, scalar, fc.constantFrom(0, 1, undefined), (r, s, recovery) => {
        const out = formatSignature({ r, s, recovery: recovery as 0 | 1 | undefined });
        for (const [hex, bytes] of [
          [out.r, r],
          [out.s, s],
        ] as const) {
          expect(hex).toMatch(/^[0-9a-f]{64}$/);
          expect(BigInt(`0x${hex}`)).toBe(bytes.length ? BigInt(`0x${bytesToHex(bytes)}`) : 0n);
        }
        expect(out.v).toBe(recovery === 1 ? '01' : '00');
        // v parses as decimal 0 or 1, which is what viem and ethers do with it.
        expect(Number.parseInt(out.v, 10)).toBe(recovery === 1 ? 1 : 0);
      }),
    );
  });
});

import { hexToBytes } from '@noble/hashes/utils.js';
import { describe, expect, it } from 'vitest';
import { formatSignature } from './signature-format.js';

describe('formatSignature', () => {
  it('formats r, s and v as the wire wants them', () => {
    const r = hexToBytes('11'.repeat(32));
    const s = hexToBytes('22'.repeat(32));
    expect(formatSignature({ r, s, recovery: 0 })).toEqual({
      r: '11'.repeat(32),
      s: '22'.repeat(32),
      v: '00',
    });
    expect(formatSignature({ r, s, recovery: 1 }).v).toBe('01');
    expect(formatSignature({ r, s }).v).toBe('00');
  });

  it('keeps leading zero bytes and pads short values to 64 characters', () => {
    const r = hexToBytes(`00${'ff'.repeat(31)}`);
    const s = hexToBytes('0f');
    const out = formatSignature({ r, s, recovery: 1 });
    expect(out.r).toBe(`00${'ff'.repeat(31)}`);
    expect(out.s).toBe(`${'0'.repeat(62)}0f`);
  });

  it('emits lowercase hex with no 0x', () => {
    const out = formatSignature({ r: new Uint8Array(32).fill(0xab), s: new Uint8Array(32) });
    expect(out.r).toMatch(/^[0-9a-f]{64}$/);
    expect(out.s).toBe('0'.repeat(64));
  });

  it('refuses a scalar longer than 32 bytes', () => {
    expect(() => formatSignature({ r: new Uint8Array(33), s: new Uint8Array(32) })).toThrow(
      RangeError,
    );
  });
});

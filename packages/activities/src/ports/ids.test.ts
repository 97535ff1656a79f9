import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { randomIds, uuidv7 } from './ids.js';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('uuidv7', () => {
  it('encodes the millisecond timestamp in the first 48 bits (RFC 9562 example)', () => {
    // RFC 9562 Appendix A.6: 2022-02-22T19:22:22Z = 0x017F22E279B0
    const id = uuidv7(
      0x017f22e279b0,
      0xcc3,
      new Uint8Array([0x98, 0xc4, 0xdc, 0x0c, 0x0c, 0x07, 0x39, 0x8f]),
    );
    expect(id).toBe('017f22e2-79b0-7cc3-98c4-dc0c0c07398f');
  });
});

describe('randomIds', () => {
  it('gives strictly increasing v7 activity ids, even when the clock stalls or steps back', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 1, maxLength: 300 }),
        (steps) => {
          let t = 1_700_000_000_000;
          const ids = randomIds({ now: () => t });
          let last = '';
          for (const step of steps) {
            t += step - 2; // sometimes backwards, sometimes stalled
            const id = ids.activityId();
            expect(id).toMatch(UUID_V7);
            expect(id > last).toBe(true);
            last = id;
          }
        },
      ),
    );
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatDerivationPath, HARDENED_OFFSET, parseDerivationPath } from './derivation-path.js';

const index = fc.integer({ min: 0, max: 2 * HARDENED_OFFSET - 1 });
const indices = fc.array(index, { maxLength: 20 });

describe('derivation paths (properties)', () => {
  it('parse(format(indices)) is the identity', () => {
    fc.assert(
      fc.property(indices, (list) => {
        expect(parseDerivationPath(formatDerivationPath(list))).toEqual(list);
      }),
    );
  });

  it("'h', 'H' and an apostrophe mean the same", () => {
    fc.assert(
      fc.property(indices, fc.constantFrom('h', 'H'), (list, marker) => {
        const path = formatDerivationPath(list);
        expect(parseDerivationPath(path.replaceAll("'", marker))).toEqual(list);
      }),
    );
  });

  it('every hardened-only path is accepted for ed25519, any other is refused', () => {
    fc.assert(
      fc.property(indices, (list) => {
        const path = formatDerivationPath(list);
        const allHardened = list.every((i) => i >= HARDENED_OFFSET);
        if (allHardened) expect(parseDerivationPath(path, 'CURVE_ED25519')).toEqual(list);
        else expect(() => parseDerivationPath(path, 'CURVE_ED25519')).toThrow();
      }),
    );
  });

  it('arbitrary strings either parse to valid indices or throw INVALID_PATH', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('m', '/', '0', '1', '9', "'", 'h', ' ', 'x') }),
        (s) => {
          try {
            const parsed = parseDerivationPath(s);
            for (const i of parsed) expect(i).toBeLessThan(2 * HARDENED_OFFSET);
            expect(formatDerivationPath(parsed).replaceAll('h', "'")).toBe(s.replaceAll('h', "'"));
          } catch (error) {
            expect(error).toMatchObject({ key: 'INVALID_PATH' });
          }
        },
      ),
    );
  });
});

import { describe, expect, it } from 'vitest';
import { microUsd, usdOf } from './gas-sponsorship.js';

describe('USD amounts of gas sponsorship', () => {
  it('reads decimal strings to micro-dollars and writes them back with six decimals', () => {
    expect(microUsd('0')).toBe(0n);
    expect(microUsd('25')).toBe(25_000_000n);
    expect(microUsd('0.2')).toBe(200_000n);
    expect(microUsd('12.345678')).toBe(12_345_678n);
    expect(usdOf(126_000n)).toBe('0.126000');
    expect(usdOf(25_000_000n)).toBe('25.000000');
    expect(usdOf(microUsd('999999999999.999999'))).toBe('999999999999.999999');
  });
});

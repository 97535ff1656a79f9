import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from './retry-after.js';

describe('parseRetryAfter', () => {
  const now = Date.parse('2025-01-01T00:00:00Z');
  it.each([
    ['0', 0],
    ['7', 7_000],
    [' 120 ', 120_000],
    ['Wed, 01 Jan 2025 00:01:00 GMT', 60_000],
    ['Tue, 31 Dec 2024 23:00:00 GMT', 0],
    [null, undefined],
    [undefined, undefined],
    ['', undefined],
    ['-1', undefined],
    ['1.5', undefined],
    ['soon', undefined],
    ['99999999999999999999', undefined],
  ])('%s → %s', (value, expected) => {
    expect(parseRetryAfter(value, now)).toBe(expected);
  });
});

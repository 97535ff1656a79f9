import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isAllowedFrameOrigin, parseFrameOrigins } from './frame-origins.js';

const host = fc.stringMatching(/^[a-z][a-z0-9-]{0,10}(\.[a-z][a-z0-9-]{0,10}){0,2}$/);
const origin = fc
  .tuple(fc.constantFrom('http', 'https'), host, fc.option(fc.integer({ min: 1, max: 65535 })))
  .map(([scheme, name, port]) => `${scheme}://${name}${port === null ? '' : `:${port}`}`);

describe('parseFrameOrigins', () => {
  it('reads a comma-separated list, lower-cased, without trailing slashes', () => {
    expect(parseFrameOrigins(' https://App.Example.com/ , http://localhost:*,*')).toEqual([
      'https://app.example.com',
      'http://localhost:*',
      '*',
    ]);
    expect(parseFrameOrigins('')).toEqual([]);
  });

  it('refuses what is not an origin', () => {
    for (const bad of ['app.example.com', 'https://a.com/path', 'javascript:alert(1)', 'null']) {
      expect(() => parseFrameOrigins(bad)).toThrow(/not an origin/);
    }
  });
});

describe('isAllowedFrameOrigin', () => {
  it('allows an origin listed exactly, and nothing that only starts like it', () => {
    fc.assert(
      fc.property(origin, (o) => {
        expect(isAllowedFrameOrigin(o, [o])).toBe(true);
        expect(isAllowedFrameOrigin(`${o}.evil.com`, [o])).toBe(false);
        const otherScheme = o.startsWith('https:') ? `http:${o.slice(6)}` : `https:${o.slice(5)}`;
        expect(isAllowedFrameOrigin(otherScheme, [o])).toBe(false);
      }),
    );
  });

  it('reads `:*` as any port of that scheme and host only', () => {
    const allowed = ['http://localhost:*'];
    expect(isAllowedFrameOrigin('http://localhost:5173', allowed)).toBe(true);
    expect(isAllowedFrameOrigin('http://localhost', allowed)).toBe(true);
    expect(isAllowedFrameOrigin('https://localhost:5173', allowed)).toBe(false);
    expect(isAllowedFrameOrigin('http://localhost.evil.com:5173', allowed)).toBe(false);
    expect(isAllowedFrameOrigin('http://127.0.0.1:5173', allowed)).toBe(false);
  });

  it('never allows an opaque origin, not even with *', () => {
    expect(isAllowedFrameOrigin('null', ['*'])).toBe(false);
    expect(isAllowedFrameOrigin('https://any.example', ['*'])).toBe(true);
    expect(isAllowedFrameOrigin('https://any.example', [])).toBe(false);
  });
});

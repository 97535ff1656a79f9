import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyResponse, describeResponse } from './classify-response.js';

describe('classifyResponse', () => {
  it('follows wire-compat §8', () => {
    expect(classifyResponse({ status: 200 })).toBe('delivered');
    expect(classifyResponse({ status: 204 })).toBe('delivered');
    expect(classifyResponse({ status: 299 })).toBe('delivered');
    expect(classifyResponse({ status: 301 })).toBe('terminal');
    expect(classifyResponse({ status: 308 })).toBe('terminal');
    expect(classifyResponse({ status: 400 })).toBe('terminal');
    expect(classifyResponse({ status: 410 })).toBe('terminal');
    expect(classifyResponse({ status: 429, retryAfterMs: 1000 })).toBe('terminal');
    expect(classifyResponse({ status: 500 })).toBe('retry');
    expect(classifyResponse({ status: 503, retryAfterMs: 1000 })).toBe('retry');
    expect(classifyResponse({ status: 599 })).toBe('retry');
    expect(classifyResponse({ status: 100 })).toBe('terminal');
    expect(classifyResponse({ status: 600 })).toBe('terminal');
    expect(classifyResponse({ error: 'connection refused' })).toBe('retry');
  });

  it('partitions every status', () => {
    fc.assert(
      fc.property(fc.integer({ min: 100, max: 599 }), (status) => {
        const expected =
          status < 200
            ? 'terminal'
            : status < 300
              ? 'delivered'
              : status < 500
                ? 'terminal'
                : 'retry';
        expect(classifyResponse({ status })).toBe(expected);
      }),
    );
  });

  it('describes responses without secrets', () => {
    expect(describeResponse({ status: 404 })).toBe('HTTP 404');
    expect(describeResponse({ error: 'timeout after 10000 ms' })).toBe('timeout after 10000 ms');
  });
});

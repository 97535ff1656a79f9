import { describe, expect, it } from 'vitest';
import { httpLimitsFromFlags } from './http-limit-flags.js';

describe('keyhold serve’s HTTP limit flags', () => {
  it('reads each flag into its startServer option; absent flags keep the defaults', () => {
    expect(httpLimitsFromFlags({})).toEqual({});
    expect(
      httpLimitsFromFlags({
        'headers-timeout': '2000',
        'request-timeout': '60000',
        'keep-alive-timeout': '65000',
        'max-connections': '4096',
        'max-header-size': '32768',
      }),
    ).toEqual({
      headersTimeoutMs: 2000,
      requestTimeoutMs: 60000,
      keepAliveTimeoutMs: 65000,
      maxConnections: 4096,
      maxHeaderSize: 32768,
    });
  });

  it.each([
    [{ 'request-timeout': '0' }, '--request-timeout must be a positive whole number, got "0"'],
    [{ 'max-connections': '-5' }, '--max-connections must be a positive whole number, got "-5"'],
    [{ 'max-header-size': '16k' }, '--max-header-size must be a positive whole number, got "16k"'],
    [
      { 'keep-alive-timeout': '1.5' },
      '--keep-alive-timeout must be a positive whole number, got "1.5"',
    ],
    [
      { 'headers-timeout': '40000' },
      '--headers-timeout (40000) must not exceed --request-timeout (30000, the default): the headers are part of the request',
    ],
    [
      { 'request-timeout': '5000' },
      '--headers-timeout (10000, the default) must not exceed --request-timeout (5000): the headers are part of the request',
    ],
  ])('%o is a usage error naming the flag', (flags, message) => {
    expect(() => httpLimitsFromFlags(flags)).toThrow(message);
  });
});

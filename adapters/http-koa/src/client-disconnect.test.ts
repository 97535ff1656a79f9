import { describe, expect, it } from 'vitest';
import { isClientDisconnect } from './client-disconnect.js';

const withCode = (code: string) => Object.assign(new Error(code), { code });

describe('isClientDisconnect', () => {
  it.each(['ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ERR_STREAM_PREMATURE_CLOSE'])(
    '%s is the client going away',
    (code) => {
      expect(isClientDisconnect(withCode(code))).toBe(true);
    },
  );

  it.each([
    ['a fault', new Error('boom')],
    ['another errno', withCode('ENOENT')],
    ['not an error', undefined],
  ])('%s is not', (_, error) => {
    expect(isClientDisconnect(error)).toBe(false);
  });
});

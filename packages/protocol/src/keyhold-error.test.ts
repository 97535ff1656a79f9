import { describe, expect, it, vi } from 'vitest';
import {
  ERROR_DETAIL_TYPE,
  isKeyholdError,
  KEYHOLD_ERROR_BRAND,
  KeyholdError,
} from './keyhold-error.js';

/** A second instance of this module, as a duplicate install of @keyhold/protocol would load. */
async function secondCopy(): Promise<typeof import('./keyhold-error.js')> {
  vi.resetModules();
  return import('./keyhold-error.js');
}

describe('KeyholdError.is', () => {
  it('recognizes an error made by a second copy of the package, which instanceof does not', async () => {
    const copy = await secondCopy();
    expect(copy.KeyholdError).not.toBe(KeyholdError);
    const foreign: unknown = new copy.KeyholdError('NOT_FOUND', { path: '/x' });
    expect(foreign instanceof KeyholdError).toBe(false);
    expect(KeyholdError.is(foreign)).toBe(true);
    expect(isKeyholdError(foreign)).toBe(true);
    expect(copy.KeyholdError.is(new KeyholdError('NOT_FOUND', { path: '/x' }))).toBe(true);
  });

  it('reads the global brand: any object carrying it is one, a look-alike without it is not', () => {
    expect(KeyholdError.is({ [Symbol.for('keyhold.error')]: true })).toBe(true);
    expect(KEYHOLD_ERROR_BRAND).toBe(Symbol.for('keyhold.error'));
    const lookAlike = Object.assign(new Error('not found'), {
      name: 'KeyholdError',
      key: 'NOT_FOUND',
      errorCode: 'NOT_FOUND',
    });
    for (const value of [lookAlike, { [Symbol('keyhold.error')]: true }, null, 'KeyholdError', 5]) {
      expect(KeyholdError.is(value)).toBe(false);
    }
  });

  it('keeps the brand off the instance: the Status body and own keys are unchanged', () => {
    const error = new KeyholdError('METHOD_NOT_ALLOWED', { allow: 'POST' });
    expect(Object.getOwnPropertySymbols(error)).toEqual([]);
    expect(error.toStatus()).toEqual({
      code: 12,
      message: 'method not allowed',
      details: [{ '@type': ERROR_DETAIL_TYPE, errorCode: 'METHOD_NOT_ALLOWED', allow: 'POST' }],
    });
    expect(JSON.stringify(error.toStatus())).toBe(
      `{"code":12,"message":"method not allowed","details":[{"@type":"${ERROR_DETAIL_TYPE}","errorCode":"METHOD_NOT_ALLOWED","allow":"POST"}]}`,
    );
    expect(error.httpStatus).toBe(405);
  });
});

describe('KeyholdError details, typed per code', () => {
  it('answers a variant with its shared errorCode and its own text', () => {
    const error = new KeyholdError('MALFORMED_STAMP', { reason: 'X-Stamp is not base64url' });
    expect(error.toStatus()).toEqual({
      code: 16,
      message: 'malformed activity stamp',
      details: [
        {
          '@type': ERROR_DETAIL_TYPE,
          errorCode: 'SIGNATURE_INVALID',
          reason: 'X-Stamp is not base64url',
        },
      ],
    });
  });

  it('type-checks the details of a code that declares a shape (tsc -p tsconfig.check.json)', () => {
    const made = [
      new KeyholdError('NOT_FOUND', { path: '/public/v1/x' }),
      new KeyholdError('UNSUPPORTED_QUERY', { query: 'list_x' }),
      new KeyholdError('TRANSACTION_INPUT_NOT_SIGNABLE'),
      new KeyholdError('INVALID_TRANSACTION', { reason: 'not hex', field: '/x' }),
      // A code with no declared shape takes any record, or none.
      new KeyholdError('REQUEST_INVALID', { walletId: 'w', reason: 'missing' }),
      new KeyholdError('PUBLIC_KEY_NOT_FOUND'),
      // @ts-expect-error NOT_FOUND requires its path
      new KeyholdError('NOT_FOUND'),
      // @ts-expect-error a member NOT_FOUND does not declare
      new KeyholdError('NOT_FOUND', { path: '/x', walletId: 'w' }),
      // @ts-expect-error ALREADY_VOTED names the activity and the user
      new KeyholdError('ALREADY_VOTED', { activityId: 'a' }),
      // @ts-expect-error errorCode is the catalogue's, never a detail
      new KeyholdError('REQUEST_INVALID', { errorCode: 'OTHER' }),
    ];
    expect(made.every((error) => KeyholdError.is(error))).toBe(true);
  });
});

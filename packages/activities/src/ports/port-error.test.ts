import { describe, expect, it, vi } from 'vitest';
import { RateLimitedError } from '../rate-limit/request-admission.js';
import { PORT_ERROR_BRAND, portErrorCodeOf } from './port-error.js';
import { RateLimiterUnavailableError } from './rate-limiter.js';
import { StoreConflictError, StoreUnavailableError } from './store.js';

/** Second instances of the port modules, as a duplicate install of @keyhold/activities loads them. */
async function secondCopy() {
  vi.resetModules();
  const [store, limiter] = await Promise.all([import('./store.js'), import('./rate-limiter.js')]);
  return { ...store, ...limiter };
}

describe('port errors, by code', () => {
  it('each carries a stable code, and the brand under Symbol.for holds it', () => {
    const errors = [
      new StoreConflictError('policy_name'),
      new StoreUnavailableError('connection refused'),
      new RateLimiterUnavailableError('timeout'),
      new RateLimitedError({
        allowed: false,
        lane: 'query',
        scope: 'user',
        decision: { allowed: false, limit: 1, remaining: 0, resetMs: 1000, retryAfterMs: 1000 },
      }),
    ];
    expect(errors.map((e) => [e.code, portErrorCodeOf(e)])).toEqual([
      ['STORE_CONFLICT', 'STORE_CONFLICT'],
      ['STORE_UNAVAILABLE', 'STORE_UNAVAILABLE'],
      ['RATE_LIMIT_BACKEND_UNAVAILABLE', 'RATE_LIMIT_BACKEND_UNAVAILABLE'],
      ['RATE_LIMITED', 'RATE_LIMITED'],
    ]);
    expect(PORT_ERROR_BRAND).toBe(Symbol.for('keyhold.port-error'));
    // The brand lives on the prototype: no instance gains a symbol key.
    expect(errors.flatMap((e) => Object.getOwnPropertySymbols(e))).toEqual([]);
  });

  it('is() recognizes the errors of a second copy of the package, which instanceof does not', async () => {
    const copy = await secondCopy();
    expect(copy.StoreConflictError).not.toBe(StoreConflictError);
    const conflict: unknown = new copy.StoreConflictError('activity_fingerprint');
    const unavailable: unknown = new copy.StoreUnavailableError('pool exhausted');
    const limiter: unknown = new copy.RateLimiterUnavailableError('redis down');
    expect(conflict instanceof StoreConflictError).toBe(false);
    expect(StoreConflictError.is(conflict)).toBe(true);
    expect(StoreConflictError.is(conflict) && conflict.constraint).toBe('activity_fingerprint');
    expect(StoreUnavailableError.is(unavailable)).toBe(true);
    expect(RateLimiterUnavailableError.is(limiter)).toBe(true);
  });

  it('is() tells the codes apart, and refuses anything without the brand', () => {
    const conflict = new StoreConflictError('policy_name');
    expect(StoreUnavailableError.is(conflict)).toBe(false);
    expect(RateLimiterUnavailableError.is(conflict)).toBe(false);
    const lookAlike = Object.assign(new Error('store constraint violated: x'), {
      name: 'StoreConflictError',
      code: 'STORE_CONFLICT',
      constraint: 'x',
    });
    for (const value of [
      lookAlike,
      undefined,
      null,
      'STORE_CONFLICT',
      { code: 'STORE_CONFLICT' },
    ]) {
      expect(StoreConflictError.is(value)).toBe(false);
      expect(portErrorCodeOf(value)).toBeUndefined();
    }
  });
});

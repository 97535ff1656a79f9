import { describe, expect, it } from 'vitest';
import {
  isPayErrorCode,
  PAY_ERROR_CODE_LIST,
  PAY_ERROR_CODES,
  PayError,
  payErrorResponse,
  READY_ERROR_CODES,
  readinessResponse,
} from './index.js';

describe('the payment gateway error codes', () => {
  it('are the fourteen of the spec, in its order', () => {
    expect(PAY_ERROR_CODE_LIST).toEqual([
      'PAYMENT_REQUEST_INVALID',
      'PAYMENT_NETWORK_MISMATCH',
      'PAYMENT_REQUIREMENTS_UNSUPPORTED',
      'PAYMENT_AUTH_INVALID',
      'PAYMENT_AUTH_FORBIDDEN',
      'PAYMENT_AUTH_UNAVAILABLE',
      'PAYMENT_INTENT_CONFLICT',
      'PAYMENT_PROTOCOL_MISMATCH',
      'PAYMENT_REVISION_MISMATCH',
      'PAYMENT_NOT_FOUND',
      'PAYMENT_SERVICE_UNAVAILABLE',
      'PAYMENT_STATUS_UNKNOWN',
      'PAYMENT_NOT_FULFILLABLE',
      'FULFILLMENT_PERSISTENCE_UNAVAILABLE',
    ]);
    expect(isPayErrorCode('PAYMENT_NOT_FOUND')).toBe(true);
    expect(isPayErrorCode('NOT_FOUND')).toBe(false);
    expect(isPayErrorCode('toString')).toBe(false);
  });

  it('are retryable exactly when they answer 503', () => {
    for (const code of PAY_ERROR_CODE_LIST) {
      const entry = PAY_ERROR_CODES[code];
      expect(entry.retryable, code).toBe(entry.http === 503);
    }
  });

  it('answer the fixed body, with Retry-After: 2 only on PAYMENT_STATUS_UNKNOWN', () => {
    for (const code of PAY_ERROR_CODE_LIST) {
      const response = payErrorResponse(new PayError(code));
      expect(response.status).toBe(PAY_ERROR_CODES[code].http);
      expect(JSON.parse(response.body)).toEqual({
        errorCode: code,
        message: PAY_ERROR_CODES[code].message,
        retryable: PAY_ERROR_CODES[code].retryable,
      });
      expect(response.headers['retry-after']).toBe(
        code === 'PAYMENT_STATUS_UNKNOWN' ? '2' : undefined,
      );
    }
    const unknown = payErrorResponse(
      new PayError('PAYMENT_STATUS_UNKNOWN', { paymentId: 'pay_1' }),
    );
    expect(JSON.parse(unknown.body)).toMatchObject({ paymentId: 'pay_1', retryable: true });
  });

  it('are recognized by brand, not class', () => {
    const error = new PayError('PAYMENT_NOT_FOUND');
    expect(PayError.is(error)).toBe(true);
    expect(PayError.is(new Error('x'))).toBe(false);
    expect(PayError.is({ code: 'PAYMENT_NOT_FOUND' })).toBe(false);
  });
});

describe('readiness', () => {
  it('answers 200 ready, or 503 with the code and its retryability', () => {
    expect(readinessResponse(undefined)).toMatchObject({ status: 200 });
    expect(JSON.parse(readinessResponse(undefined).body)).toEqual({ status: 'ready' });
    expect(Object.keys(READY_ERROR_CODES)).toEqual([
      'PAY_GATEWAY_CONFIGURATION_INVALID',
      'COORDINATOR_UNAVAILABLE',
      'REPLAY_STORE_UNAVAILABLE',
      'FACILITATOR_UNAVAILABLE',
    ]);
    for (const code of Object.keys(READY_ERROR_CODES) as (keyof typeof READY_ERROR_CODES)[]) {
      const response = readinessResponse(code);
      expect(response.status).toBe(503);
      expect(JSON.parse(response.body)).toEqual({
        status: 'unavailable',
        errorCode: code,
        retryable: code !== 'PAY_GATEWAY_CONFIGURATION_INVALID',
      });
    }
  });
});

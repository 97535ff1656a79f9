import { describe, expect, it } from 'vitest';
import { isKeyholdPath } from './keyhold-paths.js';

describe('isKeyholdPath', () => {
  it.each([
    '/public/v1/submit/create_wallet',
    '/public/v1/query/whoami',
    '/public/v1/submit/make_coffee',
    '/public/v1/discovery/webhooks/jwks',
    '/keyhold/v1/explain_policies',
    '/health',
    '/ready',
    '/openapi.json',
    '/base-sepolia/supported',
    '/pay/base-sepolia/settle',
    '/pay/ready',
  ])('%s is Keyhold’s', (path) => {
    expect(isKeyholdPath(path)).toBe(true);
  });

  it.each([
    '/',
    '/hello',
    '/api/echo',
    '/publicity',
    '/keyholder/x',
    '/health/x',
    '/ready2',
    '/payments',
    '/PUBLIC/v1/query/whoami',
  ])('%s is the host’s', (path) => {
    expect(isKeyholdPath(path)).toBe(false);
  });
});

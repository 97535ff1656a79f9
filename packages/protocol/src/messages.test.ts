import { describe, expect, it } from 'vitest';
import { Messages } from './messages.js';

/**
 * The documented exceptions to "the key is the errorCode": message variants, each a second
 * Turnkey text under an errorCode another refusal also answers with. Adding a variant is a
 * decision (README, "Errors"), so this list is exact.
 */
const VARIANTS = {
  MALFORMED_STAMP: 'SIGNATURE_INVALID',
  NO_ACTIVITY_WITH_FINGERPRINT: 'ACTIVITY_NOT_FOUND',
  MAX_LONG_LIVED_API_KEYS: 'RESOURCE_LIMIT_EXCEEDED',
  MAX_SHORT_LIVED_API_KEYS: 'RESOURCE_LIMIT_EXCEEDED',
  SIGNER_NOT_IN_TRANSACTION: 'INVALID_TRANSACTION',
  TRANSACTION_INPUT_NOT_SIGNABLE: 'INVALID_TRANSACTION',
  WALLET_ACCOUNT_NOT_IN_ORGANIZATION: 'WALLET_ACCOUNT_NOT_FOUND',
  WEBAUTHN_SIGNATURE_INVALID: 'SIGNATURE_INVALID',
  MULTIPLE_SUB_ORGANIZATIONS_FOR_CREDENTIAL_ID: 'MULTIPLE_SUB_ORGANIZATIONS',
  AUTHENTICATOR_ATTESTATION_MISSING: 'INVALID_ATTESTATION',
  MAX_AUTHENTICATORS: 'RESOURCE_LIMIT_EXCEEDED',
  MAX_OAUTH_PROVIDERS: 'RESOURCE_LIMIT_EXCEEDED',
};

const entries = Object.entries(Messages);

describe('the message catalogue', () => {
  it('keys every entry by its wire errorCode, except exactly the documented variants', () => {
    const exceptions = Object.fromEntries(
      entries.filter(([key, entry]) => key !== entry.errorCode).map(([k, e]) => [k, e.errorCode]),
    );
    expect(exceptions).toEqual(VARIANTS);
  });

  it('gives one errorCode one status: variants differ from each other only in their text', () => {
    const byErrorCode = new Map<string, typeof entries>();
    for (const item of entries) {
      byErrorCode.set(item[1].errorCode, [...(byErrorCode.get(item[1].errorCode) ?? []), item]);
    }
    for (const [errorCode, group] of byErrorCode) {
      const statuses = new Set(
        group.map(([, e]) => JSON.stringify([e.code, e.http, e.withoutDetails])),
      );
      expect(statuses.size, errorCode).toBe(1);
      expect(new Set(group.map(([, e]) => e.message)).size, errorCode).toBe(group.length);
    }
  });

  it('names a variant’s errorCode by a catalogue key wherever one entry is the general case', () => {
    // RESOURCE_LIMIT_EXCEEDED has two variants and no general text (neither limit is the other).
    const withoutKey = new Set(
      Object.values(VARIANTS).filter((errorCode) => !(errorCode in Messages)),
    );
    expect([...withoutKey]).toEqual(['RESOURCE_LIMIT_EXCEEDED']);
  });

  it('keeps the wire of the entries whose key changed in issue #11.5', () => {
    // The old key → the Status a client saw before the rename; the rename moved the key only.
    expect(Messages.REQUEST_INVALID).toMatchObject({ code: 3, message: 'bad request body' });
    expect(Messages.NOT_FOUND).toMatchObject({ code: 5, errorCode: 'NOT_FOUND' });
    expect(Messages.SIGNATURE_INVALID).toMatchObject({
      code: 16,
      message: 'could not verify api key signature',
    });
    expect(Messages.INVALID_TRANSACTION).toMatchObject({
      code: 3,
      message: 'failed to parse transaction',
    });
    expect(Messages.RATE_LIMIT_BACKEND_UNAVAILABLE).toMatchObject({
      code: 14,
      errorCode: 'RATE_LIMIT_BACKEND_UNAVAILABLE',
      message: Messages.UNAVAILABLE.message,
    });
  });
});

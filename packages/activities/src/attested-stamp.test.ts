import { describe, expect, it } from 'vitest';
import { parseAttestedStamp } from './attested-stamp.js';
import { parseStamp } from './stamp.js';

const KEY = `02${'ab'.repeat(32)}`;
const header = (stamp: Record<string, unknown>) =>
  Buffer.from(JSON.stringify(stamp)).toString('base64url');
const good = {
  publicKeyAttestation: 'e30.e30.c2ln',
  scheme: 'STAMP_ATTESTED_SCHEME_P256_OIDC',
  publicKey: KEY,
  signature: '3044',
};

describe('X-Stamp-Attested (wire-compat §1.3)', () => {
  it('reads the base64url JSON into a P-256 stamp and its attestation', () => {
    const stamp = parseStamp({ 'x-stamp-attested': header(good) });
    expect(stamp).toMatchObject({
      kind: 'attested',
      scheme: 'STAMP_ATTESTED_SCHEME_P256_OIDC',
      attestation: 'e30.e30.c2ln',
      signed: { kind: 'api-key', curve: 'p256', publicKey: KEY, signature: '3044' },
    });
  });

  it('X-Stamp wins when a request carries both', () => {
    const apiKey = header({
      publicKey: KEY,
      scheme: 'SIGNATURE_SCHEME_TK_API_P256',
      signature: '3044',
    });
    expect(parseStamp({ 'x-stamp': apiKey, 'x-stamp-attested': header(good) }).kind).toBe(
      'api-key',
    );
  });

  it.each([
    ['not base64url', '!!'],
    ['not JSON', Buffer.from('nope').toString('base64url')],
    ['an unknown scheme', header({ ...good, scheme: 'SIGNATURE_SCHEME_TK_API_P256' })],
    ['no attestation', header({ ...good, publicKeyAttestation: '' })],
    ['an uncompressed key', header({ ...good, publicKey: `04${'ab'.repeat(64)}` })],
    ['a signature that is not hex', header({ ...good, signature: 'xyz' })],
    ['an absurd length', 'a'.repeat(20_000)],
  ])('refuses %s as a malformed stamp', (_, value) => {
    expect(() => parseAttestedStamp(value)).toThrow(/malformed activity stamp/);
  });
});

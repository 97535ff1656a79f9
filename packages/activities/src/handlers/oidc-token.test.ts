import { KeyholdError } from '@keyhold/protocol';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { describe, expect, it } from 'vitest';
import { checkOidcNonce, oidcNonceOf, readOidcTokenShape } from './oidc-token.js';

const KEY = '0394e549a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b281a';
const jwt = (payload: unknown) =>
  `e30.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.c2ln`;

describe('the OIDC nonce rule (identity-and-payments §B5)', () => {
  it('hashes the UTF-8 of the key’s hex string, not the key’s bytes', () => {
    expect(oidcNonceOf(KEY)).toBe(bytesToHex(sha256(utf8ToBytes(KEY))));
    expect(oidcNonceOf(KEY)).not.toBe(bytesToHex(sha256(hexToBytes(KEY))));
    expect(oidcNonceOf(KEY)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('accepts `nonce` or `tknonce`, refuses another key’s or none', () => {
    const base = { iss: 'https://i', sub: 's', aud: ['a'], exp: 1 };
    expect(() => checkOidcNonce({ ...base, nonce: oidcNonceOf(KEY) }, [KEY])).not.toThrow();
    expect(() => checkOidcNonce({ ...base, tknonce: oidcNonceOf(KEY) }, [KEY])).not.toThrow();
    expect(() =>
      checkOidcNonce({ ...base, nonce: oidcNonceOf(`${KEY.slice(0, -1)}b`) }, [KEY]),
    ).toThrow(KeyholdError);
    expect(() => checkOidcNonce(base, [KEY])).toThrow(/invalid OIDC token/);
  });
});

describe('readOidcTokenShape (the spec’s "invalid OIDC token")', () => {
  it('needs three parts and the iss, sub and aud claims', () => {
    expect(readOidcTokenShape(jwt({ iss: 'https://i', sub: 's', aud: 'a' }))).toEqual({
      iss: 'https://i',
      sub: 's',
      aud: ['a'],
    });
    expect(readOidcTokenShape(jwt({ iss: 'https://i', sub: 's', aud: ['a', 'b'] })).iss).toBe(
      'https://i',
    );
    for (const bad of [
      'a.b',
      'not.base64-json.x',
      jwt({ sub: 's', aud: 'a' }),
      jwt({ iss: 'https://i', aud: 'a' }),
      jwt({ iss: 'https://i', sub: 's' }),
      jwt({ iss: 'https://i', sub: 's', aud: [] }),
    ]) {
      expect(() => readOidcTokenShape(bad), bad).toThrow(/invalid OIDC token/);
    }
  });
});
